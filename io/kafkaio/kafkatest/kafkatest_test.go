package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// lastOffsets returns the high watermark of each partition of topic.
func lastOffsets(t *testing.T, addr, topic string, partitions int) []int64 {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(addr), Timeout: 10 * time.Second, Transport: &kafka.Transport{}} // no connection pooled from before a restart
	var reqs []kafka.OffsetRequest
	for p := range partitions {
		reqs = append(reqs, kafka.LastOffsetOf(p))
	}
	res, err := c.ListOffsets(context.Background(), &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: reqs}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, partitions)
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			t.Fatal(p.Error)
		}
		out[p.Partition] = p.LastOffset
	}
	return out
}

func TestProduceRestartAndDrop(t *testing.T) {
	b := NewBroker(t, map[string]int{"a": 2, "b": 1})
	big := make([][]byte, 3000) // several produce requests
	for i := range big {
		big[i] = make([]byte, 1000)
	}
	Produce(t, b.Addr(), "a", 1, big)
	Produce(t, b.Addr(), "b", 0, [][]byte{[]byte("x")})
	if got := lastOffsets(t, b.Addr(), "a", 2); got[0] != 0 || got[1] != 3000 {
		t.Fatalf("a's high watermarks = %v, want [0 3000]", got)
	}

	addr := b.Addr()
	if err := b.Restart(); err != nil {
		t.Fatal(err)
	}
	if b.Addr() != addr {
		t.Fatalf("restarted on %s, want %s", b.Addr(), addr)
	}
	if got := lastOffsets(t, b.Addr(), "a", 2); got[1] != 3000 {
		t.Fatalf("after a restart a's high watermarks = %v, want [0 3000]", got)
	}

	dropped := b.DropFetchConnections(2)
	conn, err := kafka.DialLeader(context.Background(), "tcp", b.Addr(), "b", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.ReadMessage(1 << 20); err == nil {
		t.Fatal("the first fetch was answered, want its connection dropped")
	}
	if n := dropped(); n != 1 {
		t.Fatalf("dropped %d fetches, want 1", n)
	}
}
