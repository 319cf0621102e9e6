package job

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

var (
	freshRates  = flag.String("fresh.rates", "0,2000", "BenchmarkServeFreshness: background tweets/s of each measurement, comma-separated")
	freshProbes = flag.Int("fresh.probes", 100, "BenchmarkServeFreshness: probe tweets timed at each rate (after one warm-up probe)")
	freshArgs   = flag.String("fresh.args", "", "BenchmarkServeFreshness: more flags of tweetindex index, space-separated (e.g. --kafka-checkpoint 100ms)")
)

// BenchmarkServeFreshness measures produce-to-answer latency of a stream
// that serves its own store (tweetindex index --kafka ... --store DIR
// --serve ADDR): bin/devbroker (built here, as bin/tweetindex is) serves
// a 4-partition topic, the stream
// reads it in its own process, and a producer here writes background
// tweets (the committed sample's, re-dated to now and given new ids) at
// each of -fresh.rates tweets/s, and, one at a time, -fresh.probes probe
// tweets with known ids and a word of their own. From the produce call's
// start, the API is asked every 10 ms for the probe's word until the
// answer holds the probe: with the range given (from/to: the probe's
// second, as a client that knows what it looks for) and without (the
// range is then the data's extent, which the server reads again every
// --serve-refresh, from the frequency table, written an early-firing delay
// after a minute's first tweet). It prints p50, p90, p99 and the worst of
// each, per rate.
//
//	make bench-fresh    (go test -run '^$' -bench ServeFreshness -benchtime 1x ./pipelines/job/ -args -fresh.rates 0,2000)
func BenchmarkServeFreshness(b *testing.B) {
	var rates []int
	for _, r := range strings.Split(*freshRates, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil || n < 0 {
			b.Fatalf("-fresh.rates: %q is not a rate (tweets/s)", r)
		}
		rates = append(rates, n)
	}
	root := repoRoot(b)
	templates := sampleTemplates(b, filepath.Join(root, "testdata", "sample"))
	tweetindex := buildCommand(b)
	devbroker := filepath.Join(root, "bin", "devbroker")
	build := exec.Command("go", "build", "-o", devbroker, "./pipelines/cmd/devbroker")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("go build devbroker: %v", err)
	}
	b.ResetTimer()
	type row struct {
		rate         int
		ranged, open []time.Duration
		produced     int
	}
	var rows []row
	for range b.N {
		for _, rate := range rates {
			r := row{rate: rate}
			r.ranged, r.open, r.produced = freshness(b, tweetindex, devbroker, templates, rate, *freshProbes)
			rows = append(rows, r)
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }
	q := func(ds []time.Duration, p float64) time.Duration { // nearest rank
		ds = slices.Sorted(slices.Values(ds))
		return ds[max(0, min(len(ds)-1, int(math.Ceil(p*float64(len(ds))))-1))]
	}
	fmt.Printf("\nproduce-to-answer latency of index --serve, ms (%d probes a rate; percentiles by nearest rank)\n", *freshProbes)
	fmt.Println("| background tweets/s | produced | asked with from/to: p50 | p90 | p99 | worst | without a range: p50 | p90 | p99 | worst |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.rate, r.produced,
			ms(q(r.ranged, 0.5)), ms(q(r.ranged, 0.9)), ms(q(r.ranged, 0.99)), ms(q(r.ranged, 1)),
			ms(q(r.open, 0.5)), ms(q(r.open, 0.9)), ms(q(r.open, 0.99)), ms(q(r.open, 1)))
		b.ReportMetric(float64(q(r.ranged, 0.5))/1e6, fmt.Sprintf("ms-p50@%d", r.rate))
		b.ReportMetric(float64(q(r.ranged, 0.99))/1e6, fmt.Sprintf("ms-p99@%d", r.rate))
	}
	if *freshArgs != "" {
		fmt.Printf("index flags: %s\n", *freshArgs)
	}
}

// sampleTemplates returns the committed sample's tweets as templates: the
// JSON of each with its created_at, id and id_str to be filled in
// (fillTemplate).
func sampleTemplates(b *testing.B, dir string) [][]byte {
	files, err := filepath.Glob(filepath.Join(dir, "v1-*.jsonl"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no sample in %s (%v)", dir, err)
	}
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var m map[string]any
			if json.Unmarshal(line, &m) != nil || m["id_str"] == nil || m["created_at"] == nil {
				continue // a delete, a limit notice, a broken line
			}
			m["created_at"], m["id_str"] = "@CREATED@", "@ID@"
			delete(m, "id")
			t, _ := json.Marshal(m)
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		b.Fatalf("no tweet in the sample %s", dir)
	}
	return out
}

// fillTemplate returns template t as a tweet with id created at.
func fillTemplate(t []byte, id int64, at time.Time) []byte {
	t = bytes.Replace(t, []byte("@CREATED@"), []byte(at.UTC().Format(time.RubyDate)), 1)
	return bytes.Replace(t, []byte("@ID@"), []byte(strconv.FormatInt(id, 10)), 1)
}

