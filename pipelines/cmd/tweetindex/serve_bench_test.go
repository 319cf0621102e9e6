package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tweetindex/tweetindex/pipelines/serve"
)

var (
	benchServeStore   = flag.String("serve.store", "", "BenchmarkServeLoad: the store to ask (make bench-serve indexes one)")
	benchServeClients = flag.Int("serve.clients", 50, "BenchmarkServeLoad: concurrent clients")
	benchServeSeed    = flag.Uint64("serve.seed", 1, "BenchmarkServeLoad: seed of the questions' choice and parameters")
	benchServeSlots   = flag.Int("serve.inflight", 0, "BenchmarkServeLoad: the server's --max-inflight (0: its default)")
	benchServeOnly    = flag.String("serve.questions", "", "BenchmarkServeLoad: ask only the questions of the mix whose names match this regular expression")
)

// loadQuestion is a kind of request of the load benchmark: path returns
// one, its parameters drawn with r.
type loadQuestion struct {
	name string
	path func(r *rand.Rand) string
}

// BenchmarkServeLoad: -serve.clients concurrent clients ask b.N questions
// in all of tweetindex serve (in this process, on -serve.store), each a
// question drawn from a mix with parameters drawn from the data (terms of
// its tweets, boxes around its points, hours of its range); it reports
// the throughput and, per question, p50 and p99 of the time from request
// to the answer's last byte.
func BenchmarkServeLoad(b *testing.B) {
	if *benchServeStore == "" {
		b.Skip("set -serve.store DIR, the store to ask (make bench-serve indexes one)")
	}
	clients := *benchServeClients
	base := startServe(b, *benchServeStore, serve.Config{MaxInFlight: *benchServeSlots, Timeout: 5 * time.Minute})
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}}
	mix := loadMix(b, client, base)
	if *benchServeOnly != "" {
		re, err := regexp.Compile(*benchServeOnly)
		if err != nil {
			b.Fatalf("-serve.questions: %v", err)
		}
		mix = slices.DeleteFunc(mix, func(q loadQuestion) bool { return !re.MatchString(q.name) })
		if len(mix) == 0 {
			b.Fatalf("-serve.questions %q matches no question of the mix", *benchServeOnly)
		}
	}
	for _, q := range mix { // once each, unmeasured: caches as a server that has run a while has them
		r := rand.New(rand.NewPCG(*benchServeSeed, 0))
		if _, err := fetch(client, base+q.path(r)); err != nil {
			b.Fatalf("%s: %v", q.name, err)
		}
	}
	type sample struct {
		q int
		d time.Duration
	}
	samples := make([][]sample, clients)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(*benchServeSeed, uint64(c)+1))
			for next.Add(1) <= int64(b.N) {
				i := r.IntN(len(mix))
				path := mix[i].path(r)
				t0 := time.Now()
				if _, err := fetch(client, base+path); err != nil {
					failed.Store(fmt.Errorf("%s: %w", path, err))
					return
				}
				samples[c] = append(samples[c], sample{i, time.Since(t0)})
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	per := make([][]time.Duration, len(mix))
	for _, ss := range samples {
		for _, s := range ss {
			per[s.q] = append(per[s.q], s.d)
		}
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	if b.N < len(mix) {
		return // the first, probing run of the benchmark
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	slots := *benchServeSlots
	if slots == 0 {
		slots = serve.Defaults.MaxInFlight
	}
	fmt.Fprintf(tw, "%d clients, %d answered at once, %d requests in %s: %.0f requests/s\n", clients, slots, b.N, elapsed.Round(time.Millisecond), float64(b.N)/elapsed.Seconds())
	fmt.Fprintln(tw, "question\trequests\tp50 ms\tp99 ms\tmax ms\t")
	for i, ds := range per {
		if len(ds) == 0 {
			continue
		}
		slices.Sort(ds)
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t\n", mix[i].name, len(ds), ms(quantile(ds, 0.50)), ms(quantile(ds, 0.99)), ms(ds[len(ds)-1]))
	}
	tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile returns the q quantile of sorted ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(ds))+0.999999) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

// fetch gets u and reads its answer to the end.
func fetch(c *http.Client, u string) (int64, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s", resp.Status)
	}
	return n, err
}

