package tweetgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// The bench data set: n realistic v1.1 stream tweets as JSON lines, as the
// streaming API delivered them and stream-grab archives hold them (full
// user objects, entities, extended_tweet, timestamp_ms, \u escapes).
//
// Every tweet is a pure function of (seed, its index), so files can be
// written in parallel and a duplicate is made by generating an earlier
// index again: byte for byte the same line.

// BenchConfig configures WriteBench.
type BenchConfig struct {
	// N is how many tweet items to write, duplicate copies included.
	N int
	// Seed seeds the generator: the same Seed writes the same bytes.
	Seed uint64
	// Out is the directory to write to (created if needed). Tweet files
	// of an earlier bench in it are removed first.
	Out string
	// Files is how many files to write (0: one per 10,000 tweets).
	Files int
	// Gzip gzips the files (.jsonl.gz).
	Gzip bool
	// Span is how much time the tweets' created_at spread over, from
	// 2026-11-01T12:00Z (0: DefaultBenchSpan).
	Span time.Duration
}

// Validate reports whether c can be written.
func (c BenchConfig) Validate() error {
	switch {
	case c.Out == "":
		return errors.New("bench: Out (the directory to write, -out) is required")
	case c.N <= 0:
		return errors.New("bench: N (-n) must be positive")
	case c.Files < 0 || c.Span < 0:
		return errors.New("bench: Files (-files) and Span (-span) must not be negative")
	}
	return nil
}

// DefaultBenchSpan is how much time the bench's tweets span by default.
const DefaultBenchSpan = time.Hour

// benchOptions is a BenchConfig with Files set.
type benchOptions struct {
	n     int
	seed  uint64
	out   string
	files int
	gzip  bool
	span  time.Duration // the tweets' created_at spread (DefaultBenchSpan if 0)
}

// benchMix is the bench's share of tweet kinds (per mille): 30% retweets;
// 2% of all tweets point-tagged (coordinates + geo + place) and 1% with
// only a place (retweets carry no location of their own, hence the
// shares of the other 70% are 29 and 14 per mille).
var benchMix = mix{langs: streamLangs, retweet: 300, extended: 100, reply: 100, quote: 40, geoPoint: 29, geoPlace: 14}

// benchStart is when the bench's tweets begin.
var benchStart = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// benchDupPerMille is the share of items that repeat an earlier tweet.
const benchDupPerMille = 10

// benchUsers is the size of the bench's user population for n tweets.
func benchUsers(n int) int { return 20_000 + n/2 }

// benchGen generates the bench's tweets. Each worker has its own.
type benchGen struct {
	seed    uint64
	n       int
	startMS int64
	spanMS  int64
	users   int
	pcg     rand.PCG
	upcg    rand.PCG
	ur      *rand.Rand
	b       builder
	// langStart[i] is the first user index writing in streamLangs[i].
	langStart []int
}

func newBenchGen(seed uint64, n int) *benchGen {
	g := &benchGen{seed: seed, n: n, startMS: benchStart.UnixMilli(), spanMS: DefaultBenchSpan.Milliseconds(), users: benchUsers(n)}
	if int64(n) > g.spanMS {
		g.spanMS = int64(n) // at least 1 ms apart, so that ids stay unique
	}
	g.b.r = rand.New(&g.pcg)
	g.ur = rand.New(&g.upcg)
	acc := 0
	for _, w := range streamLangs {
		g.langStart = append(g.langStart, acc*g.users/1000)
		acc += w.weight
	}
	g.langStart = append(g.langStart, g.users)
	g.b.author = g.author
	g.b.anyone = func() *user { return g.user(g.skewed(0, g.users)) }
	return g
}

// skewed returns an index in [lo, hi), low ones more often (a few users
// tweet a lot).
func (g *benchGen) skewed(lo, hi int) int {
	x := g.b.r.Float64()
	return lo + int(float64(hi-lo)*x*x)
}

// author returns a user who writes in l.
func (g *benchGen) author(l *language) *user {
	for i, w := range streamLangs {
		if langsByTag[w.tag] == l {
			return g.user(g.skewed(g.langStart[i], g.langStart[i+1]))
		}
	}
	return g.user(g.skewed(0, g.users))
}

// user returns user k of the population: the same user every time.
func (g *benchGen) user(k int) *user {
	g.upcg.Seed(g.seed^0x75736572, uint64(k))
	tag := "en"
	for i, w := range streamLangs {
		if k >= g.langStart[i] && k < g.langStart[i+1] {
			tag = w.tag
			break
		}
	}
	return newUser(g.ur, langsByTag[tag], k)
}

// isDup reports whether item i repeats an earlier tweet.
func (g *benchGen) isDup(i int) bool {
	if i < 10 {
		return false
	}
	return splitmix(g.seed^uint64(i)*0x9E3779B97F4A7C15)%1000 < benchDupPerMille
}

// splitmix is the SplitMix64 finalizer.
func splitmix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// tweet returns tweet i (not a duplicate).
func (g *benchGen) tweet(i int) *tweet {
	g.pcg.Seed(g.seed, uint64(i))
	slot := int64(i) * g.spanMS / int64(g.n)
	spacing := g.spanMS / int64(g.n)
	ms := g.startMS + slot
	if spacing > 1 {
		ms += g.b.r.Int64N(spacing)
	}
	return g.b.make(ms, &benchMix)
}

