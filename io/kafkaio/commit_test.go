package kafkaio

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// TestCommitThenResume reads part of a topic committing offsets, then reads
// the rest from the group's offsets: together the two reads see every
// record exactly once.
func TestCommitThenResume(t *testing.T) {
	const topic, group = "resumed", "indexer"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 3})
	sizes := []int64{30, 8, 0}
	for p, n := range sizes {
		kafkatest.Produce(t, addr, topic, p, values(p, 0, n))
	}
	base := Config{Brokers: []string{addr}, Topic: topic, Group: group, Start: "group", Commit: true, MaxBatchRecords: 4}

	key1, sink1 := newSink(t)
	first := base
	first.Stop = "offset:12"
	if err := ptest.Run(readPipeline(first, key1)); err != nil {
		t.Fatal(err)
	}
	if got, want := committed(t, addr, group, topic, 0, 1, 2), map[int]int64{0: 12, 1: 8, 2: -1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("committed offsets after the first read = %v, want %v", got, want)
	}

	key2, sink2 := newSink(t)
	second := base
	second.Stop = "latest"
	if err := ptest.Run(readPipeline(second, key2)); err != nil {
		t.Fatal(err)
	}
	got := append(lines(sink1.snapshot()), lines(sink2.snapshot())...)
	if d := diffLines(got, want(topic, map[int][2]int64{0: {0, 30}, 1: {0, 8}})); d != "" {
		t.Errorf("the two reads together differ from the topic:\n%s", d)
	}
	if n := countRecords(sink1.snapshot()); n != 12+8 {
		t.Errorf("first read: %d records, want 20", n)
	}
}

// TestDrainCommitThenResume drains an unbounded read in the middle of a
// partition, with offsets committed as it goes, then resumes from
// the group: no record is lost or read twice, and the committed offsets are
// exactly where the drained read stopped.
func TestDrainCommitThenResume(t *testing.T) {
	const topic, group = "drained", "indexer"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 2})
	// Produce in small requests: each is one record batch, and a fetch of
	// at most MaxFetchBytes returns one batch, so the read advances a few
	// records per fetch and is drained mid-partition.
	for p := range 2 {
		for o := int64(0); o < 60; o += 5 {
			kafkatest.Produce(t, addr, topic, p, values(p, o, o+5))
		}
	}
	drain := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	// A checkpoint after every fetch: many bundles, each resumed from the
	// last, so commits happen all along the read.
	base := Config{Brokers: []string{addr}, Topic: topic, Group: group, Start: "group", Commit: true, MaxBatchRecords: 5, MaxFetchBytes: 1, CheckpointInterval: time.Nanosecond}

	key1, sink1 := newSink(t)
	first := base
	first.Drain = drain
	reached, release := sink1.holdAfter(23)
	errc := make(chan error, 1)
	go func() { errc <- ptest.Run(readPipeline(first, key1)) }()
	select {
	case <-reached:
	case err := <-errc:
		t.Fatalf("the read ended before the drain: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("timed out waiting for 23 records")
	}
	// Offsets were committed while the read was running: the read is
	// held in the middle of a bundle resumed from an earlier one.
	if c := committed(t, addr, group, topic, 0, 1); c[0] <= 0 && c[1] <= 0 {
		t.Errorf("no offset committed while reading: %v", c)
	}
	Drain(drain)
	close(release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	got1 := sink1.snapshot()
	read := map[int]int64{0: -1, 1: -1} // next offset read, per partition
	for _, b := range got1 {
		for _, r := range b.recs {
			var p int
			fmt.Sscanf(r.Origin.Source, "kafka:"+topic+"/%d", &p)
			read[p] = max(read[p], r.Origin.Line+1)
		}
	}
	if n := countRecords(got1); n >= 120 || n < 23 {
		t.Errorf("the drained read saw %d records, want 23 to 119", n)
	}
	if got := committed(t, addr, group, topic, 0, 1); fmt.Sprint(got) != fmt.Sprint(read) {
		t.Errorf("committed offsets %v, want the offsets after the last records read %v", got, read)
	}

	key2, sink2 := newSink(t)
	second := base
	second.Stop = "latest"
	if err := ptest.Run(readPipeline(second, key2)); err != nil {
		t.Fatal(err)
	}
	got := append(lines(got1), lines(sink2.snapshot())...)
	if d := diffLines(got, want(topic, map[int][2]int64{0: {0, 60}, 1: {0, 60}})); d != "" {
		t.Errorf("the two reads together differ from the topic:\n%s", d)
	}
}
