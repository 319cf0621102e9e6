package kafkaio

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// lineWriter collects what is written to it and signals each write.
type lineWriter struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor waits until what has been written contains s.
func (w *lineWriter) waitFor(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for !strings.Contains(w.String(), s) {
		select {
		case <-w.wrote:
		case <-deadline:
			t.Fatalf("no %q on stderr after %v; it has:\n%s", s, timeout, w.String())
		}
	}
}

// TestBrokerDownIsReportedAndDrainIsBounded stops the broker under a
// stream that commits to a group: the read says on stderr, every so often,
// that it waits for the broker, for how long and why; a drain then ends
// the run without waiting for the broker, in bounded time, saying that the
// offsets were not committed.
func TestBrokerDownIsReportedAndDrainIsBounded(t *testing.T) {
	out := &lineWriter{wrote: make(chan struct{}, 1)}
	oldOut, oldEvery, oldCommit := waitOutput, waitReportEvery, drainCommitTimeout
	waitOutput, waitReportEvery, drainCommitTimeout = out, 200*time.Millisecond, 500*time.Millisecond
	t.Cleanup(func() { waitOutput, waitReportEvery, drainCommitTimeout = oldOut, oldEvery, oldCommit })

	const topic = "down"
	broker := kafkatest.NewBroker(t, map[string]int{topic: 1})
	produceInBatches(t, broker.Addr(), topic, 0, 0, 100, 50)
	key, sink := newSink(t)
	cfg := Config{Brokers: []string{broker.Addr()}, Topic: topic, Group: "g", Commit: true, Drain: key}
	t.Cleanup(func() { Drain(key) })
	errc := make(chan error, 1)
	go func() {
		_, err := ptest.RunWithMetrics(readPipeline(cfg, key))
		errc <- err
	}()
	sink.waitFor(t, time.Minute, "100 records", func(bs []batch) bool { return countRecords(bs) >= 100 })
	broker.Close()

	out.waitFor(t, "kafkaio: waiting", 20*time.Second)
	first := out.String()
	if !strings.Contains(first, "for the Kafka broker "+broker.Addr()) || !strings.Contains(first, "giving up after") {
		t.Errorf("the waiting line does not say which broker, or when it gives up:\n%s", first)
	}
	// Periodically: a second line, with a longer wait.
	for strings.Count(out.String(), "kafkaio: waiting") < 2 {
		select {
		case <-out.wrote:
		case err := <-errc:
			t.Fatalf("the run ended before the drain: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatalf("one waiting line in 20 s:\n%s", out.String())
		}
	}

	start := time.Now()
	Drain(key)
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("the drained run failed: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the drain waited 30 s for a broker that is down; stderr:\n%s", out.String())
	}
	t.Logf("drained in %v with the broker down; stderr:\n%s", time.Since(start), out.String())
	if !strings.Contains(out.String(), "not committed to group g within the drain's") {
		t.Errorf("the drain does not say the offsets were not committed:\n%s", out.String())
	}
}
