package kafkaio

import (
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/transforms/flow"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// TestReadOffsetRanges reads a three-partition topic between start and stop
// positions given as offsets (and the log's ends) on prism, and checks the
// exact records, their origins and the batching, and that ReadProgress
// ends with every offset of the ranges read.
func TestReadOffsetRanges(t *testing.T) {
	const topic = "tweets"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 3})
	sizes := map[int]int64{0: 20, 1: 7, 2: 0} // partition 2 stays empty
	for p, n := range sizes {
		kafkatest.Produce(t, addr, topic, p, values(p, 0, n))
	}

	tests := []struct {
		name        string
		start, stop string
		batch       int
		want        map[int][2]int64
	}{
		{"offset range", "offset:5", "offset:15", 0, map[int][2]int64{0: {5, 15}, 1: {5, 7}}},
		{"earliest to latest", "earliest", "latest", 0, map[int][2]int64{0: {0, 20}, 1: {0, 7}}},
		{"small batches", "offset:2", "latest", 3, map[int][2]int64{0: {2, 20}, 1: {2, 7}}},
		{"start past the end", "offset:100", "latest", 0, nil},
		{"latest to latest", "latest", "latest", 0, nil},
		{"empty range", "offset:3", "offset:3", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, sink := newSink(t)
			cfg := Config{Brokers: []string{addr}, Topic: topic, Start: tc.start, Stop: tc.stop, MaxBatchRecords: tc.batch}
			since := time.Now()
			if _, _, ok := ReadProgress(topic, since); ok {
				t.Error("ReadProgress before the read resolved its partitions: ok")
			}
			res, err := ptest.RunWithMetrics(readPipeline(cfg, key))
			if err != nil {
				t.Fatal(err)
			}
			var offsets int64
			for _, r := range tc.want {
				offsets += r[1] - r[0]
			}
			if read, total, ok := ReadProgress(topic, since); !ok || read != offsets || total != offsets {
				t.Errorf("ReadProgress after the read: %d of %d offsets, %v; want %d of %d, true", read, total, ok, offsets, offsets)
			}
			got := sink.snapshot()
			if d := diffLines(lines(got), want(topic, tc.want)); d != "" {
				t.Errorf("records differ:\n%s", d)
			}
			n := int64(countRecords(got))
			if c := counter(res, CounterRecordsRead); c != n {
				t.Errorf("%s = %d, want %d", CounterRecordsRead, c, n)
			}
			maxBatch := tc.batch
			if maxBatch == 0 {
				maxBatch = DefaultMaxBatchRecords
			}
			for _, b := range got {
				if len(b.recs) == 0 || len(b.recs) > maxBatch {
					t.Errorf("batch of %d records, want 1 to %d", len(b.recs), maxBatch)
					continue
				}
				// A batch is a run of consecutive offsets of one partition.
				for i, r := range b.recs[1:] {
					if r.Origin.Source != b.recs[0].Origin.Source || r.Origin.Line != b.recs[i].Origin.Line+1 {
						t.Errorf("batch is not consecutive offsets of one partition: %v then %v", b.recs[i].Origin, r.Origin)
					}
				}
			}
			if tc.batch > 0 {
				// 18 and 5 records in batches of 3: 6 + 2 batches.
				if len(got) != 8 {
					t.Errorf("%d batches, want 8", len(got))
				}
			}
		})
	}
}

// TestPacedReadPausesWhileBacklogged reads a bounded range paced (as a
// run with its workers in process does: Config.Paced) in small steps,
// starting while the run's backlog is full: the read pauses, and once the
// backlog drains it reads every record once, in batches of consecutive
// offsets across its checkpoints.
func TestPacedReadPausesWhileBacklogged(t *testing.T) {
	const topic = "paced"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 2})
	kafkatest.Produce(t, addr, topic, 0, values(0, 0, 300))
	kafkatest.Produce(t, addr, topic, 1, values(1, 0, 120))

	flow.EnableLocalFlowControl()
	full := flow.MaxBacklog + 1
	flow.AddBacklog(full)
	released := false
	release := func() {
		if !released {
			released = true
			flow.AddBacklog(-full)
		}
	}
	defer release()
	paused := make(chan struct{}, 1)
	onPause = func() {
		select {
		case paused <- struct{}{}:
		default:
		}
	}
	defer func() { onPause = nil }()

	key, sink := newSink(t)
	cfg := Config{Brokers: []string{addr}, Topic: topic, Stop: "latest", Paced: true, MaxBatchRecords: 7, CheckpointInterval: time.Millisecond}
	since := time.Now()
	errc := make(chan error, 1)
	go func() { errc <- ptest.Run(readPipeline(cfg, key)) }()
	select {
	case <-paused:
	case err := <-errc:
		t.Fatalf("the read ended while the backlog was full: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the read did not pause while the backlog was full")
	}
	if read, total, ok := ReadProgress(topic, since); !ok || read != 0 || total != 420 {
		t.Errorf("paused: ReadProgress %d of %d, %v; want 0 of 420, true", read, total, ok)
	}
	release()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	got := sink.snapshot()
	if d := diffLines(lines(got), want(topic, map[int][2]int64{0: {0, 300}, 1: {0, 120}})); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
	for _, b := range got {
		for i, r := range b.recs[1:] {
			if r.Origin.Source != b.recs[0].Origin.Source || r.Origin.Line != b.recs[i].Origin.Line+1 {
				t.Errorf("batch is not consecutive offsets of one partition: %v then %v", b.recs[i].Origin, r.Origin)
			}
		}
	}
}
