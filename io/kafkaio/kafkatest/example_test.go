package kafkatest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

func ExampleStart() {
	b, err := kafkatest.Start(map[string]int{"tweets": 1}, kafkatest.Options{})
	if err != nil {
		panic(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := kafkatest.WriteMessages(ctx, b.Addr(), "tweets", 0, []kafka.Message{{Value: []byte(`{"id_str":"1"}`)}}); err != nil {
		panic(err)
	}
	conn, err := kafka.DialLeader(ctx, "tcp", b.Addr(), "tweets", 0)
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := conn.ReadMessage(1 << 20)
	if err != nil {
		panic(err)
	}
	fmt.Printf("offset %d: %s\n", m.Offset, m.Value)
	// Output: offset 0: {"id_str":"1"}
}