// loadMix reads the data's hours, terms and points through the API and
// returns the questions of the load.
func loadMix(b *testing.B, c *http.Client, base string) []loadQuestion {
	rows := func(path string) []map[string]any {
		resp, err := c.Get(base + path)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			b.Fatalf("%s: %s %s", path, resp.Status, body)
		}
		var rs []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
			var r map[string]any
			if json.Unmarshal([]byte(l), &r) == nil {
				rs = append(rs, r)
			}
		}
		return rs
	}
	var hours []time.Time
	for _, r := range rows("/api/series?by=hour") {
		if at, err := time.Parse(time.RFC3339, r["hour"].(string)); err == nil && r["tweets"].(float64) > 0 {
			hours = append(hours, at)
		}
	}
	// The most frequent words of a few hundred tweets, as people search.
	freq := map[string]int{}
	for _, r := range rows("/api/tweets?limit=400") {
		for _, w := range strings.Fields(strings.ToLower(r["text"].(string))) {
			if utf8.RuneCountInString(w) >= 4 && !strings.ContainsFunc(w, func(c rune) bool { return !unicode.IsLetter(c) }) {
				freq[w]++
			}
		}
	}
	words := make([]string, 0, len(freq))
	for w := range freq {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		if freq[a] != freq[b] {
			return freq[b] - freq[a]
		}
		return strings.Compare(a, b)
	})
	words = words[:min(12, len(words))]
	var points [][2]float64
	for _, r := range rows("/api/geo?bbox=-180,-90,180,90&limit=300") {
		points = append(points, [2]float64{r["lon"].(float64), r["lat"].(float64)})
	}
	if len(hours) < 2 || len(words) < 4 || len(points) < 4 {
		b.Fatalf("the store gave %d hours, words %q, %d points: too little to ask", len(hours), words, len(points))
	}
	b.Logf("%d hours from %s; words %q; %d points", len(hours), hours[0].Format(time.RFC3339), words, len(points))
	hour := func(r *rand.Rand) (string, string) {
		h := hours[r.IntN(len(hours))].Add(time.Duration(r.IntN(3600)) * time.Second)
		return h.Format(time.RFC3339), h.Add(time.Hour).Format(time.RFC3339)
	}
	span := func(r *rand.Rand, d time.Duration) (string, string) {
		h := hours[r.IntN(len(hours))].Add(time.Duration(r.IntN(3600)) * time.Second)
		return h.Format(time.RFC3339), h.Add(d).Format(time.RFC3339)
	}
	box := func(r *rand.Rand) string {
		p := points[r.IntN(len(points))]
		return fmt.Sprintf("%.3f,%.3f,%.3f,%.3f", max(-180, p[0]-5), max(-90, p[1]-5), min(180, p[0]+5), min(90, p[1]+5))
	}
	word := func(r *rand.Rand) string { return words[r.IntN(len(words))] }
	q := func(v url.Values) string { return v.Encode() }
	return []loadQuestion{
		{"count 1h", func(r *rand.Rand) string {
			f, t := hour(r)
			return "/api/count?" + q(url.Values{"from": {f}, "to": {t}})
		}},
		{"count-geo box", func(r *rand.Rand) string { return "/api/count-geo?" + q(url.Values{"bbox": {box(r)}}) }},
		{"series 1h by minute by lang", func(r *rand.Rand) string {
			f, t := hour(r)
			return "/api/series?" + q(url.Values{"from": {f}, "to": {t}, "by": {"minute"}, "by-lang": {"true"}})
		}},
		{"count-term", func(r *rand.Rand) string { return "/api/count-term?" + q(url.Values{"term": {word(r)}}) }},
		{"terms AND page 100", func(r *rand.Rand) string {
			return "/api/terms?" + q(url.Values{"and": {word(r) + "," + word(r)}, "limit": {"100"}})
		}},
		{"terms OR 1h", func(r *rand.Rand) string {
			f, t := hour(r)
			return "/api/terms?" + q(url.Values{"or": {word(r) + "," + word(r)}, "from": {f}, "to": {t}})
		}},
		{"geo box page 100", func(r *rand.Rand) string {
			return "/api/geo?" + q(url.Values{"bbox": {box(r)}, "limit": {"100"}})
		}},
		{"tweets 1h page 100", func(r *rand.Rand) string {
			f, t := hour(r)
			return "/api/tweets?" + q(url.Values{"from": {f}, "to": {t}, "limit": {"100"}})
		}},
		{"tweets 1 min", func(r *rand.Rand) string {
			f, t := span(r, time.Minute)
			return "/api/tweets?" + q(url.Values{"from": {f}, "to": {t}})
		}},
		{"tweets 10 min", func(r *rand.Rand) string {
			f, t := span(r, 10*time.Minute)
			return "/api/tweets?" + q(url.Values{"from": {f}, "to": {t}})
		}},
		{"users top 10 1h", func(r *rand.Rand) string {
			f, t := hour(r)
			return "/api/users?" + q(url.Values{"from": {f}, "to": {t}, "top": {"10"}})
		}},
	}
}
