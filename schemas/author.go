package schemas

import "bytes"

// StoredScreenName returns the author's screen name of a stored tweet, as
// Decoder would give it (Tweet.ScreenName), without parsing the document:
// a question that counts tweets per user reads only this of each tweet.
// It answers for a v1.1 tweet object (created_at and user members, the
// user's screen_name the first of its name), and reports ok false for
// anything else, which the caller decodes instead: v2 documents, wrappers,
// keys or names spelled with escapes, JSON it cannot walk. The document is
// trusted to be a stored tweet, one the decoder accepted: one that it
// would reject (an invalid id, say) is not detected.
func StoredScreenName(b []byte) (name string, ok bool) {
	var user span
	hasUser, hasCreated, plain := false, false, true
	walked := eachMember(b, skipWS(b, 0), func(k []byte, v span) bool {
		if bytes.IndexByte(k, '\\') >= 0 {
			plain = false
			return false
		}
		switch string(k) {
		case "user":
			user, hasUser = v, true // the last, as the decoder's fields.collect
		case "created_at":
			hasCreated = true
		case "data", "statuses", "tweet", "errors", "meta", // v2, wrappers
			"limit", "warning", "disconnect", "delete", "scrub_geo", "status_withheld", "user_withheld", // control
			"action", "username", "member_count", "follower_count", "tweet_count", "host_ids", "creator_id", "participant_count": // not tweets
			plain = false
			return false
		}
		return true
	})
	if !walked || !plain || !hasUser || !hasCreated {
		return "", false
	}
	if b[user.start] != '{' {
		return "", true // not an object: no screen name
	}
	var value span
	found := false
	walked = eachMember(b, user.start, func(k []byte, v span) bool {
		if bytes.IndexByte(k, '\\') >= 0 {
			plain = false
			return false
		}
		if string(k) == "screen_name" {
			value, found = v, true
			return false // the first, as the parser's Get
		}
		return true
	})
	if !walked || !plain {
		return "", false
	}
	if !found || b[value.start] != '"' {
		return "", true // absent or not a string: no screen name
	}
	s := b[value.start+1 : value.end-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		return "", false
	}
	return string(s), true
}
