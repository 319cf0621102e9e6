package kafkaio

import (
	"context"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// timedMessages returns messages of partition p for offsets [from, to),
// the message at offset o stamped t0 + o seconds.
func timedMessages(p int, from, to int64, t0 time.Time) []kafka.Message {
	var out []kafka.Message
	for o := from; o < to; o++ {
		out = append(out, kafka.Message{Value: value(p, o), Time: t0.Add(time.Duration(o) * time.Second)})
	}
	return out
}

// TestReadBetweenTimes starts and stops reads at message timestamps.
func TestReadBetweenTimes(t *testing.T) {
	const topic = "timed"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 2})
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	kafkatest.ProduceMessages(t, addr, topic, 0, timedMessages(0, 0, 20, t0))
	kafkatest.ProduceMessages(t, addr, topic, 1, timedMessages(1, 0, 10, t0))
	at := func(sec int) string { return t0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339) }

	tests := []struct {
		name        string
		start, stop string
		want        map[int][2]int64
	}{
		{"between two times", at(5), at(12), map[int][2]int64{0: {5, 12}, 1: {5, 10}}},
		{"start between messages", t0.Add(4500 * time.Millisecond).Format(time.RFC3339Nano), at(6), map[int][2]int64{0: {5, 6}, 1: {5, 6}}},
		{"start after the last message", at(30), "latest", nil},
		{"earliest to a time", "earliest", at(3), map[int][2]int64{0: {0, 3}, 1: {0, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, sink := newSink(t)
			cfg := Config{Brokers: []string{addr}, Topic: topic, Start: tc.start, Stop: tc.stop}
			if err := ptest.Run(readPipeline(cfg, key)); err != nil {
				t.Fatal(err)
			}
			if d := diffLines(lines(sink.snapshot()), want(topic, tc.want)); d != "" {
				t.Errorf("records differ:\n%s", d)
			}
		})
	}
}

// TestReadUntilFutureTime stops a read at a time no message has reached
// when the pipeline starts: it reads what is there, waits, and ends at the
// first message produced later whose timestamp reaches the stop time.
func TestReadUntilFutureTime(t *testing.T) {
	const topic = "future"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 1})
	t0 := time.Now().Add(time.Hour).Truncate(time.Second) // the stop time is in the future
	kafkatest.ProduceMessages(t, addr, topic, 0, timedMessages(0, 0, 20, t0))

	key, sink := newSink(t)
	cfg := Config{Brokers: []string{addr}, Topic: topic, Stop: t0.Add(100 * time.Second).Format(time.RFC3339)}
	errc := make(chan error, 1)
	go func() { errc <- ptest.Run(readPipeline(cfg, key)) }()

	sink.waitFor(t, time.Minute, "the 20 records already in the log", func(bs []batch) bool { return countRecords(bs) == 20 })
	select {
	case err := <-errc:
		t.Fatalf("the read ended before reaching its stop time: %v", err)
	default:
	}
	// Offsets 20 to 30 are stamped 95 to 105 s after t0: 20 to 24 are read.
	later := timedMessages(0, 20, 31, t0.Add(75*time.Second))
	kafkatest.ProduceMessages(t, addr, topic, 0, later)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if d := diffLines(lines(sink.snapshot()), want(topic, map[int][2]int64{0: {0, 25}})); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
}

// commitOffsets commits offsets (partition to next offset) for group.
func commitOffsets(t *testing.T, addr, group, topic string, offsets map[int]int64) {
	t.Helper()
	var req []kafka.OffsetCommit
	for p, o := range offsets {
		req = append(req, kafka.OffsetCommit{Partition: p, Offset: o})
	}
	c := &kafka.Client{Addr: kafka.TCP(addr)}
	res, err := c.OffsetCommit(context.Background(), &kafka.OffsetCommitRequest{GroupID: group, GenerationID: -1, Topics: map[string][]kafka.OffsetCommit{topic: req}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			t.Fatalf("commit partition %d: %v", p.Partition, p.Error)
		}
	}
}

// committed returns the group's committed offsets (-1: none).
func committed(t *testing.T, addr, group, topic string, partitions ...int) map[int]int64 {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(addr)}
	res, err := c.OffsetFetch(context.Background(), &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: partitions}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int64{}
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			t.Fatalf("offset fetch partition %d: %v", p.Partition, p.Error)
		}
		out[p.Partition] = p.CommittedOffset
	}
	return out
}

// TestReadFromGroupOffsets starts at a group's committed offsets, and at
// the beginning of a partition the group never committed.
func TestReadFromGroupOffsets(t *testing.T) {
	const topic, group = "grouped", "indexer"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 3})
	for p, n := range []int64{20, 10, 5} {
		kafkatest.Produce(t, addr, topic, p, values(p, 0, n))
	}
	commitOffsets(t, addr, group, topic, map[int]int64{0: 7, 2: 5})

	key, sink := newSink(t)
	cfg := Config{Brokers: []string{addr}, Topic: topic, Group: group, Start: "group", Stop: "latest"}
	if err := ptest.Run(readPipeline(cfg, key)); err != nil {
		t.Fatal(err)
	}
	if d := diffLines(lines(sink.snapshot()), want(topic, map[int][2]int64{0: {7, 20}, 1: {0, 10}})); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
}

// TestReadUntilTimeThatPasses stops a read at a time shortly in the future
// that no message reaches: once the wall clock passes it and the read has
// caught up, it ends with what the log holds.
func TestReadUntilTimeThatPasses(t *testing.T) {
	const topic = "passing"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 1})
	kafkatest.Produce(t, addr, topic, 0, values(0, 0, 5))
	key, sink := newSink(t)
	cfg := Config{Brokers: []string{addr}, Topic: topic, Stop: time.Now().Add(300 * time.Millisecond).Format(time.RFC3339Nano)}
	if err := ptest.Run(readPipeline(cfg, key)); err != nil {
		t.Fatal(err)
	}
	if d := diffLines(lines(sink.snapshot()), want(topic, map[int][2]int64{0: {0, 5}})); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
}
