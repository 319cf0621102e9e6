package schemas

import (
	"bytes"
	"strings"

	"github.com/valyala/fastjson"
)

// includes indexes the "includes" of a v2 document or page: the users,
// places and tweets its tweets reference, by id.
type includes struct {
	users, places, tweets []incItem
}

// incItem is one included object.
type incItem struct {
	id     []byte // valid until the parser parses again
	v      *fastjson.Value
	s      span // its bytes in the record (pages only)
	picked bool // referenced by the tweet being built (pages only)
}

func (inc *includes) reset() {
	clear(inc.users)
	clear(inc.places)
	clear(inc.tweets)
	inc.users, inc.places, inc.tweets = inc.users[:0], inc.places[:0], inc.tweets[:0]
}

// load indexes the includes object v. When data is not nil, v's bytes are
// the object starting at data[start], and load also records the span of
// every included object; it reports false if they cannot be located.
func (inc *includes) load(v *fastjson.Value, data []byte, start int) bool {
	inc.reset()
	if v == nil || v.Type() != fastjson.TypeObject {
		return true
	}
	var lists [3]*fastjson.Value
	o, _ := v.Object()
	o.Visit(func(key []byte, v *fastjson.Value) {
		if i := includeList(key); i >= 0 {
			lists[i] = v
		}
	})
	var spans [3]span
	var found [3]bool
	if data != nil {
		ok := eachMember(data, start, func(key []byte, s span) bool {
			if i := includeListRaw(key); i >= 0 {
				spans[i], found[i] = s, true
			}
			return true
		})
		if !ok {
			return false
		}
	}
	dst := [3]*[]incItem{&inc.users, &inc.places, &inc.tweets}
	var elems []span
	for i, list := range lists {
		if list == nil || list.Type() != fastjson.TypeArray {
			continue
		}
		a := list.GetArray()
		if data != nil {
			var ok bool
			elems, ok = elementSpans(data, spans[i].start, elems[:0])
			if !found[i] || !ok || len(elems) != len(a) {
				return false
			}
		}
		for j, e := range a {
			item := incItem{id: e.GetStringBytes("id"), v: e}
			if data != nil {
				item.s = elems[j]
			}
			*dst[i] = append(*dst[i], item)
		}
	}
	return true
}

// includeList returns the index of an includes member (users 0, places 1,
// tweets 2), or -1.
func includeList(key []byte) int {
	switch string(key) {
	case "users":
		return 0
	case "places":
		return 1
	case "tweets":
		return 2
	}
	return -1
}

// includeListRaw is includeList for a raw (escaped) key.
func includeListRaw(key []byte) int {
	for i, k := range [...]string{"users", "places", "tweets"} {
		if keyEqual(key, k) {
			return i
		}
	}
	return -1
}

// find returns the index of the first item of list with the given id, or -1.
func (inc *includes) find(list []incItem, id []byte) int {
	if len(id) == 0 {
		return -1
	}
	for i := range list {
		if bytes.Equal(list[i].id, id) {
			return i
		}
	}
	return -1
}

// user returns the included user with the given id, or nil.
func (inc *includes) user(id []byte) *fastjson.Value {
	if inc == nil {
		return nil
	}
	if i := inc.find(inc.users, id); i >= 0 {
		return inc.users[i].v
	}
	return nil
}

// decodeV2Single decodes a single-tweet v2 document {"data": {...},
// "includes": {...}} (a filtered stream line). Its stored JSON is the
// document as read.
func (d *Decoder) decodeV2Single(out *Decoded, f *fields, start, end int) {
	raw := d.rec.Data[start:end]
	d.inc.load(f.includes, nil, 0)
	var tf fields
	tf.collect(f.data)
	if kind, ok := tf.notATweet(); ok {
		out.skip(kind) // {"data": <a user>, ...}
		return
	}
	t, reason := normalizeV2(&tf, &d.inc)
	if reason != "" {
		d.reject(out, start, raw, reason)
		return
	}
	t.JSON = raw
	t.Origin = d.origin(start)
	out.Tweets = append(out.Tweets, t)
}

// decodeV2Flat decodes a flattened twarc2 tweet: a v2 tweet with its
// author ("author"), place (in "geo") and referenced tweets inlined.
func (d *Decoder) decodeV2Flat(out *Decoded, f *fields, start, end int) {
	raw := d.rec.Data[start:end]
	t, reason := normalizeV2(f, nil)
	if reason != "" {
		d.reject(out, start, raw, reason)
		return
	}
	t.JSON = raw
	t.Origin = d.origin(start)
	out.Tweets = append(out.Tweets, t)
}

