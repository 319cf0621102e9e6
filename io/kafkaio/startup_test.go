package kafkaio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// captureWaits sends the lines about waits for a broker to the returned
// writer, every every, for the rest of the test.
func captureWaits(t *testing.T, every time.Duration) *lineWriter {
	out := &lineWriter{wrote: make(chan struct{}, 1)}
	oldOut, oldEvery := waitOutput, waitReportEvery
	waitOutput, waitReportEvery = out, every
	t.Cleanup(func() { waitOutput, waitReportEvery = oldOut, oldEvery })
	return out
}

// waitForLines waits until the writer holds n lines containing s, failing
// the test if errc (the run or call that should still be waiting) ends
// first.
func (w *lineWriter) waitForLines(t *testing.T, s string, n int, errc <-chan error, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for strings.Count(w.String(), s) < n {
		select {
		case <-w.wrote:
		case err := <-errc:
			t.Fatalf("ended while its broker was down (%d lines %q): %v\nstderr:\n%s", strings.Count(w.String(), s), s, err, w.String())
		case <-deadline:
			t.Fatalf("%d lines %q in %v, want %d; stderr:\n%s", strings.Count(w.String(), s), s, timeout, n, w.String())
		}
	}
}

// downBroker returns a broker holding topic (partitions partitions, with
// records 0 to n of each), stopped: its address refuses connections until
// Restart.
func downBroker(t *testing.T, topic string, partitions int, n int64) *kafkatest.Broker {
	broker := kafkatest.NewBroker(t, map[string]int{topic: partitions})
	for p := range partitions {
		kafkatest.Produce(t, broker.Addr(), topic, p, values(p, 0, n))
	}
	broker.Close()
	return broker
}

// TestReadWaitsForBrokerAtStartup starts a read before its broker, as
// docker-compose or Kubernetes may: listing the partitions waits for the
// broker as long as any broker call does (Config.RetryTimeout), saying so
// on stderr, past the 5 s it used to give up after, and the read then
// reads everything once the broker is up.
func TestReadWaitsForBrokerAtStartup(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) starts a read before its broker and waits past the old 5-s limit for it (about 9 s)")
	}
	out := captureWaits(t, time.Second)
	const topic = "late"
	broker := downBroker(t, topic, 2, 50)
	key, sink := newSink(t)
	cfg := Config{Brokers: []string{broker.Addr()}, Topic: topic, Stop: "latest"}
	errc := make(chan error, 1)
	go func() { errc <- ptest.Run(readPipeline(cfg, key)) }()

	// A line a second while the listing waits: six of them, and it still
	// waits after 6 s.
	const listing = ": listing partitions (last error: "
	out.waitForLines(t, listing, 6, errc, time.Minute)
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(first, "kafkaio: waiting ") || !strings.Contains(first, "for the Kafka broker "+broker.Addr()+listing) ||
		!strings.Contains(first, "giving up after "+DefaultRetryTimeout.String()) {
		t.Errorf("the waiting line does not say what it waits for, on which broker, or when it gives up:\n%s", first)
	}

	if err := broker.Restart(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("the read failed once its broker was up: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the read did not end within a minute of its broker coming up; stderr:\n%s", out.String())
	}
	if d := diffLines(lines(sink.snapshot()), want(topic, map[int][2]int64{0: {0, 50}, 1: {0, 50}})); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
}

// TestStartupWaitStops stops the listing of partitions while it waits for a
// broker that is down: a cancelled context ends it at once with the
// context's error, and a drain ends it at once with nothing to read, as a
// drained stream does, saying so.
func TestStartupWaitStops(t *testing.T) {
	broker := downBroker(t, "down", 1, 0)
	// start calls the listing with ctx and the drain signal drain, and
	// waits until it has waited for the broker for a second or more, with
	// its backoff between attempts grown.
	start := func(t *testing.T, ctx context.Context, drain string) (*lineWriter, <-chan error, *int) {
		out := captureWaits(t, 250*time.Millisecond)
		fn := &listPartitionsFn{Config: Config{Brokers: []string{broker.Addr()}, Topic: "down", Drain: drain}}
		errc := make(chan error, 1)
		emitted := new(int)
		go func() { errc <- fn.ProcessElement(ctx, nil, func(partitionRead) { *emitted++ }) }()
		out.waitForLines(t, "listing partitions", 5, errc, 30*time.Second)
		return out, errc, emitted
	}
	// stopped waits for the listing to end after it was told to stop.
	stopped := func(t *testing.T, errc <-chan error, out *lineWriter) error {
		t.Helper()
		stop := time.Now()
		select {
		case err := <-errc:
			if d := time.Since(stop); d > time.Second {
				t.Errorf("the listing ended %v after it was told to stop, want at once", d)
			}
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("the listing still waits for the broker 10 s after it was told to stop; stderr:\n%s", out.String())
		}
		return nil
	}

	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, errc, emitted := start(t, ctx, "")
		cancel()
		err := stopped(t, errc, out)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled while waiting: err = %v, want context.Canceled", err)
		}
		if *emitted != 0 {
			t.Errorf("emitted %d partitions", *emitted)
		}
	})
	t.Run("drain", func(t *testing.T) {
		key := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
		t.Cleanup(func() { Drain(key) })
		out, errc, emitted := start(t, context.Background(), key)
		Drain(key)
		if err := stopped(t, errc, out); err != nil {
			t.Errorf("drained while waiting: err = %v, want nil (a drained read that read nothing)", err)
		}
		if *emitted != 0 {
			t.Errorf("emitted %d partitions", *emitted)
		}
		if want := "kafkaio: kafka:down: drained while waiting "; !strings.Contains(out.String(), want) {
			t.Errorf("no %q line; stderr:\n%s", want, out.String())
		}
	})
}

// TestMissingTopicFailsBeforeRetryTimeout: brokers that answer that the
// topic does not exist are not waited for as long as brokers that cannot
// be reached, but for missingTopicWait.
func TestMissingTopicFailsBeforeRetryTimeout(t *testing.T) {
	old := missingTopicWait
	missingTopicWait = 200 * time.Millisecond
	t.Cleanup(func() { missingTopicWait = old })
	addr := kafkatest.StartBroker(t, map[string]int{"present": 1})
	fn := &listPartitionsFn{Config: Config{Brokers: []string{addr}, Topic: "absent"}}
	errc := make(chan error, 1)
	go func() { errc <- fn.ProcessElement(context.Background(), nil, func(partitionRead) {}) }()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), `topic "absent" does not exist`) {
			t.Errorf("listing a topic that does not exist: err = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("listing a topic that does not exist still waits after 30 s")
	}
}
