package schemas

import "github.com/valyala/fastjson"

// fields holds the top-level members of an object that tell what it is and
// that normalization reads, collected in one pass over its members.
type fields struct {
	control     bool     // a stream control message
	controlKind SkipKind // SkipControl or SkipCompliance
	// nonTweet is the kind of record the members say this is if it has no
	// text: SkipControl (the zero value) when they say nothing.
	nonTweet SkipKind

	// Both API versions.
	createdAt, text, lang, geo, id, entities *fastjson.Value

	// v1.1.
	idStr, fullText, extended, retweeted, quoted, replyToName, user, coordinates, place *fastjson.Value

	// v2 and twarc2.
	data, includes, errors, meta, authorID, author, noteTweet, referenced, replyToID, replyToUser *fastjson.Value
	v2Only                                                                                        bool // edit_history_tweet_ids, __twarc, ...

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
		case "quoted_status":
			f.quoted = v
		case "in_reply_to_screen_name":
			f.replyToName = v
		case "in_reply_to_user_id":
			f.replyToID = v
		case "in_reply_to_user": // twarc2's flattened tweet inlines the user
			f.replyToUser = v
		case "entities":
			f.entities = v
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
		case "limit", "warning", "disconnect":
			f.control = true
		case "delete", "scrub_geo", "status_withheld", "user_withheld":
			f.control, f.controlKind = true, SkipCompliance
		case "action":
			f.nonTweet = SkipCompliance // a v2 compliance event: {"id", "action": "delete", ...}
		case "username":
			f.nonTweet = SkipUser
		case "member_count", "follower_count":
			f.nonTweet = SkipList
		case "tweet_count":
			f.nonTweet = SkipTweetCount
		case "host_ids", "creator_id", "participant_count":
			f.nonTweet = SkipSpace
		}
	})
}

// notATweet reports whether the members say the object is a record that
// is not a tweet (a v2 user, list, tweet count, Space or compliance
// event), and which kind. Tweets always have a text.
func (f *fields) notATweet() (SkipKind, bool) {
	if f.nonTweet == SkipControl || f.text != nil || f.fullText != nil || f.extended != nil {
		return 0, false
	}
	return f.nonTweet, true
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

// SkipKind says why an item that was read is skipped rather than indexed.
type SkipKind uint8

// The kinds of items skipped.
const (
	// SkipControl: stream control messages (limit, warning, disconnect),
	// keep-alives, error-only documents and empty pages.
	SkipControl SkipKind = iota
	// SkipCompliance: compliance messages: v1.1 delete, scrub_geo,
	// status_withheld and user_withheld, and v2 compliance events
	// ({"id", "action", ...}).
	SkipCompliance
	// SkipUser: v2 user objects (they have a username and no text).
	SkipUser
	// SkipList: v2 list objects (member_count, follower_count).
	SkipList
	// SkipTweetCount: v2 tweet counts (tweet_count, start, end).
	SkipTweetCount
	// SkipSpace: v2 Spaces (host_ids, creator_id, participant_count).
	SkipSpace
	// SkipDeleted: tweets that a compliance message deleted (in this run
	// or, through the identity table's tombstone, in an earlier one). The
	// decoder never skips this kind; deduplication does.
	SkipDeleted
	// NumSkipKinds is the number of kinds.
	NumSkipKinds
)

var skipKindNames = [NumSkipKinds]string{"control", "compliance", "user", "list", "tweet_count", "space", "deleted"}

// Name returns the kind's name, as the summary and the counters use it.
func (k SkipKind) Name() string { return skipKindNames[k] }
