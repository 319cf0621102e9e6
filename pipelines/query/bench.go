package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// BenchOptions tune Bench.
type BenchOptions struct {
	// Repeat is how many times each index answer is timed; the fastest
	// counts (1 if 0). A scan is timed once: it takes seconds.
	Repeat int
	// Seed picks the box around one of the sampled geotagged tweets.
	Seed uint64
	// Progress, if set, is called with each question's result as soon as
	// it is answered.
	Progress func(BenchResult)
}

// BenchResult is one question of the benchmark: its answer's size, the
// time to answer it from the indexes and by a full scan of the raw table,
// and whether the two answers are the same.
type BenchResult struct {
	Number   int
	Question string
	// Size is the count (counting questions), the number of tweets
	// (retrievals), points (series) or users (distribution).
	Size        int64
	Index, Scan time.Duration
	Same        bool
}

// SpeedUp is Scan / Index.
func (r BenchResult) SpeedUp() float64 { return float64(r.Scan) / float64(max(r.Index, 1)) }

// benchQuestion is a question answered both ways; each returns the answer
// rendered for comparison and its size.
type benchQuestion struct {
	number      int
	text        string
	index, scan func(context.Context) (string, int64, error)
}

// Bench answers the ten questions of the seed thesis (and, as 11, the
// Or of question 7's terms; as 12 and 13, the retweet and hashtag
// networks, where the sink has the edge table; as 14 to 17, top hashtags
// and words, trending hashtags and a completion, where it has the per-day
// term counts) from the indexes
// (with e) and by a full scan of the raw table, on whatever the tables hold, and times
// both. The ranges are cut from the data's extent (its middle hour, the
// six and 24 hours around it, all of it); the terms and the box are picked
// from the tweets of the middle hour.
func Bench(ctx context.Context, e *Engine, o BenchOptions) ([]BenchResult, error) {
	qs, err := benchQuestions(ctx, e, o.Seed)
	if err != nil {
		return nil, err
	}
	repeat := max(o.Repeat, 1)
	var out []BenchResult
	for _, q := range qs {
		res := BenchResult{Number: q.number, Question: q.text}
		var idx string
		for i := 0; i < repeat; i++ {
			start := time.Now()
			a, n, err := q.index(ctx)
			d := time.Since(start)
			if err != nil {
				return out, fmt.Errorf("question %d from the indexes: %w", q.number, err)
			}
			if i == 0 || d < res.Index {
				res.Index = d
			}
			idx, res.Size = a, n
		}
		start := time.Now()
		a, _, err := q.scan(ctx)
		res.Scan = time.Since(start)
		if err != nil {
			return out, fmt.Errorf("question %d by a scan: %w", q.number, err)
		}
		res.Same = a == idx
		if o.Progress != nil {
			o.Progress(res)
		}
		out = append(out, res)
	}
	return out, nil
}

// BenchSetup is what the questions of Bench ask about, cut from the data:
// its middle hour, the six and 24 hours around it, all of it, a term found
// in about one tweet in twenty of the middle hour (Term) and the term most
// often with it (Term2), and a box of 20 by 10 degrees around one of the
// hour's geotagged tweets. Another database given the same setup can be
// asked the same questions (testdata/postgres).
type BenchSetup struct {
	All, Hour, Six, Day Filter
	Term, Term2         string
	Box                 Box
}

// NewBenchSetup picks the setup of Bench from what the tables hold; seed
// picks the box's tweet.
func NewBenchSetup(ctx context.Context, e *Engine, seed uint64) (BenchSetup, error) {
	from, to, err := e.Extent(ctx)
	if err != nil {
		return BenchSetup{}, err
	}
	if from.IsZero() {
		return BenchSetup{}, errors.New("the tables hold no tweets: index some first")
	}
	mid := from.Add(to.Sub(from) / 2).Truncate(time.Hour)
	b := BenchSetup{
		Hour: Filter{From: mid, To: mid.Add(time.Hour)},
		Six:  Filter{From: mid.Add(-3 * time.Hour), To: mid.Add(3 * time.Hour)},
		Day:  Filter{From: mid.Add(-12 * time.Hour), To: mid.Add(12 * time.Hour)},
	}
	s, err := sampleHour(ctx, e, b.Hour, seed)
	if err != nil {
		return BenchSetup{}, err
	}
	b.Term, b.Term2, b.Box = s.term, s.term2, s.box
	return b, nil
}

