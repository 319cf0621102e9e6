package kafkaio

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/schemas"
)

var benchRecords = flag.Int("bench.records", 100_000, "1 KiB messages BenchmarkRead reads per run")

const benchTopic, benchPartitions = "bench", 4

func init() {
	register.DoFn1x0[[]schemas.Record](&discardFn{})
}

// discardFn drops what the read emits.
type discardFn struct{}

func (*discardFn) ProcessElement([]schemas.Record) {}

var (
	benchOnce sync.Once
	benchAddr string
)

// benchBroker starts one broker for every benchmark and fills benchTopic
// with *benchRecords tweet-like 1 KiB messages, spread evenly over its
// partitions.
func benchBroker(b *testing.B) string {
	benchOnce.Do(func() {
		br, err := kafkatest.Start(map[string]int{benchTopic: benchPartitions}, kafkatest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		// Not closed: it serves every benchmark of the process.
		t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		per := *benchRecords / benchPartitions
		for p := range benchPartitions {
			msgs := make([]kafka.Message, per)
			for i := range msgs {
				head := fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"`, t0.Add(time.Duration(i)*time.Second).Format(time.RubyDate), p*per+i)
				msgs[i].Value = []byte(head + strings.Repeat("x", 1024-len(head)-2) + `"}`)
			}
			if err := kafkatest.WriteMessages(context.Background(), br.Addr(), benchTopic, p, msgs); err != nil {
				b.Fatal(err)
			}
		}
		benchAddr = br.Addr()
	})
	return benchAddr
}

func benchTotal() int { return *benchRecords / benchPartitions * benchPartitions }

// BenchmarkRead reads the same topic of 1 KiB messages three ways: through
// Read on prism, through the SDF's fetch loop alone (no runner), and with
// kafka-go's own partition readers, one goroutine per partition.
func BenchmarkRead(b *testing.B) {
	addr := benchBroker(b)
	total := benchTotal()
	report := func(b *testing.B, start time.Time) {
		b.ReportMetric(float64(total*b.N)/time.Since(start).Seconds(), "records/s")
		b.ReportMetric(float64(total*b.N)*1024/time.Since(start).Seconds()/(1<<20), "MiB/s")
	}

	b.Run("sdf-on-prism", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			p, s := beam.NewPipelineWithRoot()
			beam.ParDo0(s, &discardFn{}, Read(s, Config{Brokers: []string{addr}, Topic: benchTopic, Stop: "latest"}))
			res, err := ptest.RunWithMetrics(p)
			if err != nil {
				b.Fatal(err)
			}
			if n := counter(res, CounterRecordsRead); n != int64(total) {
				b.Fatalf("read %d records, want %d", n, total)
			}
		}
		report(b, start)
	})

	b.Run("fetch-loop", func(b *testing.B) {
		cfg := Config{Brokers: []string{addr}, Topic: benchTopic, Stop: "latest"}
		r, err := newReader(cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer r.close()
		start := time.Now()
		for range b.N {
			parts, err := resolvePartitions(context.Background(), r.client, r.cfg, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			var wg sync.WaitGroup
			counts := make([]int, len(parts))
			for i, p := range parts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rt := sdf.NewLockRTracker(newOffsetTracker(offsetrange.Restriction{Start: p.Start, End: p.End}, false, false))
					s := r.newState(p, rt, nil, func(_ beam.EventTime, recs []schemas.Record) { counts[i] += len(recs) })
					if _, err := r.read(context.Background(), s, time.Now().Add(time.Hour)); err != nil {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
			if n := sum(counts); n != total {
				b.Fatalf("read %d records, want %d", n, total)
			}
		}
		report(b, start)
	})

	b.Run("kafka-go-reader", func(b *testing.B) {
		var reading time.Duration // excludes closing the readers, which waits out a last fetch
		for range b.N {
			readers := make([]*kafka.Reader, benchPartitions)
			for p := range readers {
				readers[p] = kafka.NewReader(kafka.ReaderConfig{Brokers: []string{addr}, Topic: benchTopic, Partition: p, MinBytes: 1, MaxBytes: DefaultMaxFetchBytes, MaxWait: DefaultPollTimeout})
			}
			start := time.Now()
			var wg sync.WaitGroup
			counts := make([]int, benchPartitions)
			for p, rd := range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for counts[p] < total/benchPartitions {
						if _, err := rd.ReadMessage(context.Background()); err != nil {
							b.Error(err)
							return
						}
						counts[p]++
					}
				}()
			}
			wg.Wait()
			reading += time.Since(start)
			for _, rd := range readers {
				rd.Close()
			}
			if n := sum(counts); n != total {
				b.Fatalf("read %d records, want %d", n, total)
			}
		}
		b.ReportMetric(float64(total*b.N)/reading.Seconds(), "records/s")
		b.ReportMetric(float64(total*b.N)*1024/reading.Seconds()/(1<<20), "MiB/s")
	})
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// BenchmarkProduceToEmit measures, on an unbounded read on prism with the
// default poll settings, the delay from producing a message to the read
// emitting it: each iteration produces one message to one of four
// partitions and waits until the pipeline has emitted it.
func BenchmarkProduceToEmit(b *testing.B) {
	const topic = "latency"
	br, err := kafkatest.Start(map[string]int{topic: benchPartitions}, kafkatest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	key, sink := newSink(b)
	cfg := Config{Brokers: []string{br.Addr()}, Topic: topic, Drain: key}
	errc := make(chan error, 1)
	go func() { errc <- ptest.Run(readPipeline(cfg, key)) }()
	defer func() {
		Drain(key)
		if err := <-errc; err != nil {
			b.Error(err)
		}
	}()
	w := &kafka.Writer{Addr: kafka.TCP(br.Addr()), Topic: topic, Balancer: &kafka.RoundRobin{}, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireOne}
	defer w.Close()
	// Warm up: the first message waits for the pipeline to start.
	if err := w.WriteMessages(context.Background(), kafka.Message{Value: []byte("warm-up")}); err != nil {
		b.Fatal(err)
	}
	sink.waitFor(b, time.Minute, "the warm-up message", func(bs []batch) bool { return countRecords(bs) == 1 })

	delays := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if err := w.WriteMessages(context.Background(), kafka.Message{Value: []byte("m")}); err != nil {
			b.Fatal(err)
		}
		sink.waitFor(b, time.Minute, "the message", func(bs []batch) bool { return countRecords(bs) == i+2 })
		delays = append(delays, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(delays)
	b.ReportMetric(float64(delays[len(delays)/2].Milliseconds()), "ms-median")
	b.ReportMetric(float64(delays[len(delays)*99/100].Milliseconds()), "ms-p99")
	b.ReportMetric(float64(delays[len(delays)-1].Milliseconds()), "ms-max")
}
