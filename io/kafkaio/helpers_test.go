package kafkaio

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/schemas"
)

func TestMain(m *testing.M) {
	ptest.Main(m)
}

func init() {
	register.DoFn2x0[beam.EventTime, []schemas.Record](&collectFn{})
}

// collectFn hands every batch it sees to the in-process sink named Key.
// Prism runs the SDK worker inside the test process, so the test reads
// what the pipeline emitted, while it runs.
type collectFn struct {
	Key string
}

func (f *collectFn) ProcessElement(et beam.EventTime, batch []schemas.Record) {
	sinkFor(f.Key).add(et, batch)
}

// batch is one element a read emitted.
type batch struct {
	ts   beam.EventTime
	recs []schemas.Record
}

// sink collects the batches of one test's pipeline.
type sink struct {
	mu      sync.Mutex
	batches []batch
	n       int
	notify  chan struct{} // closed and replaced on every add

	// holdAt, when > 0, makes the add that brings the count of records to
	// holdAt or past it close reached and wait for release: the pipeline
	// stops mid-read until the test lets it go on.
	holdAt  int
	reached chan struct{}
	release chan struct{}
}

var (
	sinksMu sync.Mutex
	sinks   = map[string]*sink{}
)

func sinkFor(key string) *sink {
	sinksMu.Lock()
	defer sinksMu.Unlock()
	s, ok := sinks[key]
	if !ok {
		s = &sink{notify: make(chan struct{})}
		sinks[key] = s
	}
	return s
}

// newSink returns an empty sink with a key unique to the test.
func newSink(t testing.TB) (string, *sink) {
	key := fmt.Sprintf("%s#%d", t.Name(), time.Now().UnixNano())
	return key, sinkFor(key)
}

func (s *sink) add(et beam.EventTime, recs []schemas.Record) {
	cp := make([]schemas.Record, len(recs))
	for i, r := range recs {
		cp[i] = r
		cp[i].Data = slices.Clone(r.Data)
	}
	s.mu.Lock()
	before := s.n
	s.batches = append(s.batches, batch{et, cp})
	s.n += len(cp)
	close(s.notify)
	s.notify = make(chan struct{})
	hold := s.holdAt > 0 && before < s.holdAt && s.n >= s.holdAt
	reached, release := s.reached, s.release
	s.mu.Unlock()
	if hold {
		close(reached)
		<-release
	}
}

// holdAfter makes the pipeline wait inside the sink once it has seen n
// records; the returned channels say when it got there and let it go on.
func (s *sink) holdAfter(n int) (reached <-chan struct{}, release chan<- struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holdAt, s.reached, s.release = n, make(chan struct{}), make(chan struct{})
	return s.reached, s.release
}

// waitFor waits until cond holds over the collected batches, or fails the
// test after timeout.
func (s *sink) waitFor(t testing.TB, timeout time.Duration, what string, cond func([]batch) bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok := cond(s.batches)
		notify := s.notify
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-notify:
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

// snapshot returns the batches collected so far.
func (s *sink) snapshot() []batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.batches)
}

// lines renders every collected record as "SOURCE:OFFSET=VALUE", sorted.
func lines(bs []batch) []string {
	var out []string
	for _, b := range bs {
		for _, r := range b.recs {
			out = append(out, r.Origin.String()+"="+string(r.Data))
		}
	}
	sort.Strings(out)
	return out
}

// countRecords counts the records of bs.
func countRecords(bs []batch) int {
	n := 0
	for _, b := range bs {
		n += len(b.recs)
	}
	return n
}

// value is the test value of a partition's offset.
func value(p int, offset int64) []byte { return []byte(fmt.Sprintf(`{"p":%d,"o":%d}`, p, offset)) }

// values returns value(p, o) for o in [from, to).
func values(p int, from, to int64) [][]byte {
	var out [][]byte
	for o := from; o < to; o++ {
		out = append(out, value(p, o))
	}
	return out
}

// want renders the records of topic's partitions between the offsets of
// ranges (partition to [from, to)) as lines does.
func want(topic string, ranges map[int][2]int64) []string {
	var out []string
	for p, r := range ranges {
		for o := r[0]; o < r[1]; o++ {
			out = append(out, fmt.Sprintf("kafka:%s/%d:%d=%s", topic, p, o, value(p, o)))
		}
	}
	sort.Strings(out)
	return out
}

// diffLines describes how got differs from want: missing and unexpected
// lines, and duplicates.
func diffLines(got, want []string) string {
	count := map[string]int{}
	for _, g := range got {
		count[g]++
	}
	var b strings.Builder
	for _, w := range want {
		if count[w] == 0 {
			fmt.Fprintf(&b, "missing %s\n", w)
		}
		count[w]--
	}
	for l, n := range count {
		switch {
		case n > 0 && slices.Contains(want, l):
			fmt.Fprintf(&b, "duplicated %d more times: %s\n", n, l)
		case n > 0:
			fmt.Fprintf(&b, "unexpected %s\n", l)
		}
	}
	s := b.String()
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return s
}

// readPipeline builds a pipeline that reads cfg into the sink named key.
func readPipeline(cfg Config, key string) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	beam.ParDo0(s, &collectFn{Key: key}, Read(s, cfg))
	return p
}

// counter returns the committed (or attempted) value of a counter of res.
func counter(res beam.PipelineResult, name string) int64 {
	var n int64
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Key.Namespace == Namespace && c.Key.Name == name {
			n += c.Result()
		}
	}
	return n
}
