package job

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/schemas"
)

var (
	benchProbes = flag.Int("bench.probes", 60, "probe tweets BenchmarkProduceToVisible times")
	benchLoad   = flag.Int("bench.load", 500, "background tweets/s BenchmarkProduceToVisible produces alongside its probes")
	benchCkpt   = flag.Duration("bench.checkpoint", 250*time.Millisecond, "kafkaio.Config.CheckpointInterval of BenchmarkProduceToVisible's read (tweetindex index --kafka-checkpoint)")
)

// loadLangs are the languages of the background tweets.
var loadLangs = []string{"en", "ja", "es", "ar", "und", "pt", "ko", "fr"}

// loadTweet is a background tweet of a few words, created at t.
func loadTweet(id int, t time.Time) []byte {
	return []byte(fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"streaming load tweet number %d about #ApacheBeam and Kafka","lang":%q,"user":{"name":"Load %d","screen_name":"load%d"}}`,
		t.UTC().Format(time.RubyDate), id, id, loadLangs[id%len(loadLangs)], id%97, id%97))
}

// BenchmarkProduceToVisible measures, in streaming mode, the delay from
// producing a tweet to Kafka to its count being readable in the store:
// the frequency table's early firing, end to end. A streaming pipeline
// reads a 4-partition topic on an in-process broker into a store while
// -bench.load tweets/s of background tweets and one probe tweet every
// 250 ms are produced, all created "now". Each probe has a language of its
// own, so its frequency cell appears exactly when its count is visible;
// the store is polled every 5 ms. It reports the median, 90th percentile
// and worst delay over -bench.probes probes (after one warm-up probe).
//
//	go test -run '^$' -bench ProduceToVisible -benchtime 1x ./pipelines/ -args -bench.probes=60 -bench.load=500
func BenchmarkProduceToVisible(b *testing.B) {
	for range b.N {
		delays, raws := produceToVisible(b, *benchProbes, *benchLoad)
		slices.Sort(delays)
		slices.Sort(raws)
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(delays[len(delays)/2]), "ms-median")
		b.ReportMetric(ms(delays[len(delays)*9/10]), "ms-p90")
		b.ReportMetric(ms(delays[len(delays)-1]), "ms-worst")
		b.ReportMetric(ms(raws[len(raws)/2]), "ms-raw-median")
		b.Logf("%d probes at %d background tweets/s: count visible after median %v, p90 %v, worst %v, best %v; raw row after median %v, worst %v",
			len(delays), *benchLoad, delays[len(delays)/2], delays[len(delays)*9/10], delays[len(delays)-1], delays[0], raws[len(raws)/2], raws[len(raws)-1])
	}
}

// heapMB returns the live heap after a collection, in MB: the runner's
// too, since prism runs in this process.
func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// produceToVisible runs one measurement and returns the probes' delays.
func produceToVisible(b *testing.B, probes, load int) (delays, raws []time.Duration) {
	const topic, partitions = "live", 4
	addr := kafkatest.StartBroker(b, map[string]int{topic: partitions})
	store := filepath.Join(tempDir(b), "store")
	st, err := storeio.Open(store)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: topic, Balancer: &kafka.RoundRobin{}, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireOne}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Background load, in 20 ms steps.
	var loadDone sync.WaitGroup
	loadDone.Add(1)
	go func() {
		defer loadDone.Done()
		start, sent := time.Now(), 0
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for id := 1 << 40; ; {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			var msgs []kafka.Message
			for ; sent < int(float64(load)*time.Since(start).Seconds()); sent++ {
				id++
				msgs = append(msgs, kafka.Message{Value: loadTweet(id, time.Now())})
			}
			if len(msgs) > 0 && w.WriteMessages(ctx, msgs...) != nil && ctx.Err() == nil {
				b.Error("producing the load failed")
				return
			}
		}
	}()

	cfg := kafkaio.Config{Brokers: []string{addr}, Topic: topic, CheckpointInterval: *benchCkpt, Drain: fmt.Sprintf("%s-%d", b.Name(), time.Now().UnixNano())}
	errc := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), pipelines.Config{Kafka: &cfg, Store: store})
		errc <- err
	}()
	defer func() {
		kafkaio.Drain(cfg.Drain)
		if err := <-errc; err != nil {
			b.Error(err)
		}
	}()

	// probe produces probe i and waits until its count is visible; it
	// also notes when its raw row was (the tweet got through dedup).
	probe := func(i int) (count, raw time.Duration, err error) {
		now := time.Now()
		lang := fmt.Sprintf("probe%04d", i)
		key := []byte(schemas.Minute(now.Unix()) + lang)
		js := streamTweet(i+1, now, lang)
		rawKey := schemas.RawRow{Key: schemas.NewRowKey(now.Unix(), js)}.Cell().Key
		sent := time.Now()
		if err := w.WriteMessages(ctx, kafka.Message{Value: js}); err != nil {
			return 0, 0, err
		}
		for deadline := sent.Add(time.Minute); ; {
			if raw == 0 {
				if _, ok, err := st.Get(schemas.TableRaw, rawKey); err != nil {
					return 0, 0, err
				} else if ok {
					raw = time.Since(sent)
				}
			}
			if _, ok, err := st.Get(schemas.TableFrequency, key); err != nil {
				return 0, 0, err
			} else if ok {
				if raw == 0 {
					raw = time.Since(sent)
				}
				return time.Since(sent), raw, nil
			}
			if time.Now().After(deadline) {
				return 0, 0, fmt.Errorf("probe %d not visible after a minute", i)
			}
			time.Sleep(5 * time.Millisecond) // the polling period
		}
	}
	if _, _, err := probe(0); err != nil { // warm-up: the pipeline's start is not a delay
		b.Fatal(err)
	}
	heapStart := heapMB()
	b.ResetTimer()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 1; i <= probes; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, r, err := probe(i)
			if err != nil {
				b.Error(err)
				return
			}
			mu.Lock()
			delays, raws = append(delays, d), append(raws, r)
			if testing.Verbose() {
				b.Logf("probe %d: raw %v count %v", i, r, d)
			}
			mu.Unlock()
		}()
		time.Sleep(250 * time.Millisecond) // the probes' pace, not a synchronization
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(heapStart, "MB-heap-start")
	b.ReportMetric(heapMB(), "MB-heap-end")
	if len(delays) == 0 {
		b.Fatal("no probe became visible")
	}
	cancel()
	loadDone.Wait()
	return delays, raws
}
