package query_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestHitsCarryStoredTweets checks what retrievals hand over without
// decoding: each hit's JSON is its raw row's stored JSON, and Tweet
// decodes it to the tweet of that row key; the store reads the sorted
// row keys of a term search through one cursor, the same rows as a Get
// each; and the users answer, which reads screen names from the stored
// JSON without decoding it, agrees with decoding every tweet.
func TestHitsCarryStoredTweets(t *testing.T) {
	ctx := context.Background()
	r := openStore(t)
	e := query.NewEngine(r)
	f := query.Filter{From: dataStart, To: dataStart.Add(72 * time.Hour)}
	check := func(name string, run func(emit func(query.Hit) error) error) int {
		n := 0
		err := run(func(h query.Hit) error {
			n++
			value, ok, err := r.Lookup(ctx, schemas.TableRaw, h.Key[:])
			if err != nil || !ok {
				t.Fatalf("%s: raw row %x: %v, %v", name, h.Key[:], ok, err)
			}
			if !bytes.Equal(h.JSON, value) {
				t.Fatalf("%s: hit %x: JSON is not the stored row", name, h.Key[:])
			}
			tw, err := h.Tweet()
			if err != nil {
				t.Fatal(err)
			}
			if tw.RowKey != h.Key || !bytes.Equal(tw.JSON, value) {
				t.Fatalf("%s: hit %x decodes to row key %x", name, h.Key[:], tw.RowKey[:])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := check("tweets", func(emit func(query.Hit) error) error { return e.Tweets(ctx, f, query.Page{}, emit) }); n < 500 {
		t.Errorf("tweets: %d hits: pick a larger range", n)
	}
	if n := check("terms", func(emit func(query.Hit) error) error {
		return e.Terms(ctx, f, []string{"rt", "#far"}, query.Or, "text", query.Page{}, emit)
	}); n < 20 {
		t.Errorf("terms: %d hits: pick a commoner term", n)
	}

	// Users from screen names read in the JSON, and from decoded tweets.
	perUser := map[string]int64{}
	err := e.Tweets(ctx, f, query.Page{}, func(h query.Hit) error {
		tw, err := h.Tweet()
		perUser[strings.ToLower(tw.ScreenName)]++
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	top, _, err := e.TopUsers(ctx, f, len(perUser)+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != len(perUser) {
		t.Fatalf("TopUsers: %d users, decoding finds %d", len(top), len(perUser))
	}
	for _, u := range top {
		if perUser[u.ScreenName] != u.Tweets {
			t.Errorf("user %q: TopUsers %d tweets, decoding %d", u.ScreenName, u.Tweets, perUser[u.ScreenName])
		}
	}
}
