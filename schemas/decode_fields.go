package schemas

import "github.com/valyala/fastjson"

// fields holds the top-level members of an object that tell what it is and
// that normalization reads, collected in one pass over its members.
type fields struct {
	control bool // a stream control message

	// Both API versions.
	createdAt, text, lang, geo, id *fastjson.Value

	// v1.1.
	idStr, fullText, extended, retweeted, user, coordinates, place *fastjson.Value

	// v2 and twarc2.
	data, includes, errors, meta, authorID, author, noteTweet, referenced *fastjson.Value
	v2Only                                                                bool // edit_history_tweet_ids, __twarc, ...

	// Wrappers.
	statuses, tweet *fastjson.Value
}

// collect records the members of the object v.
func (f *fields) collect(v *fastjson.Value) {
	o, _ := v.Object()
	o.Visit(func(key []byte, v *fastjson.Value) {
		switch string(key) {
		case "created_at":
			f.createdAt = v
		case "id":
			f.id = v
		case "text":
			f.text = v
		case "lang":
			f.lang = v
		case "geo":
			f.geo = v
		case "id_str":
			f.idStr = v
		case "full_text":
			f.fullText = v
		case "extended_tweet":
			f.extended = v
		case "retweeted_status":
			f.retweeted = v
		case "user":
			f.user = v
		case "coordinates":
			f.coordinates = v
		case "place":
			f.place = v
		case "data":
			f.data = v
		case "includes":
			f.includes = v
		case "errors":
			f.errors = v
		case "meta":
			f.meta = v
		case "author_id":
			f.authorID = v
		case "author":
			f.author = v
		case "note_tweet":
			f.noteTweet = v
		case "referenced_tweets":
			f.referenced = v
		case "edit_history_tweet_ids", "__twarc", "conversation_id", "public_metrics":
			f.v2Only = true
		case "statuses":
			f.statuses = v
		case "tweet":
			f.tweet = v
		case "delete", "limit", "scrub_geo", "status_withheld", "user_withheld", "warning", "disconnect":
			f.control = true
		}
	})
}

// isV1 reports whether the object looks like a v1.1 tweet.
func (f *fields) isV1() bool {
	if f.idStr != nil || f.user != nil || f.fullText != nil || f.extended != nil || f.retweeted != nil {
		return true
	}
	if f.v2Only || f.authorID != nil || f.author != nil || f.noteTweet != nil || f.referenced != nil {
		return false
	}
	// A v1.1 created_at starts with a day name, a v2 one with a digit.
	if b := f.createdAt.GetStringBytes(); len(b) > 0 && !isDigit(b[0]) {
		return true
	}
	return false
}

// isV2 reports whether the object looks like a v2 tweet (checked after isV1).
func (f *fields) isV2() bool {
	return f.v2Only || f.authorID != nil || f.author != nil || f.noteTweet != nil || f.referenced != nil ||
		f.id != nil || f.createdAt != nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
