package job

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
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
