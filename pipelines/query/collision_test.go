package query_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// collidingPair returns two tweet lines of one second whose JSON has the
// same 32-bit murmur2, so the same row key, with other words ("collide"
// and a number of their own) and other points, and their ids.
func collidingPair(at time.Time) (lines [2]string, ids [2]uint64, words [2]string, lats [2]float64) {
	type cand struct {
		line string
		id   uint64
		word string
		lat  float64
	}
	seen := map[uint32]cand{}
	for i := 0; ; i++ {
		id := uint64(at.UnixMilli()-1288834974657)<<22 | uint64(i)
		word := fmt.Sprintf("n%d", i)
		lat := 10 + float64(i%1000)/10
		line := fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"collide %s","lang":"en","user":{"name":"n","screen_name":"s"},"coordinates":{"type":"Point","coordinates":[20,%g]}}`,
			at.Format(time.RubyDate), id, word, lat)
		h := schemas.Murmur2([]byte(line))
		if prev, ok := seen[h]; ok && prev.lat != lat {
			return [2]string{prev.line, line}, [2]uint64{prev.id, id}, [2]string{prev.word, word}, [2]float64{prev.lat, lat}
		}
		seen[h] = cand{line, id, word, lat}
	}
}

// TestCollisionAnswersMatchTheQuestion indexes a pair of tweets that share
// a row key (a collision), with words and points of their own: a term or
// a box that only one of them matches retrieves that one alone, one that
// both match retrieves both, once each, and pages of one tweet still give
// both. On the store and through gocql against the CQL test server.
func TestCollisionAnswersMatchTheQuestion(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	lines, ids, words, lats := collidingPair(at)
	dir := t.TempDir()
	in := filepath.Join(dir, "pair.jsonl")
	if err := os.WriteFile(in, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// check asks the questions.
	check := func(t *testing.T, r sink.Reader) {
		e := query.NewEngine(r)
		f := query.Filter{From: at.Add(-time.Minute), To: at.Add(time.Minute)}
		// Plain counts count tweets: the frequency table's whole minutes
		// and the raw rows of partial ones.
		for _, cf := range []query.Filter{f, {From: at.Truncate(time.Hour), To: at.Truncate(time.Hour).Add(time.Hour)}, {From: at, To: at.Add(time.Second)}} {
			if n, err := e.Count(ctx, cf); err != nil || n != 2 {
				t.Errorf("count [%s, %s): %d, %v; want 2 (the pair)", cf.From.Format(time.TimeOnly), cf.To.Format(time.TimeOnly), n, err)
			}
		}
		collect := func(run func(query.Page, func(query.Hit) error) error, limit int) []uint64 {
			t.Helper()
			var got []uint64
			page := query.Page{Limit: limit}
			for {
				n := 0
				err := run(page, func(h query.Hit) error {
					tw, err := h.Tweet()
					if err != nil {
						return err
					}
					got = append(got, tw.ID)
					k := h.Key
					page.After = &k
					n++
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if limit == 0 || n == 0 {
					return got
				}
			}
		}
		type question struct {
			run   func(query.Page, func(query.Hit) error) error
			count func(query.Filter) (int64, error)
		}
		terms := func(op query.Op, ws ...string) question {
			return question{
				func(p query.Page, emit func(query.Hit) error) error {
					return e.Terms(ctx, f, ws, op, "text", p, emit)
				},
				func(f query.Filter) (int64, error) { return e.CountTerms(ctx, f, ws, op, "text") },
			}
		}
		search := func(op query.Op, ts []string, phrases ...string) question {
			q := query.Search{Terms: ts, Phrases: phrases, Op: op, Field: "text"}
			return question{
				func(p query.Page, emit func(query.Hit) error) error { return e.Search(ctx, f, q, p, emit) },
				func(f query.Filter) (int64, error) { return e.CountSearch(ctx, f, q) },
			}
		}
		inBox := func(b *query.Box) question {
			return question{
				func(p query.Page, emit func(query.Hit) error) error {
					return e.Geo(ctx, f, b, p, emit)
				},
				func(f query.Filter) (int64, error) { return e.CountGeo(ctx, f, b) },
			}
		}
		box := func(lat float64) question {
			return inBox(&query.Box{MinLon: 19.9, MaxLon: 20.1, MinLat: lat - 0.01, MaxLat: lat + 0.01})
		}
		both := []uint64{min(ids[0], ids[1]), max(ids[0], ids[1])}
		world := inBox(&query.Box{MinLon: -180, MaxLon: 180, MinLat: -90, MaxLat: 90})
		for _, c := range []struct {
			name string
			q    question
			want []uint64
		}{
			{"term of the first", terms(query.And, words[0]), ids[:1]},
			{"term of the second", terms(query.And, words[1]), ids[1:]},
			{"AND of the first's terms", terms(query.And, "collide", words[0]), ids[:1]},
			{"AND of both's words", terms(query.And, words[0], words[1]), nil},
			{"OR of both's words", terms(query.Or, words[0], words[1]), both},
			{"term of both", terms(query.And, "collide"), both},
			// A phrase is checked on each tweet's own text.
			{"phrase of the first", search(query.And, nil, "collide "+words[0]), ids[:1]},
			{"phrase of the second", search(query.And, nil, "Collide, "+words[1]), ids[1:]},
			{"phrase of the second reversed", search(query.And, nil, words[1]+" collide"), nil},
			{"phrase of the first AND a term of both", search(query.And, []string{"collide"}, "collide "+words[0]), ids[:1]},
			{"OR of both's phrases", search(query.Or, nil, "collide "+words[0], "collide "+words[1]), both},
			{"OR of the first's phrase and the second's word", search(query.Or, []string{words[1]}, "collide "+words[0]), both},
			{"author of both", question{
				func(p query.Page, emit func(query.Hit) error) error {
					return e.Terms(ctx, f, []string{"s"}, query.And, "user", p, emit)
				},
				func(f query.Filter) (int64, error) { return e.CountTerms(ctx, f, []string{"s"}, query.And, "user") },
			}, both},
			{"box of the first", box(lats[0]), ids[:1]},
			{"box of the second", box(lats[1]), ids[1:]},
			{"box of both", world, both},
		} {
			for _, limit := range []int{0, 1} {
				got := collect(c.q.run, limit)
				want := c.want
				if !slices.Equal(got, want) {
					t.Errorf("%s (page size %d): tweets %v, want %v (the pair is %v)", c.name, limit, got, want, ids)
				}
			}
			// Every count equals its retrieval, with and without a
			// language (both tweets are en; none is fr).
			for _, lang := range []string{"", "en", "fr"} {
				cf := f
				cf.Lang = lang
				want := int64(len(c.want))
				if lang == "fr" {
					want = 0
				}
				if n, err := c.q.count(cf); err != nil || n != want {
					t.Errorf("count of %s (lang %q): %d, %v; want %d (the pair is %v)", c.name, lang, n, err, want, ids)
				}
			}
		}
		// The heatmap of the pair's two points: a cell for each, as the
		// scan finds them, with and without a language.
		for _, lang := range []string{"", "en", "fr"} {
			cf := f
			cf.Lang = lang
			world := &query.Box{MinLon: -180, MaxLon: 180, MinLat: -90, MaxLat: 90}
			got, err := e.Heatmap(ctx, cf, world, query.MaxHeatPrecision)
			if err != nil {
				t.Fatal(err)
			}
			want, err := query.Scanner{R: r}.Heatmap(ctx, cf, world, query.MaxHeatPrecision)
			if err != nil {
				t.Fatal(err)
			}
			if total, _ := query.HeatTotal(got); !slices.Equal(got, want) || (lang != "fr") != (total == 2 && len(got) == 2) {
				t.Errorf("heatmap of the pair (lang %q): %v, the scan's %v; want a cell of each tweet's point", lang, got, want)
			}
		}
		// The top terms of the pair's day, per field, from the per-day
		// term counts: each tweet of the pair counted, as the scan counts
		// them (the term rows of the row key are one for both).
		for _, lang := range []string{"", "en", "fr"} {
			for _, field := range schemas.TermDayFields() {
				tf := query.Filter{Lang: lang}
				got, err := e.Top(ctx, tf, query.TopQuery{Field: field})
				if err != nil {
					t.Fatal(err)
				}
				want, err := query.Scanner{R: r}.Top(ctx, tf, query.TopQuery{Field: field})
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("top %s (lang %q): %v, the scan's %v", field, lang, got, want)
				}
				if field == schemas.TermFieldText && lang != "fr" {
					if g := fmt.Sprint(got); !strings.Contains(g, "{collide 2}") || !strings.Contains(g, "{"+words[0]+" 1}") || !strings.Contains(g, "{"+words[1]+" 1}") {
						t.Errorf("top text terms of the pair: %s; want collide in 2 tweets, each one's word in 1", g)
					}
				}
			}
		}
	}

	t.Run("store", func(t *testing.T) {
		store := filepath.Join(dir, "store")
		sum, err := job.Run(ctx, pipelines.Config{Input: in, Store: store})
		if err != nil || sum.Collisions != 1 {
			t.Fatalf("run: %+v, %v; want one collision", sum, err)
		}
		st, err := storeio.Open(store)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		check(t, st)
	})
	t.Run("cassandra", func(t *testing.T) {
		cr := indexCassandra(t, "tweetindex_collision", in).Reader
		check(t, cr)
	})

	// The pair in two runs: the second run finds the collision with the
	// tweet the first stored (Identify), not among its own tweets (Dedup).
	// The second run's tweet falls in a minute the first counted: the
	// minute is recounted from the raw table, so plain counts see both.
	first, second := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl")
	if err := os.WriteFile(first, []byte(lines[0]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte(lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("store, two runs", func(t *testing.T) {
		store := filepath.Join(dir, "store2")
		for _, in := range []string{first, second} {
			if _, err := job.Run(ctx, pipelines.Config{Input: in, Store: store}); err != nil {
				t.Fatal(err)
			}
		}
		st, err := storeio.Open(store)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		check(t, st)
	})
	t.Run("cassandra, two runs", func(t *testing.T) {
		c := indexCassandra(t, "tweetindex_collision2", first)
		if _, err := job.Run(ctx, pipelines.Config{Input: second, Cassandra: &c.Config}); err != nil {
			t.Fatal(err)
		}
		check(t, c.Reader)
	})
}
