package transforms

import (
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestRetractionCoversDerivedTables checks that removing a stored tweet
// (a version replaced, a compliance delete, forget: all run RawFn and
// DeriveBatch, the cells of every DerivedTables, over a batch of Retracted
// tweets) deletes its cells of
// every table the registry says is derived from stored tweets, so that a
// new derived table left out of the retraction fails here instead of
// keeping the rows of deleted tweets.
func TestRetractionCoversDerivedTables(t *testing.T) {
	tw := decodeOne(t, `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1050118621198921728",`+
		`"text":"#ApacheFlink and #ApacheBeam, said @someone","lang":"en","user":{"id_str":"1","name":"user1","screen_name":"u1scr"},`+
		`"coordinates":{"type":"Point","coordinates":[20,10.5]}}`)
	b := TweetBatch{Retracted: []schemas.Tweet{tw}}
	deleted := map[schemas.Table]int{}
	collect := func(cells []schemas.Cell) {
		for _, c := range cells {
			if c.Delete {
				deleted[c.Table]++
			}
		}
	}
	collect(DeriveBatch(nil, &b))
	(&RawFn{}).ProcessElement(b, collect)
	for _, s := range schemas.Registry() {
		if s.Derived && deleted[s.Table] == 0 {
			t.Errorf("retracting a stored tweet deletes no cell of the %s table, which the registry says is derived from stored tweets", s.Name)
		}
	}
}

// TestUnitsPerTweet: a tweet's units of work, which a Kafka read waits for
// before it commits its offset, are one for the raw step and one for each
// derived table's step (DerivedFn): a new derived table adds one.
func TestUnitsPerTweet(t *testing.T) {
	if want := int32(1 + len(DerivedTables())); schemas.UnitsPerTweet != want {
		t.Errorf("UnitsPerTweet %d, want %d: the raw step and %d derived tables", schemas.UnitsPerTweet, want, len(DerivedTables()))
	}
}