// normalizeV2 fills a Tweet from the members of a v2 tweet, resolving its
// author, place and retweeted tweet through inc (nil for a flattened
// tweet, which carries them inline), or returns why it cannot be indexed.
func normalizeV2(f *fields, inc *includes) (Tweet, string) {
	var t Tweet
	if isNull(f.id) {
		return t, "missing id"
	}
	id, ok := v2ID(f.id)
	if !ok {
		return t, "invalid id"
	}
	t.ID = id
	sec, reason := createdAtReason(f.createdAt.GetStringBytes(), !isNull(f.createdAt))
	if reason != "" {
		return t, reason
	}
	t.CreatedAt = sec
	p, reason := v2Point(f.geo, inc)
	if reason != "" {
		return t, reason
	}
	t.HasPoint, t.Lat, t.Lon, t.PlaceCentre = p.ok, p.lat, p.lon, p.centre

	author := f.author
	if author == nil || author.Type() != fastjson.TypeObject {
		author = inc.user(f.authorID.GetStringBytes())
	}
	if author != nil {
		t.UserName = string(author.GetStringBytes("name"))
		t.ScreenName = string(author.GetStringBytes("username"))
	}
	t.Text = v2Text(f, inc)
	t.Entities = v2Entities(f, inc)
	t.QuotedAuthor = string(v2AuthorName(v2Referenced(f, inc, "quoted"), inc))
	t.ReplyTo = string(v2ReplyTo(f, inc))
	t.Lang = langOf(f.lang)
	return t, ""
}

// v2Text returns the full text of a v2 tweet: note_tweet.text, else text;
// for a retweet whose retweeted tweet is at hand (inlined, or in
// includes.tweets), "RT @" + its author's username + ": " + its full text.
func v2Text(f *fields, inc *includes) string {
	if rt, name := v2Retweeted(f, inc); rt != nil {
		full := rt.GetStringBytes("note_tweet", "text")
		if full == nil {
			full = rt.GetStringBytes("text")
		}
		return retweetText(name, full)
	}
	if nt := f.noteTweet.GetStringBytes("text"); nt != nil {
		return string(nt)
	}
	return string(f.text.GetStringBytes())
}

// v2Retweeted returns the tweet a v2 retweet retweets and its author's
// username, when the tweet is at hand (inlined, or in includes.tweets)
// and the username known; nil if not, or if f is no retweet.
func v2Retweeted(f *fields, inc *includes) (*fastjson.Value, []byte) {
	rt := v2Referenced(f, inc, "retweeted")
	if rt == nil {
		return nil, nil
	}
	name := rt.GetStringBytes("author", "username")
	if name == nil {
		name = inc.user(rt.GetStringBytes("author_id")).GetStringBytes("username")
	}
	if len(name) == 0 {
		name = []byte(RetweetedName(string(f.text.GetStringBytes())))
	}
	if len(name) == 0 {
		return nil, nil
	}
	return rt, name
}

// v2AuthorName returns the username of the author of the v2 tweet v
// (inlined as twarc2 does, or through includes.users), or nil.
func v2AuthorName(v *fastjson.Value, inc *includes) []byte {
	if v == nil {
		return nil
	}
	if name := v.GetStringBytes("author", "username"); name != nil {
		return name
	}
	return inc.user(v.GetStringBytes("author_id")).GetStringBytes("username")
}

// v2ReplyTo returns the username of the user a v2 tweet replies to: the
// user inlined (twarc2), or the replied-to tweet's author; nil when not a
// reply or not known. Not the user of in_reply_to_user_id in a page's
// includes.users: the stored document of a page's tweet keeps only the
// users of its author and of the tweets it references (buildDocument), and
// the tweet decoded from it must give what the tweet read gave.
func v2ReplyTo(f *fields, inc *includes) []byte {
	if f.replyToID == nil && f.replyToUser == nil {
		return nil
	}
	if name := f.replyToUser.GetStringBytes("username"); name != nil {
		return name
	}
	return v2AuthorName(v2Referenced(f, inc, "replied_to"), inc)
}

// v2Referenced returns the first tweet of the kind ("retweeted",
// "quoted") that a v2 tweet references, when it is at hand: inlined
// (twarc2 merges the referenced tweet into the reference) or in
// includes.tweets.
func v2Referenced(f *fields, inc *includes, kind string) *fastjson.Value {
	for _, r := range f.referenced.GetArray() {
		if string(r.GetStringBytes("type")) != kind {
			continue
		}
		if r.Get("text") != nil {
			return r
		}
		if inc != nil {
			if i := inc.find(inc.tweets, r.GetStringBytes("id")); i >= 0 {
				return inc.tweets[i].v
			}
		}
		return nil
	}
	return nil
}

// RetweetedName returns the user name in a retweet's "RT @name: ..." text
// (the text the decoder gives a retweet, Tweet.Text), or "".
func RetweetedName(text string) string {
	rest, ok := strings.CutPrefix(text, "RT @")
	if !ok {
		return ""
	}
	i := strings.IndexByte(rest, ':')
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

// v2ID returns the id of a v2 tweet: a decimal string, or (from tools that
// write it as a number) an integer written exactly.
func v2ID(v *fastjson.Value) (uint64, bool) {
	switch v.Type() {
	case fastjson.TypeString:
		return parseID(v.GetStringBytes())
	case fastjson.TypeNumber:
		n, err := v.Uint64()
		return n, err == nil && n > 0
	}
	return 0, false
}