// benchQuestions returns the questions of Bench on the setup NewBenchSetup
// picks.
func benchQuestions(ctx context.Context, e *Engine, seed uint64) ([]benchQuestion, error) {
	sc := Scanner{R: e.R}
	b, err := NewBenchSetup(ctx, e, seed)
	if err != nil {
		return nil, err
	}
	all, hour, six, day := b.All, b.Hour, b.Six, b.Day
	s := benchSample{term: b.Term, term2: b.Term2, box: b.Box}
	geoKeys := func(hits []GeoHit) []schemas.RowKey {
		k := make([]schemas.RowKey, len(hits))
		for i, h := range hits {
			k[i] = h.Key
		}
		return k
	}
	retrieve := func(run func(emit func(Hit) error) error) (string, int64, error) {
		var keys []schemas.RowKey
		err := run(func(h Hit) error { keys = append(keys, h.Key); return nil })
		return fmt.Sprint(keys), int64(len(keys)), err
	}
	scanned := func(keys []schemas.RowKey, err error) (string, int64, error) {
		return fmt.Sprint(keys), int64(len(keys)), err
	}
	count := func(n int64, err error) (string, int64, error) { return fmt.Sprint(n), n, err }
	series := func(p []Point, err error) (string, int64, error) { return fmt.Sprint(p), int64(len(p)), err }
	users := func(d []UserShare, err error) (string, int64, error) {
		var n int64
		for _, u := range d {
			n += u.Users
		}
		return fmt.Sprint(d), n, err
	}
	export := func(n int64, w *lineHash, err error) (string, int64, error) {
		return fmt.Sprint(n, w.sum, w.bytes), n, err
	}
	box := s.box
	qs := []benchQuestion{
		{1, "count tweets (6 hours)",
			func(ctx context.Context) (string, int64, error) { return count(e.Count(ctx, six)) },
			func(ctx context.Context) (string, int64, error) { return count(sc.Count(ctx, six)) }},
		{2, "count geotagged tweets in " + box.String() + " (all)",
			func(ctx context.Context) (string, int64, error) { return count(e.CountGeo(ctx, all, &box)) },
			func(ctx context.Context) (string, int64, error) {
				h, err := sc.Geo(ctx, all, &box)
				return count(int64(len(h)), err)
			}},
		{3, "tweets per hour (all)",
			func(ctx context.Context) (string, int64, error) { return series(e.Series(ctx, all, time.Hour)) },
			func(ctx context.Context) (string, int64, error) { return series(sc.Series(ctx, all, time.Hour)) }},
		{4, fmt.Sprintf("count tweets with %q (all)", s.term),
			func(ctx context.Context) (string, int64, error) { return count(e.CountTerm(ctx, all, s.term, "text")) },
			func(ctx context.Context) (string, int64, error) { return count(sc.CountTerm(ctx, all, s.term, "text")) }},
		{5, "geotagged tweets in " + box.String() + " (24 hours)",
			func(ctx context.Context) (string, int64, error) {
				return retrieve(func(emit func(Hit) error) error { return e.Geo(ctx, day, &box, Page{}, emit) })
			},
			func(ctx context.Context) (string, int64, error) {
				h, err := sc.Geo(ctx, day, &box)
				return scanned(geoKeys(h), err)
			}},
		{6, "tweets (1 hour)",
			func(ctx context.Context) (string, int64, error) {
				return retrieve(func(emit func(Hit) error) error { return e.Tweets(ctx, hour, Page{}, emit) })
			},
			func(ctx context.Context) (string, int64, error) { return scanned(sc.Tweets(ctx, hour)) }},
		{7, fmt.Sprintf("tweets with %q AND %q (all)", s.term, s.term2),
			func(ctx context.Context) (string, int64, error) {
				return retrieve(func(emit func(Hit) error) error {
					return e.Terms(ctx, all, []string{s.term, s.term2}, And, "text", Page{}, emit)
				})
			},
			func(ctx context.Context) (string, int64, error) {
				return scanned(sc.Terms(ctx, all, []string{s.term, s.term2}, And, "text"))
			}},
		{8, fmt.Sprintf("tweets with %q (6 hours)", s.term),
			func(ctx context.Context) (string, int64, error) {
				return retrieve(func(emit func(Hit) error) error {
					return e.Terms(ctx, six, []string{s.term}, And, "text", Page{}, emit)
				})
			},
			func(ctx context.Context) (string, int64, error) {
				return scanned(sc.Terms(ctx, six, []string{s.term}, And, "text"))
			}},
		{9, "export tweets as JSON lines (1 hour)",
			func(ctx context.Context) (string, int64, error) {
				w := &lineHash{}
				n, err := e.Export(ctx, hour, w)
				return export(n, w, err)
			},
			func(ctx context.Context) (string, int64, error) {
				w := &lineHash{}
				n, err := sc.Export(ctx, hour, w)
				return export(n, w, err)
			}},
		{10, "tweets per user (6 hours)",
			func(ctx context.Context) (string, int64, error) { return users(e.Users(ctx, six)) },
			func(ctx context.Context) (string, int64, error) { return users(sc.Users(ctx, six)) }},
		{11, fmt.Sprintf("tweets with %q OR %q (all)", s.term, s.term2),
			func(ctx context.Context) (string, int64, error) {
				return retrieve(func(emit func(Hit) error) error {
					return e.Terms(ctx, all, []string{s.term, s.term2}, Or, "text", Page{}, emit)
				})
			},
			func(ctx context.Context) (string, int64, error) {
				return scanned(sc.Terms(ctx, all, []string{s.term, s.term2}, Or, "text"))
			}},
	}
	// The network, where the sink has the edge table.
	if _, ok, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgesParam)); err != nil {
		return nil, err
	} else if ok {
		edges := func(v []Edge, err error) (string, int64, error) { return fmt.Sprint(v), int64(len(v)), err }
		for i, typ := range []schemas.EdgeType{schemas.EdgeRetweet, schemas.EdgeHashtag} {
			q := EdgeQuery{Type: typ}
			qs = append(qs, benchQuestion{12 + i, typ.Name() + " edges (all)",
				func(ctx context.Context) (string, int64, error) { return edges(e.Edges(ctx, all, q)) },
				func(ctx context.Context) (string, int64, error) { return edges(sc.Edges(ctx, all, q)) }})
		}
	}
	// Top and trending terms and completion, where the sink has the
	// per-day term counts: the top 20 hashtags and words of all the data,
	// the trending hashtags of its last day against the day before, and
	// the hashtags that complete the first two letters of the top one.
	if _, ok, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.TermDaysParam)); err != nil {
		return nil, err
	} else if ok {
		terms := func(v []TermCount, err error) (string, int64, error) { return fmt.Sprint(v), int64(len(v)), err }
		trends := func(v []Trend, err error) (string, int64, error) { return fmt.Sprint(v), int64(len(v)), err }
		for i, field := range []string{schemas.TermFieldHashtag, schemas.TermFieldText} {
			q := TopQuery{Field: field, Limit: 20}
			qs = append(qs, benchQuestion{14 + i, "top 20 " + field + " terms (all)",
				func(ctx context.Context) (string, int64, error) { return terms(e.Top(ctx, all, q)) },
				func(ctx context.Context) (string, int64, error) { return terms(sc.Top(ctx, all, q)) }})
		}
		from, to, err := e.Extent(ctx)
		if err != nil {
			return nil, err
		}
		last := WholeDays(Filter{From: to.Add(-time.Second), To: to})
		base := Baseline(last)
		if !from.IsZero() && from.Before(last.From) {
			q := TopQuery{Field: schemas.TermFieldHashtag, Limit: 20}
			qs = append(qs, benchQuestion{16, "trending hashtags (last day against the day before)",
				func(ctx context.Context) (string, int64, error) { return trends(e.Trending(ctx, last, base, q)) },
				func(ctx context.Context) (string, int64, error) { return trends(sc.Trending(ctx, last, base, q)) }})
		}
		top, err := e.Top(ctx, all, TopQuery{Field: schemas.TermFieldHashtag, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(top) > 0 {
			q := TopQuery{Field: schemas.TermFieldHashtag, Prefix: string([]rune(top[0].Term)[:min(3, len([]rune(top[0].Term)))]), Limit: 10}
			qs = append(qs, benchQuestion{17, fmt.Sprintf("complete %q (all)", q.Prefix),
				func(ctx context.Context) (string, int64, error) { return terms(e.Top(ctx, all, q)) },
				func(ctx context.Context) (string, int64, error) { return terms(sc.Top(ctx, all, q)) }})
		}
	}
	return qs, nil
}

// lineHash hashes lines written to it, in any order: the sum of their
// FNV-1a hashes, so that an export read in another order compares equal.
type lineHash struct {
	line  []byte
	sum   uint64
	bytes int64
}

func (l *lineHash) Write(p []byte) (int, error) {
	l.bytes += int64(len(p))
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.line = append(l.line, p...)
			break
		}
		h := fnv.New64a()
		if len(l.line) > 0 {
			h.Write(l.line)
			l.line = l.line[:0]
		}
		h.Write(p[:i])
		l.sum += h.Sum64()
		p = p[i+1:]
	}
	return n, nil
}

