package query_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
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

// TestNewTweetsAcrossRunsAreCounted indexes two files of distinct tweets,
// two of each in one shared minute, in two runs, in both orders: the
// frequency table counts the tweets of both runs (a run's count of the
// shared minute does not overwrite the earlier run's), count questions
// agree with the raw rows, only the shared minute is recounted, and
// running the second file again changes no count. On the store and
// through gocql against the CQL test server.
func TestNewTweetsAcrossRunsAreCounted(t *testing.T) {
	t.Parallel()
	hour := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	shared := hour.Add(17 * time.Minute)
	n := 0
	line := func(at time.Time, lang string) string {
		n++
		id := uint64(at.UnixMilli()-1288834974657)<<22 | uint64(n)
		return fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"words of tweet %d","lang":%q,"user":{"name":"n","screen_name":"s%d"}}`,
			at.Format(time.RubyDate), id, n, lang, n)
	}
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// a: two tweets in the shared minute (en, ja) and one in a minute of
	// its own; b: two in the shared minute (en, en), one in a minute of
	// its own.
	a := write("a.jsonl", line(shared.Add(3*time.Second), "en"), line(shared.Add(40*time.Second), "ja"), line(hour.Add(5*time.Minute), "en"))
	b := write("b.jsonl", line(shared.Add(10*time.Second), "en"), line(shared.Add(59*time.Second), "en"), line(hour.Add(40*time.Minute), "fr"))
	want := map[string]int64{ // minute+lang -> tweets
		schemas.Minute(shared.Unix()) + "en":                   3,
		schemas.Minute(shared.Unix()) + "ja":                   1,
		schemas.Minute(hour.Add(5*time.Minute).Unix()) + "en":  1,
		schemas.Minute(hour.Add(40*time.Minute).Unix()) + "fr": 1,
	}
	ctx := context.Background()

	// check compares the frequency table with the raw rows and want, and
	// asks count questions over whole minutes (answered from the
	// frequency table); it returns the frequency table.
	check := func(t *testing.T, r sink.Reader, what string) map[string]int64 {
		t.Helper()
		freq := map[string]int64{}
		err := r.Scan(ctx, schemas.TableFrequency, nil, nil, func(key, value []byte) error {
			f, err := schemas.DecodeFrequency(key, value)
			freq[f.Minute+f.Lang] = f.Count
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		fromRaw := map[string]int64{}
		var dec schemas.Decoder
		var out schemas.Decoded
		err = r.Scan(ctx, schemas.TableRaw, nil, nil, func(_, value []byte) error {
			out.Reset()
			dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: value}, &out)
			for _, tw := range out.Tweets {
				fromRaw[schemas.Minute(tw.CreatedAt)+tw.Lang]++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(fromRaw, want) {
			t.Fatalf("%s: raw rows %v, want %v", what, fromRaw, want)
		}
		if !maps.Equal(freq, fromRaw) {
			t.Errorf("%s: frequency table %v, the raw rows count %v", what, freq, fromRaw)
		}
		e := query.NewEngine(r)
		for _, q := range []struct {
			f    query.Filter
			want int64
		}{
			{query.Filter{From: hour, To: hour.Add(time.Hour)}, 6},
			{query.Filter{From: hour, To: hour.Add(time.Hour), Lang: "en"}, 4},
			{query.Filter{From: hour, To: hour.Add(time.Hour), Lang: "ja"}, 1},
			{query.Filter{From: shared, To: shared.Add(time.Minute)}, 4},
			{query.Filter{From: shared, To: shared.Add(time.Minute), Lang: "en"}, 3},
		} {
			if got, err := e.Count(ctx, q.f); err != nil || got != q.want {
				t.Errorf("%s: count [%s, %s) lang %q: %d, %v; want %d", what,
					q.f.From.Format(time.TimeOnly), q.f.To.Format(time.TimeOnly), q.f.Lang, got, err, q.want)
			}
		}
		return freq
	}
	run := func(t *testing.T, cfg pipelines.Config, in string) job.Summary {
		t.Helper()
		cfg.Input = in
		sum, err := job.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	// recounted checks the second run's recounts: the shared minute
	// alone (the other minutes are one run's each).
	recounted := func(t *testing.T, first, second job.Summary) {
		t.Helper()
		if first.Recounted != 0 || second.Recounted != 1 {
			t.Errorf("runs recounted %d and %d minutes, want 0 (a fresh sink) and 1 (the shared minute)", first.Recounted, second.Recounted)
		}
	}

	for _, order := range [][2]string{{a, b}, {b, a}} {
		name := filepath.Base(order[0]) + " then " + filepath.Base(order[1])
		t.Run("store, "+name, func(t *testing.T) {
			cfg := pipelines.Config{Store: filepath.Join(t.TempDir(), "store")}
			first := run(t, cfg, order[0])
			second := run(t, cfg, order[1])
			recounted(t, first, second)
			open := func() *storeio.Store {
				st, err := storeio.Open(cfg.Store)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			st := open()
			before := check(t, st, "two runs")
			st.Close()
			run(t, cfg, order[1])
			st = open()
			defer st.Close()
			if after := check(t, st, "the second run again"); !maps.Equal(before, after) {
				t.Errorf("the second run again changed the counts: %v, then %v", before, after)
			}
		})
		t.Run("cassandra, "+name, func(t *testing.T) {
			c := indexCassandra(t, "tweetindex_freqruns", order[0])
			cfg := pipelines.Config{Cassandra: &c.Config}
			second := run(t, cfg, order[1])
			recounted(t, job.Summary{}, second)
			before := check(t, c.Reader, "two runs")
			run(t, cfg, order[1])
			if after := check(t, c.Reader, "the second run again"); !maps.Equal(before, after) {
				t.Errorf("the second run again changed the counts: %v, then %v", before, after)
			}
		})
	}
}
