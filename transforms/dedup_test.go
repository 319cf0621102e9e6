package transforms

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/teststream"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// TestDedupStateExpiresAfterHorizon drives Parse and Dedup with a test
// stream: a tweet, the watermark moved 10 minutes past the end of its day
// (the dedup bucket), then a second copy of the tweet. Within the horizon
// the copy is a duplicate; with a horizon of one minute the day's ids were
// cleared when the watermark passed day end + horizon, so the copy is let
// through (the state that bounds memory on an endless stream is really
// dropped, and the process's copy of it too).
func TestDedupStateExpiresAfterHorizon(t *testing.T) {
	m := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tweet := []byte(fmt.Sprintf(`{"created_at":%q,"id_str":"42","text":"hello","lang":"en","user":{"name":"n","screen_name":"s"}}`,
		m.Add(5*time.Second).Format(time.RubyDate)))
	records := func(line int64) []schemas.Record {
		return []schemas.Record{{Origin: schemas.Origin{Source: "stream", Line: line}, Data: tweet}}
	}
	ms := func(t time.Time) int64 { return t.UnixMilli() }

	tests := []struct {
		horizon             time.Duration
		indexed, duplicates int64
	}{
		{24 * time.Hour, 1, 1},
		{time.Minute, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.horizon.String(), func(t *testing.T) {
			ts := teststream.NewConfig()
			if err := ts.AddElements(ms(m.Add(5*time.Second)), records(1)); err != nil {
				t.Fatal(err)
			}
			dayEnd := m.Truncate(DedupBucket).Add(DedupBucket)
			if err := ts.AdvanceWatermark(ms(dayEnd.Add(10 * time.Minute))); err != nil {
				t.Fatal(err)
			}
			if err := ts.AddElements(ms(dayEnd.Add(10*time.Minute)), records(2)); err != nil {
				t.Fatal(err)
			}
			if err := ts.AdvanceWatermarkToInfinity(); err != nil {
				t.Fatal(err)
			}
			p, s := beam.NewPipelineWithRoot()
			keyed, _ := beam.ParDo2(s, &ParseFn{}, teststream.Create(s, ts))
			Dedup(s, keyed, tc.horizon)

			res, err := ptest.RunWithMetrics(p)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, c := range res.Metrics().AllMetrics().Counters() {
				if c.Key.Namespace == flow.Namespace {
					got[c.Key.Name] += c.Committed
				}
			}
			if got[flow.CounterIndexed] != tc.indexed || got[flow.CounterDuplicates] != tc.duplicates {
				t.Errorf("horizon %s: indexed %d, duplicates %d; want %d, %d",
					tc.horizon, got[flow.CounterIndexed], got[flow.CounterDuplicates], tc.indexed, tc.duplicates)
			}
		})
	}
}

// collidingTweets returns two tweet lines with different ids created in the
// same second whose row keys are equal (the same 32-bit murmur2 of their
// bytes): a birthday search over the text, about 80,000 hashes.
func collidingTweets(t *testing.T, at time.Time) (a, b []byte) {
	t.Helper()
	line := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"collide %d","lang":"en","user":{"name":"n","screen_name":"s"}}`,
			at.Format(time.RubyDate), 1000+i, i))
	}
	seen := map[uint32]int{}
	for i := 0; i < 1<<20; i++ {
		h := schemas.Murmur2(line(i))
		if j, ok := seen[h]; ok {
			return line(j), line(i)
		}
		seen[h] = i
	}
	t.Fatal("no colliding pair in 2^20 tries")
	return nil, nil
}

// TestDedupCountsRowKeyCollisions indexes two different tweets that share
// their row key, each read twice: both are indexed (their ids differ), the
// copies are duplicates, and the pair is counted as one collision.
func TestDedupCountsRowKeyCollisions(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 7, 0, time.UTC)
	a, b := collidingTweets(t, at)
	var recs []schemas.Record
	for i, data := range [][]byte{a, b, b, a} {
		recs = append(recs, schemas.Record{Origin: schemas.Origin{Source: "f", Line: int64(i + 1)}, Data: data})
	}
	p, s := beam.NewPipelineWithRoot()
	// Two record batches, so that the copies meet across batches as well.
	keyed, _ := beam.ParDo2(s, &ParseFn{}, beam.Create(s, recs[:2], recs[2:]))
	Dedup(s, keyed, 0)
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Key.Namespace == flow.Namespace {
			got[c.Key.Name] += c.Committed
		}
	}
	if got[flow.CounterIndexed] != 2 || got[flow.CounterDuplicates] != 2 || got[flow.CounterCollisions] != 1 {
		t.Errorf("indexed %d, duplicates %d, collisions %d; want 2, 2, 1", got[flow.CounterIndexed], got[flow.CounterDuplicates], got[flow.CounterCollisions])
	}
}
