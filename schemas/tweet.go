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
