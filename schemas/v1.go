package schemas

import (
	"strings"

	"github.com/valyala/fastjson"
)

// decodeV1 decodes the v1.1 tweet data[start:end], whose members are f. Its
// stored JSON is its bytes as read.
func (d *Decoder) decodeV1(out *Decoded, f *fields, start, end int) {
	raw := d.rec.Data[start:end]
	t, reason := normalizeV1(f)
	if reason != "" {
		d.reject(out, start, raw, reason)
		return
	}
	t.JSON = raw
	t.Origin = d.origin(start)
	out.Tweets = append(out.Tweets, t)
}

// normalizeV1 fills a Tweet from the members of a v1.1 tweet, or returns
// why it cannot be indexed.
func normalizeV1(f *fields) (Tweet, string) {
	var t Tweet
	if isNull(f.idStr) {
		return t, "missing id_str"
	}
	id, ok := parseID(f.idStr.GetStringBytes())
	if !ok {
		return t, "invalid id"
	}
	t.ID = id
	sec, reason := createdAtReason(f.createdAt.GetStringBytes(), !isNull(f.createdAt))
	if reason != "" {
		return t, reason
	}
	t.CreatedAt = sec
	p, reason := v1Point(f)
	if reason != "" {
		return t, reason
	}
	t.HasPoint, t.Lat, t.Lon, t.PlaceCentre = p.ok, p.lat, p.lon, p.centre

	t.Text = v1Text(f)
	t.Entities = v1Entities(f)
	if q := f.quoted; q != nil && q.Type() == fastjson.TypeObject {
		t.QuotedAuthor = string(q.GetStringBytes("user", "screen_name"))
	}
	t.ReplyTo = string(f.replyToName.GetStringBytes())
	if f.user != nil {
		t.UserName = string(f.user.GetStringBytes("name"))
		t.ScreenName = string(f.user.GetStringBytes("screen_name"))
	}
	t.Lang = langOf(f.lang)
	return t, ""
}

// v1Text returns the full text of a v1.1 tweet: for a retweet, "RT @" +
// the retweeted user's screen name + ": " + the retweeted tweet's full
// text, which the retweet's own text truncates.
func v1Text(f *fields) string {
	if rs := f.retweeted; rs != nil && rs.Type() == fastjson.TypeObject {
		name := rs.GetStringBytes("user", "screen_name")
		if len(name) > 0 {
			return retweetText(name, v1FullText(rs))
		}
	}
	if f.extended != nil {
		if b := f.extended.GetStringBytes("full_text"); b != nil {
			return string(b)
		}
	}
	if b := f.fullText.GetStringBytes(); b != nil {
		return string(b)
	}
	return string(f.text.GetStringBytes())
}

// v1FullText returns extended_tweet.full_text, full_text or text of the
// v1.1 tweet v, the first present.
func v1FullText(v *fastjson.Value) []byte {
	if b := v.GetStringBytes("extended_tweet", "full_text"); b != nil {
		return b
	}
	if b := v.GetStringBytes("full_text"); b != nil {
		return b
	}
	return v.GetStringBytes("text")
}

// retweetText returns "RT @" + name + ": " + text in one allocation.
func retweetText(name, text []byte) string {
	var sb strings.Builder
	sb.Grow(len("RT @: ") + len(name) + len(text))
	sb.WriteString("RT @")
	sb.Write(name)
	sb.WriteString(": ")
	sb.Write(text)
	return sb.String()
}

// parseID parses a tweet id: a decimal uint64 above zero.
func parseID(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false // overflow
		}
		n = n*10 + d
	}
	return n, n > 0
}
