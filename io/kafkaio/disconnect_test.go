package kafkaio

import (
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// produceInBatches produces offsets [from, to) of partition p in requests
// of n records: each request is one record batch, and a fetch of at most
// MaxFetchBytes returns one batch, so a read needs many fetches.
func produceInBatches(t *testing.T, addr, topic string, p int, from, to, n int64) {
	t.Helper()
	for o := from; o < to; o += n {
		kafkatest.Produce(t, addr, topic, p, values(p, o, min(o+n, to)))
	}
}

// TestReadSurvivesDroppedConnections has the broker close the connection of
// several fetches; the read retries them and still returns every record
// exactly once.
func TestReadSurvivesDroppedConnections(t *testing.T) {
	const topic = "flaky"
	broker := kafkatest.NewBroker(t, map[string]int{topic: 3})
	for p := range 3 {
		produceInBatches(t, broker.Addr(), topic, p, 0, 300, 50)
	}
	dropped := broker.DropFetchConnections(4)
	key, sink := newSink(t)
	cfg := Config{Brokers: []string{broker.Addr()}, Topic: topic, Stop: "latest", MaxFetchBytes: 1}
	res, err := ptest.RunWithMetrics(readPipeline(cfg, key))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffLines(lines(sink.snapshot()), want(topic, map[int][2]int64{0: {0, 300}, 1: {0, 300}, 2: {0, 300}})); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
	if n := dropped(); n != 4 {
		t.Errorf("the broker dropped %d fetch connections, want 4", n)
	}
	if n := counter(res, CounterReconnects); n < 4 {
		t.Errorf("%s = %d, want at least 4", CounterReconnects, n)
	}
}

// TestReadSurvivesBrokerRestart restarts the broker (closing every
// connection; the data persists) while an unbounded read is half way
// through the topic, then produces more: the read reconnects and returns
// every record, old and new, exactly once, and is then drained.
func TestReadSurvivesBrokerRestart(t *testing.T) {
	const topic = "restarted"
	broker := kafkatest.NewBroker(t, map[string]int{topic: 2})
	for p := range 2 {
		produceInBatches(t, broker.Addr(), topic, p, 0, 1000, 50)
	}
	key, sink := newSink(t)
	cfg := Config{Brokers: []string{broker.Addr()}, Topic: topic, MaxFetchBytes: 1, MaxBatchRecords: 50, Drain: key}
	reached, release := sink.holdAfter(400)
	errc := make(chan error, 1)
	var res beam.PipelineResult
	t.Cleanup(func() { Drain(key) })
	go func() {
		var err error
		res, err = ptest.RunWithMetrics(readPipeline(cfg, key))
		errc <- err
	}()
	select {
	case <-reached:
	case err := <-errc:
		t.Fatalf("the read ended early: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("timed out waiting for 400 records")
	}
	if err := broker.Restart(); err != nil {
		close(release)
		t.Fatal(err)
	}
	for p := range 2 {
		produceInBatches(t, broker.Addr(), topic, p, 1000, 1200, 50)
	}
	close(release)
	sink.waitFor(t, time.Minute, "all 2400 records", func(bs []batch) bool { return countRecords(bs) >= 2400 })
	Drain(key)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	got := sink.snapshot()
	if d := diffLines(lines(got), want(topic, map[int][2]int64{0: {0, 1200}, 1: {0, 1200}})); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
	// The sink is fused with the read: holding it held the read between
	// two fetches, so the next fetch met the closed connection.
	if n := counter(res, CounterReconnects); n < 1 {
		t.Errorf("%s = %d, want at least 1", CounterReconnects, n)
	}
}

// TestReadPastDeletedRecords deletes records the read has not reached yet,
// as retention does: the read goes on from the log's new start and counts
// the offsets it skipped.
func TestReadPastDeletedRecords(t *testing.T) {
	const topic = "retained"
	broker := kafkatest.NewBroker(t, map[string]int{topic: 1})
	produceInBatches(t, broker.Addr(), topic, 0, 0, 20, 5)
	key, sink := newSink(t)
	cfg := Config{Brokers: []string{broker.Addr()}, Topic: topic, Stop: "latest", MaxFetchBytes: 1}
	reached, release := sink.holdAfter(5)
	errc := make(chan error, 1)
	var res beam.PipelineResult
	go func() {
		var err error
		res, err = ptest.RunWithMetrics(readPipeline(cfg, key))
		errc <- err
	}()
	select {
	case <-reached:
	case err := <-errc:
		t.Fatalf("the read ended early: %v", err)
	}
	err := broker.DeleteRecords(t.Context(), topic, 0, 12)
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if d := diffLines(lines(sink.snapshot()), append(want(topic, map[int][2]int64{0: {0, 5}}), want(topic, map[int][2]int64{0: {12, 20}})...)); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
	if n := counter(res, CounterOffsetsSkipped); n != 7 {
		t.Errorf("%s = %d, want 7", CounterOffsetsSkipped, n)
	}
}