// freshness runs one measurement at rate background tweets/s and returns
// the probes' latencies, asked with and without a range, and how many
// background tweets were produced.
func freshness(b *testing.B, tweetindex, devbroker string, templates [][]byte, rate, probes int) (ranged, open []time.Duration, produced int) {
	broker := startServer(b, "devbroker", devbroker, "serve", "-addr", freeAddr(b), "-topic", "tweets", "-partitions", "4")
	defer broker.stop(b)
	apiAddr := freeAddr(b)
	dir := tempDir(b)
	args := []string{"index", "--kafka", broker.addr, "--topic", "tweets", "--store", filepath.Join(dir, "store"),
		"--serve", apiAddr, "--progress", "0"}
	args = append(args, strings.Fields(*freshArgs)...)
	stream := exec.Command(tweetindex, args...)
	var stderr bytes.Buffer
	stream.Stdout, stream.Stderr = io.Discard, &stderr
	stream.SysProcAttr = workerPoolProcAttr()
	if err := stream.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- stream.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			killGroup(stream.Process.Pid)
			<-exited
		}
	}()
	base := "http://" + apiAddr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) { // polling for the server to listen
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			exited <- err
			b.Fatalf("the stream exited (%v):\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("the stream does not serve on %s after 60 s:\n%s", apiAddr, stderr.String())
		}
	}

	w := &kafka.Writer{Addr: kafka.TCP(broker.addr), Topic: "tweets", Balancer: &kafka.RoundRobin{},
		BatchSize: 5000, BatchBytes: 900 << 10, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireOne}
	defer w.Close()
	probeW := &kafka.Writer{Addr: kafka.TCP(broker.addr), Topic: "tweets", Balancer: &kafka.RoundRobin{},
		BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireOne}
	defer probeW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var load sync.WaitGroup
	var sent int
	if rate > 0 {
		load.Add(1)
		go func() { // the background load, in 10 ms steps
			defer load.Done()
			start := time.Now()
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for id := int64(1) << 50; ; {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				var msgs []kafka.Message
				now := time.Now()
				for ; sent < int(float64(rate)*time.Since(start).Seconds()); sent++ {
					id++
					msgs = append(msgs, kafka.Message{Value: fillTemplate(templates[int(id)%len(templates)], id, now)})
				}
				if len(msgs) > 0 {
					if err := w.WriteMessages(ctx, msgs...); err != nil && ctx.Err() == nil {
						b.Errorf("producing the load: %v", err)
						return
					}
				}
			}
		}()
		time.Sleep(3 * time.Second) // the load runs a while before the first probe: a pace, not a synchronization
	}
	// probe produces probe i and asks for it until both answers hold it.
	probe := func(i int) (withRange, without time.Duration) {
		word := fmt.Sprintf("freshprobe%05d", i)
		id := int64(7)<<56 + int64(i)
		at := time.Now().UTC().Truncate(time.Second)
		js := fillTemplate([]byte(`{"created_at":"@CREATED@","id_str":"@ID@","text":"a probe `+word+` of freshness","lang":"en","user":{"screen_name":"prober"}}`), id, at)
		ranged := base + "/api/terms?" + url.Values{"term": {word}, "from": {at.Format(time.RFC3339)}, "to": {at.Add(time.Second).Format(time.RFC3339)}}.Encode()
		openURL := base + "/api/terms?" + url.Values{"term": {word}}.Encode()
		idText := []byte(strconv.FormatInt(id, 10))
		holds := func(u string) bool {
			resp, err := http.Get(u)
			if err != nil {
				b.Fatalf("%s: %v", u, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("%s: %s %s", u, resp.Status, body)
			}
			return bytes.Contains(body, idText)
		}
		start := time.Now()
		if err := probeW.WriteMessages(ctx, kafka.Message{Value: js}); err != nil {
			b.Fatalf("producing probe %d: %v", i, err)
		}
		for deadline := start.Add(2 * time.Minute); withRange == 0 || without == 0; time.Sleep(10 * time.Millisecond) { // the polling period
			if withRange == 0 && holds(ranged) {
				withRange = time.Since(start)
			}
			if without == 0 && holds(openURL) {
				without = time.Since(start)
			}
			if time.Now().After(deadline) {
				b.Fatalf("probe %d not answered after 2 minutes (with a range: %v)\n%s", i, withRange, stderr.String())
			}
		}
		return withRange, without
	}
	probe(0) // warm-up: the stream's first bundles are not a delay
	for i := 1; i <= probes; i++ {
		r, o := probe(i)
		ranged, open = append(ranged, r), append(open, o)
		if testing.Verbose() {
			b.Logf("rate %d probe %d: %v with a range, %v without", rate, i, r, o)
		}
		time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond) // the probes' pace: spread over the stream's bundles
	}
	cancel()
	load.Wait()
	produced = sent
	stream.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			b.Errorf("the stream exited with %v after SIGTERM:\n%s", err, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		b.Errorf("the stream still runs 2 minutes after SIGTERM:\n%s", stderr.String())
	}
	return ranged, open, produced
}
