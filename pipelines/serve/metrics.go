package serve

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Metrics are the server's counts in the Prometheus text exposition format
// (version 0.0.4), written by hand as the runs' are: a request counter per
// question and status, and a latency histogram per question (from the
// request's arrival to the answer's last byte).
type Metrics struct {
	mu       sync.Mutex
	started  time.Time
	requests map[requestKey]int64
	latency  map[string]*histogram
	inFlight int64
	waiting  int64
}

type requestKey struct {
	question string
	code     int
}

// latencyBuckets are the histograms' upper bounds, in seconds.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

type histogram struct {
	counts []int64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      int64
}

func newMetrics() *Metrics {
	return &Metrics{started: time.Now(), requests: map[requestKey]int64{}, latency: map[string]*histogram{}}
}

// observe counts one request to question answered with code in d.
func (m *Metrics) observe(question string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[requestKey{question, code}]++
	h := m.latency[question]
	if h == nil {
		h = &histogram{counts: make([]int64, len(latencyBuckets)+1)}
		m.latency[question] = h
	}
	s := d.Seconds()
	i, _ := slices.BinarySearch(latencyBuckets, s)
	h.counts[i]++
	h.sum += s
	h.n++
}

// gauges adds d to the questions being answered and w to those waiting
// for a slot.
func (m *Metrics) gauges(d, w int64) {
	m.mu.Lock()
	m.inFlight += d
	m.waiting += w
	m.mu.Unlock()
}

// write writes the exposition.
func (m *Metrics) write(out io.Writer, snapshotAge time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := bufio.NewWriter(out)
	defer w.Flush()
	family := func(name, typ, help string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	keys := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b requestKey) int {
		if a.question != b.question {
			if a.question < b.question {
				return -1
			}
			return 1
		}
		return a.code - b.code
	})
	family("tweetindex_http_requests_total", "counter", "Requests answered, per question (or page: healthz, metrics, openapi, web) and HTTP status.")
	for _, k := range keys {
		fmt.Fprintf(w, "tweetindex_http_requests_total{question=%q,code=\"%d\"} %d\n", k.question, k.code, m.requests[k])
	}
	names := make([]string, 0, len(m.latency))
	for q := range m.latency {
		names = append(names, q)
	}
	slices.Sort(names)
	family("tweetindex_http_request_duration_seconds", "histogram", "Time from a request's arrival to its answer's last byte, per question.")
	for _, q := range names {
		h := m.latency[q]
		var cum int64
		for i, le := range latencyBuckets {
			cum += h.counts[i]
			fmt.Fprintf(w, "tweetindex_http_request_duration_seconds_bucket{question=%q,le=%q} %d\n", q, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		fmt.Fprintf(w, "tweetindex_http_request_duration_seconds_bucket{question=%q,le=\"+Inf\"} %d\n", q, h.n)
		fmt.Fprintf(w, "tweetindex_http_request_duration_seconds_sum{question=%q} %g\n", q, h.sum)
		fmt.Fprintf(w, "tweetindex_http_request_duration_seconds_count{question=%q} %d\n", q, h.n)
	}
	family("tweetindex_http_in_flight", "gauge", "Questions being answered.")
	fmt.Fprintf(w, "tweetindex_http_in_flight %d\n", m.inFlight)
	family("tweetindex_http_waiting", "gauge", "Questions waiting for one of the --max-inflight slots.")
	fmt.Fprintf(w, "tweetindex_http_waiting %d\n", m.waiting)
	if snapshotAge >= 0 {
		family("tweetindex_serve_snapshot_age_seconds", "gauge", "Age of the snapshot of a store a stream is writing that questions are answered from.")
		fmt.Fprintf(w, "tweetindex_serve_snapshot_age_seconds %g\n", snapshotAge.Seconds())
	}
	family("tweetindex_run_seconds", "gauge", "Seconds since the server started.")
	fmt.Fprintf(w, "tweetindex_run_seconds %g\n", time.Since(m.started).Seconds())
}
