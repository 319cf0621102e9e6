package transforms

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/teststream"

	"github.com/tweetindex/tweetindex/schemas"
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
				if c.Key.Namespace == Namespace {
					got[c.Key.Name] += c.Committed
				}
			}
			if got[CounterIndexed] != tc.indexed || got[CounterDuplicates] != tc.duplicates {
				t.Errorf("horizon %s: indexed %d, duplicates %d; want %d, %d",
					tc.horizon, got[CounterIndexed], got[CounterDuplicates], tc.indexed, tc.duplicates)
			}
		})
	}
}
