package kafkaio_test

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn1x0[[]schemas.Record](&printFn{})
}

var (
	printedMu sync.Mutex
	printed   []string
)

// printFn keeps the records it sees (prism runs it in this process).
type printFn struct{}

func (*printFn) ProcessElement(batch []schemas.Record) {
	printedMu.Lock()
	defer printedMu.Unlock()
	for _, r := range batch {
		printed = append(printed, fmt.Sprintf("%v %s", r.Origin, r.Data))
	}
}

// A bounded read of everything in a topic: Stop "latest" ends each
// partition at its high watermark as of the pipeline's start.
func ExampleRead() {
	broker, err := kafkatest.Start(map[string]int{"tweets": 2}, kafkatest.Options{})
	if err != nil {
		panic(err)
	}
	defer broker.Close()
	for p, text := range []string{"hello", "hola"} {
		msg := kafka.Message{Value: fmt.Appendf(nil, `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"%d","text":%q}`, p, text)}
		if err := kafkatest.WriteMessages(context.Background(), broker.Addr(), "tweets", p, []kafka.Message{msg}); err != nil {
			panic(err)
		}
	}

	cfg := kafkaio.Config{Brokers: []string{broker.Addr()}, Topic: "tweets", Start: "earliest", Stop: "latest"}
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	p, s := beam.NewPipelineWithRoot()
	beam.ParDo0(s, &printFn{}, kafkaio.Read(s, cfg))
	if err := beamx.Run(context.Background(), p); err != nil {
		panic(err)
	}
	sort.Strings(printed)
	for _, line := range printed {
		fmt.Println(line)
	}
	// Output:
	// kafka:tweets/0:0 {"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"0","text":"hello"}
	// kafka:tweets/1:0 {"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1","text":"hola"}
}

// An unbounded read that resumes from, and commits to, a consumer group,
// and stops cleanly on Drain, as a streaming job does on Ctrl-C.
func ExampleDrain() {
	cfg := kafkaio.Config{
		Brokers: []string{"127.0.0.1:9092"},
		Topic:   "tweets",
		Group:   "tweetindex",
		Start:   "group",
		Commit:  true,
		Drain:   "tweetindex-run-1",
	}
	fmt.Println(cfg.Validate(), cfg.Bounded())
	// In the pipeline's process, on SIGINT:
	kafkaio.Drain(cfg.Drain)
	fmt.Println(kafkaio.Drained(cfg.Drain))
	// Output:
	// <nil> false
	// true
}
