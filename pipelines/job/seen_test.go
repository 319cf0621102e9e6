package job

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// TestStreamRecordsWhatItRead: a stream's record, while it runs, says the
// minutes it has read before the latest (and coverage counts them as
// covered); once drained, every minute it read.
func TestStreamRecordsWhatItRead(t *testing.T) {
	defer func(every time.Duration) { streamSeenEvery = every }(streamSeenEvery)
	streamSeenEvery = 100 * time.Millisecond
	const topic = "seen"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 1})
	store := filepath.Join(tempDir(t), "store")
	st, err := storeio.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// An hour ahead: the minutes stay open while the test runs.
	m := time.Now().Add(time.Hour).Truncate(time.Minute)
	kafkatest.Produce(t, addr, topic, 0, [][]byte{streamTweet(1, m.Add(time.Second), "en"), streamTweet(2, m.Add(61*time.Second), "en"), streamTweet(3, m.Add(121*time.Second), "en")})
	cfg := kafkaio.Config{Brokers: []string{addr}, Topic: topic, Drain: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())}
	errc := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), pipelines.Config{Kafka: &cfg, Store: store})
		errc <- err
	}()
	defer kafkaio.Drain(cfg.Drain)

	at := func(d time.Duration) string { return m.Add(d).UTC().Format(time.RFC3339) }
	want := fmt.Sprintf("[%s %s)", at(0), at(2*time.Minute))
	var got string
	for deadline := time.Now().Add(30 * time.Second); ; {
		runs, err := ReadRunRecords(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 && runs[0].Status == RunRunning && runs[0].Seen != nil {
			got = seenText(runs[0].Seen)
			if got == want {
				spans := CoverageOf(runs, m, m.Add(3*time.Minute), 0)
				if len(spans) != 2 || spans[0].Status != Covered || !spans[0].To.Equal(m.Add(2*time.Minute)) || spans[1].Status != Missing {
					t.Errorf("coverage of the running stream: %+v, want covered to the latest minute, missing after", spans)
				}
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running stream's record: %+v, want seen %s", runs, want)
		}
		select {
		case err := <-errc:
			t.Fatalf("the run ended (%v) before its record said what it read", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	kafkaio.Drain(cfg.Drain)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	runs, err := ReadRunRecords(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("[%s %s)", at(0), at(3*time.Minute))
	if len(runs) != 1 || runs[0].Status != RunSucceeded || runs[0].Seen == nil || seenText(runs[0].Seen) != want {
		t.Errorf("the drained stream's record: %+v, want succeeded, seen %s", runs, want)
	}
}

func seenText(s *Seen) string {
	out := ""
	for _, sp := range s.Spans {
		out += "[" + sp.From + " " + sp.To + ")"
	}
	return out
}

// metricsResult is a pipeline result that reports distributions.
type metricsResult struct{ r *metrics.Results }

func (m metricsResult) Metrics() metrics.Results { return *m.r }
func (metricsResult) JobID() string              { return "test" }

// TestSeenFromMetrics: a run whose counts are not this process's alone
// (workers elsewhere, or another run overlapping) records one range, from
// the earliest to the latest tweet of the runner's distribution, across
// the steps that report it; no distribution is a run that read nothing,
// or, when the run read items, a runner that does not report it.
func TestSeenFromMetrics(t *testing.T) {
	at := func(s string) int64 {
		tm, _ := time.Parse(time.RFC3339, s)
		return tm.Unix()
	}
	dist := func(step string, lo, hi int64) metrics.DistributionResult {
		return metrics.DistributionResult{Key: metrics.StepKey{Step: step, Namespace: flow.Namespace, Name: flow.DistributionCreatedAt},
			Attempted: metrics.DistributionValue{Count: 2, Sum: lo + hi, Min: lo, Max: hi}}
	}
	remote := runCounts{} // not alone: not this process's counts
	r := metricsResult{metrics.NewResults(nil, []metrics.DistributionResult{
		dist("parse1", at("2026-11-04T10:00:30Z"), at("2026-11-04T11:59:59Z")),
		dist("parse2", at("2026-11-01T00:00:00Z"), at("2026-11-01T00:10:00Z")),
	}, nil, nil, nil)}
	if got, want := seenText(runSeen(r, remote, false)), "[2026-11-01T00:00:00Z 2026-11-04T12:00:00Z)"; got != want {
		t.Errorf("seen from metrics: %s, want %s", got, want)
	}
	none := metricsResult{metrics.NewResults(nil, nil, nil, nil, nil)}
	if s := runSeen(none, remote, false); s == nil || len(s.Spans) != 0 {
		t.Errorf("seen of a run whose runner reported no tweet: %+v, want no span", s)
	}
	read := metricsResult{metrics.NewResults([]metrics.CounterResult{{Attempted: 5, Key: metrics.StepKey{Step: "parse", Namespace: flow.Namespace, Name: flow.CounterRead}}}, nil, nil, nil, nil)}
	if s := runSeen(read, remote, false); s != nil {
		t.Errorf("seen of a run that read items and whose runner reported no distribution: %+v, want nil (not known)", s)
	}
	if s := runSeen(nil, remote, false); s != nil {
		t.Errorf("seen without a result (a run stopped before the runner said): %+v, want nil", s)
	}
}