// source returns the index of the tweet that duplicate item i repeats:
// one of the 5,000 before it, possibly in an earlier file.
func (g *benchGen) source(i int) int {
	g.pcg.Seed(g.seed^0x647570, uint64(i))
	q := i - 1 - g.b.r.IntN(min(i, 5000))
	for q > 0 && g.isDup(q) {
		q--
	}
	return q
}

// WriteBench writes the bench data set, c.N realistic v1.1 stream tweets
// as JSON lines, and its oracle, c.Out/EXPECTED.json; it returns the
// oracle and the bytes of tweets written (before compression). Files are
// written in parallel, on every core; it stops early with ctx's error if
// ctx ends.
func WriteBench(ctx context.Context, c BenchConfig) (*Expected, int64, error) {
	if err := c.Validate(); err != nil {
		return nil, 0, err
	}
	o := benchOptions{n: c.N, seed: c.Seed, out: c.Out, files: c.Files, gzip: c.Gzip, span: c.Span}
	if o.files <= 0 {
		o.files = (o.n + 9_999) / 10_000
	}
	o.files = min(o.files, o.n)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, 0, err
	}
	// Files of an earlier run with more files would join the input.
	stale, _ := filepath.Glob(filepath.Join(o.out, "tweets-*.jsonl*"))
	for _, s := range stale {
		if err := os.Remove(s); err != nil {
			return nil, 0, err
		}
	}
	type result struct {
		y     *tally
		fc    FileCount
		bytes int64
		err   error
	}
	results := make([]result, o.files)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), o.files); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newBenchGen(o.seed, o.n)
			if o.span > 0 {
				g.spanMS = max(o.span.Milliseconds(), int64(o.n))
			}
			for f := range jobs {
				r := &results[f]
				r.y, r.fc, r.bytes, r.err = g.writeFile(ctx, o, f)
			}
		}()
	}
	for f := 0; f < o.files; f++ {
		jobs <- f
	}
	close(jobs)
	wg.Wait()

	y := newTally()
	var files []FileCount
	var total int64
	for _, r := range results {
		if r.err != nil {
			return nil, 0, r.err
		}
		y.merge(r.y)
		files = append(files, r.fc)
		total += r.bytes
	}
	cmd := fmt.Sprintf("go run ./testdata/gen bench -n %d -seed %d -out %s -files %d", o.n, o.seed, o.out, o.files)
	if o.span > 0 {
		cmd += " -span " + o.span.String()
	}
	if o.gzip {
		cmd += " -gzip"
	}
	e := y.expected(cmd, o.seed, files)
	if err := e.check(); err != nil {
		return nil, 0, fmt.Errorf("generator bug: %w", err)
	}
	return e, total, writeExpected(e, filepath.Join(o.out, "EXPECTED.json"))
}

// benchFileName returns the name of file f.
func benchFileName(f int, gz bool) string {
	name := fmt.Sprintf("tweets-%03d.jsonl", f)
	if gz {
		name += ".gz"
	}
	return name
}

// writeFile writes file f: items [f*n/files, (f+1)*n/files).
func (g *benchGen) writeFile(ctx context.Context, o benchOptions, f int) (*tally, FileCount, int64, error) {
	name := benchFileName(f, o.gzip)
	format := "JSON lines"
	if o.gzip {
		format = "JSON lines, gzip"
	}
	fc := FileCount{Name: name, Format: format}
	y := newTally()
	file, err := os.Create(filepath.Join(o.out, name))
	if err != nil {
		return nil, fc, 0, err
	}
	defer file.Close()
	w := bufio.NewWriterSize(file, 1<<20)
	var zw *gzip.Writer
	var out io.Writer = w
	if o.gzip {
		zw, _ = gzip.NewWriterLevel(w, gzip.DefaultCompression)
		out = zw
	}
	var (
		buf   []byte
		bytes int64
		st    = styleStream
	)
	lo, hi := f*o.n/o.files, (f+1)*o.n/o.files
	for i := lo; i < hi; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, fc, 0, fmt.Errorf("write %s: %w", name, ctx.Err())
		}
		y.read++
		fc.Read++
		fc.Tweets++
		var t *tweet
		if g.isDup(i) {
			y.dups++
			t = g.tweet(g.source(i))
		} else {
			t = g.tweet(i)
			y.indexed(t)
		}
		buf = appendV1Tweet(buf[:0], t, st)
		buf = append(buf, '\n')
		bytes += int64(len(buf))
		if _, err := out.Write(buf); err != nil {
			return nil, fc, 0, fmt.Errorf("write %s: %w", name, err)
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return nil, fc, 0, fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := w.Flush(); err != nil {
		return nil, fc, 0, fmt.Errorf("write %s: %w", name, err)
	}
	if err := file.Close(); err != nil {
		return nil, fc, 0, fmt.Errorf("write %s: %w", name, err)
	}
	return y, fc, bytes, nil
}