// benchSample is what Bench picks from the data.
type benchSample struct {
	term, term2 string
	box         Box
}

// sampleHour reads the tweets of one hour and picks a term in about one
// tweet in twenty (and the term most often with it) and a box of 20 by 10
// degrees around one of the geotagged tweets.
func sampleHour(ctx context.Context, e *Engine, f Filter, seed uint64) (benchSample, error) {
	var s benchSample
	df := map[string]int{}
	var tweets [][]string
	var points [][2]float64
	var scratch []transforms.Term
	err := e.Tweets(ctx, f, Page{Limit: 20000}, func(h Hit) error {
		t, err := h.Tweet()
		if err != nil {
			return err
		}
		scratch = transforms.TweetTerms(scratch[:0], t)
		var terms []string
		for _, t := range scratch {
			if !slices.Contains(terms, t.Term) {
				terms = append(terms, t.Term)
				df[t.Term]++
			}
		}
		tweets = append(tweets, terms)
		if t.HasPoint {
			points = append(points, [2]float64{t.Lat, t.Lon})
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	if len(tweets) == 0 {
		return s, fmt.Errorf("no tweets in %s..%s to pick terms from", f.From.Format(time.RFC3339), f.To.Format(time.RFC3339))
	}
	target := len(tweets) / 20
	best := -1
	for t, n := range df {
		d := abs(n - target)
		if best < 0 || d < best || (d == best && t < s.term) {
			s.term, best = t, d
		}
	}
	co := map[string]int{}
	for _, terms := range tweets {
		if slices.Contains(terms, s.term) {
			for _, t := range terms {
				if t != s.term {
					co[t]++
				}
			}
		}
	}
	for t, n := range co {
		if s.term2 == "" || n > co[s.term2] || (n == co[s.term2] && t < s.term2) {
			s.term2 = t
		}
	}
	if s.term2 == "" {
		s.term2 = s.term
	}
	s.box = Box{MinLon: -10, MinLat: 35, MaxLon: 10, MaxLat: 45}
	if len(points) > 0 {
		p := points[seed%uint64(len(points))]
		p[0], p[1] = math.Round(p[0]), math.Round(p[1]) // a box that reads well
		s.box = Box{
			MinLon: max(p[1]-10, -180), MaxLon: min(p[1]+10, 180),
			MinLat: max(p[0]-5, -90), MaxLat: min(p[0]+5, 90),
		}
	}
	return s, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
