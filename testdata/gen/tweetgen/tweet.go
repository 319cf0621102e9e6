package tweetgen

import (
	"time"
)

// Geo kinds: how a tweet is located.
const (
	geoNone       = iota
	geoPoint      // coordinates + geo + place, as a GPS-tagged v1.1 tweet
	geoOnlyGeo    // only the deprecated geo [lat, lon]
	geoPlace      // only a place: the point is its bounding box centre
	geoImpossible // coordinates with latitude 123 (and geo [123, lon])
)

// tweet is the generator's model of one tweet: what it writes in any
// format, and what the oracle expects a reader to make of it.
type tweet struct {
	id   uint64
	ms   int64 // created at, Unix milliseconds
	lang string
	// text is the tweet's own full text (before any truncation), ents its
	// entities and bounds the rune offsets where cutting is safe.
	text   string
	ents   []entity
	bounds []int
	user   *user
	source int

	replyTo *tweet // in_reply_to: a tweet not otherwise written
	rt      *tweet // the retweeted tweet, for a retweet
	quote   *tweet // the quoted tweet, for a quote tweet

	geo      int
	lat, lon float64
	place    *place

	retweets, favorites, replies, quotes int

	// archive marks a tweet of a personal archive's tweets.js: no user
	// object, and a retweet is only its "RT @name: ..." text, truncated.
	archive bool
	noUser  bool
}

// created returns the tweet's creation time (UTC).
func (t *tweet) created() time.Time { return timeOfMS(t.ms) }

// indexText returns the text the oracle expects to be indexed: the full
// text, and for a retweet "RT @" + the retweeted author's screen name +
// ": " + the retweeted tweet's full text.
func (t *tweet) indexText() string {
	if t.rt != nil && t.archive {
		text, _ := rtText(t)
		return text
	}
	if t.rt != nil {
		return "RT @" + t.rt.user.screen + ": " + t.rt.text
	}
	return t.text
}

// point reports whether the oracle expects a geo row for the tweet, and
// where (latitude, longitude).
func (t *tweet) point() (lat, lon float64, ok bool) {
	switch t.geo {
	case geoPoint, geoOnlyGeo:
		return t.lat, t.lon, true
	case geoPlace:
		lat, lon := t.place.centre()
		return lat, lon, true
	}
	return 0, 0, false
}

// long reports whether the text needs truncation in v1.1 (over 140 runes).
func (t *tweet) long() bool { return runeLen(t.text) > 140 }

// visibleCut returns the number of runes of the text a truncated v1.1
// tweet shows: the last piece boundary at or before max.
func (t *tweet) visibleCut(max int) int {
	cut := 0
	for _, b := range t.bounds {
		if b > max {
			break
		}
		cut = b
	}
	return cut
}
