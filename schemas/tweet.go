package schemas

// Tweet is a tweet normalized from any accepted input format (API v1.1,
// API v2, twarc2, a personal archive). Only the fields the indexes need are
// kept; JSON holds the stored bytes the raw table keeps and the row key hashes.
type Tweet struct {
	// ID is the tweet id, from id_str (v1.1) or id (v2), never the
	// float-mangled numeric id of v1.1.
	ID uint64
	// CreatedAt is the event time: seconds since 1970-01-01 UTC.
	CreatedAt int64
	// Lang is the language tag as the API gave it ("en", "und", "in", ...),
	// trimmed of spaces; "und" when absent or not a plausible tag (longer
	// than MaxLangLen bytes, or not ASCII letters, digits, '-' and '_').
	Lang string
	// Text is the full text: extended_tweet.full_text, full_text or text,
	// and for a retweet the retweeted tweet's full text behind "RT @user: ".
	Text string
	// UserName and ScreenName are the author's display name and handle.
	UserName   string
	ScreenName string
	// HasPoint says whether Lat and Lon hold a point: exact coordinates, or
	// the centre of the place's bounding box.
	HasPoint bool
	Lat, Lon float64
	// PlaceCentre says that the point is the centre of the place's
	// bounding box, not exact coordinates.
	PlaceCentre bool
	// Entities are the hashtags, mentions, cashtags and links that
	// Twitter's entities of the tweet name (see Entities), nil when the
	// tweet carries none: the term index then finds them in Text.
	Entities *Entities
	// QuotedAuthor is the screen name of the quoted tweet's author, when
	// the tweet quotes one and names its author (v1.1
	// quoted_status.user.screen_name; v2 the author of the "quoted"
	// referenced tweet, inlined or in includes).
	QuotedAuthor string
	// ReplyTo is the screen name of the user the tweet replies to (v1.1
	// in_reply_to_screen_name; v2 the user of in_reply_to_user_id in
	// includes, or the replied-to tweet's author).
	ReplyTo string
	// JSON is the stored tweet JSON: for a line or an array element, its
	// bytes as read; for a tweet out of a v2 page, a single-tweet v2 document
	// {"data": ..., "includes": ...} built deterministically from the page,
	// holding only the includes the tweet references.
	JSON []byte
	// Origin is where the tweet was read.
	Origin Origin
	// RowKey is the tweet's row key, filled in by the parse stage once
	// (see Key) so that later stages do not hash the JSON again.
	RowKey RowKey
}

// Key computes the tweet's 12-byte row key from CreatedAt and JSON.
func (t *Tweet) Key() RowKey { return NewRowKey(t.CreatedAt, t.JSON) }

// Entities are what Twitter's entities say a tweet's text holds, as they
// give it (no '#', '@' or '$', case kept): those of the text the tweet is
// indexed with (v1.1 extended_tweet.entities, else entities; v2
// note_tweet.entities, else entities), which for a retweet are the
// retweeted tweet's. A quoted tweet's are not the quote's, as its text is
// not.
type Entities struct {
	// Hashtags are the tags of the hashtags (v1.1 hashtags[].text, v2
	// hashtags[].tag).
	Hashtags []string
	// Mentions are the screen names mentioned (v1.1
	// user_mentions[].screen_name, v2 mentions[].username), and for a
	// retweet the retweeted author's, which its "RT @name:" names.
	Mentions []string
	// Cashtags are the symbols of the cashtags (v1.1 symbols[].text, v2
	// cashtags[].tag).
	Cashtags []string
	// URLs are the expanded URLs of the links (urls[].expanded_url).
	URLs []string
}
