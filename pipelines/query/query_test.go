package query_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/testdata/gen/tweetgen"
	"github.com/tweetindex/tweetindex/transforms"
)

func TestMain(m *testing.M) {
	code := ptest.MainRet(m)
	for _, dir := range []string{dataDir, storeDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// The test data: tweets the project has never seen (the bench generator
// at a seed no other test uses, over three days) and a file of points on
// the antimeridian and near the poles. Under -short (where only
// TestPagesResume uses it) a tenth as many tweets.
const (
	dataSeed        = 4242
	dataTweets      = 6_000
	dataTweetsShort = 600
)

var dataStart = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) // the generator's start

// edgePoints are (lat, lon) of tweets the generator does not make.
var edgePoints = [][2]float64{
	{-17.8, 179.9}, {-17.9, -179.95}, {65.1, -179.99}, {65.2, 180}, {51.5, 179.5},
	{89.9, 10}, {89.99, -120}, {-89.5, 45}, {-90, 0}, {90, 180},
}

func edgeTweets() string {
	var b strings.Builder
	for i, p := range edgePoints {
		at := dataStart.Add(time.Duration(i) * 7 * time.Hour)
		fmt.Fprintf(&b, `{"created_at":%q,"id_str":"%d","text":"edge point %d #far","lang":"en","user":{"name":"Edge","screen_name":"edge"},"coordinates":{"type":"Point","coordinates":[%g,%g]}}`+"\n",
			at.Format(time.RubyDate), 900000000000000000+i, i, p[1], p[0])
	}
	return b.String()
}

var (
	dataOnce sync.Once
	dataDir  string
	dataErr  error
)

// testData writes the input once per test binary and returns its directory.
func testData(t *testing.T) string {
	t.Helper()
	dataOnce.Do(func() {
		dataDir, dataErr = os.MkdirTemp("", "tweetindex-query-")
		if dataErr != nil {
			return
		}
		n := dataTweets
		if testing.Short() {
			n = dataTweetsShort
		}
		c := tweetgen.BenchConfig{N: n, Seed: dataSeed, Span: 72 * time.Hour, Out: dataDir}
		if _, _, dataErr = tweetgen.WriteBench(context.Background(), c); dataErr != nil {
			return
		}
		os.Remove(filepath.Join(dataDir, "EXPECTED.json"))
		dataErr = os.WriteFile(filepath.Join(dataDir, "edge.jsonl"), []byte(edgeTweets()), 0o644)
	})
	if dataErr != nil {
		t.Fatal(dataErr)
	}
	return dataDir
}

// indexInto runs the pipeline over the test data into cfg's sink.
func indexInto(t *testing.T, cfg pipelines.Config) {
	t.Helper()
	cfg.Input = testData(t)
	if _, err := job.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
}

// indexedCassandra is a keyspace indexed on a CQL test server.
type indexedCassandra struct {
	Server *cassandratest.Server
	Config cassandraio.Config
	Reader *cassandraio.Reader
}

// indexCassandra indexes input into keyspace on a CQL test server started
// for the test, and opens a reader of it; server and reader are closed
// when the test ends.
func indexCassandra(t *testing.T, keyspace, input string) indexedCassandra {
	t.Helper()
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := cassandraio.DefaultConfig(srv.Addr())
	cfg.Keyspace = keyspace
	cfg.Consistency = "ONE"
	ctx := context.Background()
	if err := cassandraio.ApplySchema(ctx, cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(ctx, pipelines.Config{Input: input, Cassandra: &cfg}); err != nil {
		t.Fatal(err)
	}
	cr, err := cassandraio.NewReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cr.Close() })
	return indexedCassandra{Server: srv, Config: cfg, Reader: cr}
}

var (
	storeOnce sync.Once
	storeDir  string
)

// openStore indexes the test data into a store, once, and opens it.
func openStore(t *testing.T) sink.Reader {
	t.Helper()
	storeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tweetindex-query-store-")
		if err != nil {
			t.Fatal(err)
		}
		indexInto(t, pipelines.Config{Store: dir})
		storeDir = dir
	})
	if storeDir == "" {
		t.Fatal("indexing the test data failed")
	}
	st, err := storeio.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// questions returns the questions the index and the scan must answer
// alike, built from the data itself (terms of some tweets, boxes around
// some points), so that they have answers.
type questions struct {
	filters []query.Filter
	terms   [][2]string // term, field
	ands    [][]string
	phrases []string // cut from the tweets (pickPhrases)
	boxes   []*query.Box
	// nodes are a node of each kind of edge whose edges are asked for.
	nodes map[schemas.EdgeType]string
	// prefixes are prefixes of terms to complete, with their fields.
	prefixes [][2]string
}

func pickQuestions(t *testing.T, r sink.Reader) questions {
	t.Helper()
	ctx := context.Background()
	var q questions
	day := 24 * time.Hour
	q.filters = []query.Filter{
		{},
		{From: dataStart.Add(6 * time.Hour), To: dataStart.Add(18 * time.Hour)},
		{From: dataStart.Add(day + 90*time.Minute), To: dataStart.Add(day + 3*time.Hour + 7*time.Minute)},
		{Lang: "en"},
		{From: dataStart.Add(day), To: dataStart.Add(2 * day), Lang: "ja"},
		{From: dataStart.Add(-day), To: dataStart.Add(-time.Hour)}, // before the data: nothing
		// Mid-minute ends: exact to the second.
		{From: dataStart.Add(day + 6*time.Hour + 15*time.Second), To: dataStart.Add(day + 6*time.Hour + 45*time.Second)},
		{From: dataStart.Add(20*time.Hour + 59*time.Second), To: dataStart.Add(23*time.Hour + 30*time.Minute + time.Second)},
		{From: dataStart.Add(30*time.Hour + 10*time.Second), To: dataStart.Add(30*time.Hour + 70*time.Second), Lang: "en"},
	}
	// Terms of a few tweets: their first and last text terms, their user term.
	sc := query.Scanner{R: r}
	keys, err := sc.Tweets(ctx, query.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, i := range []int{3, 70, 555, 2500, 5000} {
		v, ok, err := r.Lookup(ctx, schemas.TableRaw, keys[i][:])
		if err != nil || !ok {
			t.Fatalf("raw row %d: %v %v", i, ok, err)
		}
		var dec schemas.Decoder
		var out schemas.Decoded
		dec.Decode(schemas.Record{Data: v}, &out)
		tw := out.Tweets[0]
		text := transforms.Tokenize(nil, tw.Text)
		user := transforms.UserTerms(nil, tw.UserName, tw.ScreenName)
		for _, c := range [][2]string{{text[0].Term, "text"}, {text[len(text)-1].Term, "text"}, {user[0].Term, "user"}} {
			if !seen[c[0]+c[1]] {
				seen[c[0]+c[1]] = true
				q.terms = append(q.terms, c)
			}
		}
		if len(text) > 2 {
			q.ands = append(q.ands, []string{text[0].Term, text[len(text)/2].Term}, []string{text[0].Term, text[1].Term, text[len(text)-1].Term})
		}
	}
	q.terms = append(q.terms, [2]string{"#far", "text"}, [2]string{"Edge", "user"}, [2]string{"no-such-term", "text"})
	// Terms that tokenize to several tokens: a phrase, and a run of a
	// script without spaces out of a tweet (its bigrams).
	q.terms = append(q.terms, [2]string{"Edge Point", "text"}, [2]string{"EDGE", "text"}, [2]string{"!?", "text"})
	q.terms = append(q.terms, pickCJK(t, ctx, sc)...)
	q.ands = append(q.ands, []string{"edge", "far"}, []string{"rt", "the"})
	q.phrases = append(pickPhrases(t, ctx, r)[:6:6], "#far edge", "edge, point")
	// Nodes: the source of the heaviest edge of each kind, and the
	// target of the tenth, from the scan.
	q.nodes = map[schemas.EdgeType]string{}
	for _, typ := range schemas.EdgeTypes() {
		top, err := sc.Edges(ctx, query.Filter{}, query.EdgeQuery{Type: typ, Top: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(top) < 10 {
			t.Fatalf("%s edges: the scan finds %d: the data needs more", typ.Name(), len(top))
		}
		q.nodes[typ] = top[0].Source
		q.nodes[typ+100] = top[9].Target
	}
	// Prefixes: the first letters of the top hashtag, mention and word,
	// and of a user's name.
	for _, field := range []string{"hashtag", "mention", "text", "user"} {
		top, err := sc.Top(ctx, query.Filter{}, query.TopQuery{Field: field, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(top) < 5 {
			t.Fatalf("top %s: the scan finds %d terms: the data needs more", field, len(top))
		}
		q.prefixes = append(q.prefixes, [2]string{string([]rune(top[0].Term)[:2]), field}, [2]string{top[4].Term[:1], field})
	}
	// Boxes: around a few indexed points, the world, across the
	// antimeridian, around the poles.
	hits, err := sc.Geo(ctx, query.Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, len(hits) / 3, len(hits) / 2} {
		h := hits[i]
		q.boxes = append(q.boxes, &query.Box{MinLon: float64(h.Lon) - 3, MinLat: float64(h.Lat) - 2, MaxLon: float64(h.Lon) + 3, MaxLat: float64(h.Lat) + 2})
	}
	q.boxes = append(q.boxes, nil,
		&query.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90},
		&query.Box{MinLon: 179, MinLat: -20, MaxLon: -179, MaxLat: 70},   // across the antimeridian
		&query.Box{MinLon: -180, MinLat: 89, MaxLon: 180, MaxLat: 90},    // the north pole cap
		&query.Box{MinLon: 0, MinLat: -90, MaxLon: 90, MaxLat: -89},      // at the south pole
		&query.Box{MinLon: 2.2, MinLat: 48.8, MaxLon: 2.5, MaxLat: 48.9}, // small: Paris
	)
	return q
}

// pickCJK returns a few terms of four or more characters of a script
// written without spaces, cut from the tweets.
func pickCJK(t *testing.T, ctx context.Context, sc query.Scanner) [][2]string {
	t.Helper()
	var out [][2]string
	err := sc.R.ScanAll(ctx, schemas.TableRaw, func(_, v []byte) error {
		var dec schemas.Decoder
		var d schemas.Decoded
		dec.Decode(schemas.Record{Data: v}, &d)
		if len(d.Tweets) != 1 || len(out) >= 3 {
			return nil
		}
		var run []rune
		for _, r := range d.Tweets[0].Text {
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai) {
				run = append(run, r)
				if len(run) == 4 {
					out = append(out, [2]string{string(run), "text"})
					return nil
				}
			} else {
				run = run[:0]
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no tweet holds four characters of a script without spaces: pick other data")
	}
	return out
}

// answers are the answers to every question, rendered for comparison.
func answers(t *testing.T, ctx context.Context, r sink.Reader, q questions, byScan bool) map[string]string {
	t.Helper()
	e := query.NewEngine(r)
	sc := query.Scanner{R: r}
	out := map[string]string{}
	put := func(name string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = fmt.Sprint(v)
	}
	collect := func(run func(emit func(query.Hit) error) error) ([]string, error) {
		var got []string
		err := run(func(h query.Hit) error {
			got = append(got, fmt.Sprintf("%x", h.Key[:]))
			return nil
		})
		return got, err
	}
	keysOf := func(keys []schemas.RowKey) []string {
		s := make([]string, len(keys))
		for i, k := range keys {
			s[i] = fmt.Sprintf("%x", k[:])
		}
		return s
	}
	geoKeys := func(hits []query.GeoHit) []string {
		s := make([]string, len(hits))
		for i, h := range hits {
			s[i] = fmt.Sprintf("%x", h.Key[:])
		}
		return s
	}
	for fi, f := range q.filters {
		p := fmt.Sprintf("f%d ", fi)
		if byScan {
			n, err := sc.Count(ctx, f)
			put(p+"1 count", n, err)
		} else {
			n, err := e.Count(ctx, f)
			put(p+"1 count", n, err)
		}
		for _, step := range []time.Duration{time.Minute, time.Hour, 24 * time.Hour} {
			var v []query.Point
			var err error
			if byScan {
				v, err = sc.Series(ctx, f, step)
			} else {
				v, err = e.Series(ctx, f, step)
			}
			put(p+"3 series "+step.String(), v, err)
		}
		{
			var v []query.Point
			var err error
			if byScan {
				v, err = sc.SeriesBy(ctx, f, time.Hour, true)
			} else {
				v, err = e.SeriesBy(ctx, f, time.Hour, true)
			}
			put(p+"3 series by lang", v, err)
		}
		for bi, b := range q.boxes {
			for _, centres := range []bool{false, true} {
				f := f
				f.PlaceCentres = centres
				name := fmt.Sprintf("%s2,5 geo box %d", p, bi)
				if centres {
					name += " with place centres"
				}
				var keys []string
				var err error
				if byScan {
					var hits []query.GeoHit
					hits, err = sc.Geo(ctx, f, b)
					keys = geoKeys(hits)
				} else {
					keys, err = collect(func(emit func(query.Hit) error) error { return e.Geo(ctx, f, b, query.Page{}, emit) })
					var n int64
					n, err2 := e.CountGeo(ctx, f, b)
					if err2 != nil {
						t.Fatal(err2)
					}
					if int(n) != len(keys) {
						t.Errorf("%s box %v: CountGeo %d, Geo retrieved %d", p, b, n, len(keys))
					}
				}
				put(name, keys, err)
			}
		}
		for _, tf := range q.terms {
			var keys []string
			var err error
			if byScan {
				var k []schemas.RowKey
				k, err = sc.Terms(ctx, f, []string{tf[0]}, query.And, tf[1])
				keys = keysOf(k)
			} else {
				keys, err = collect(func(emit func(query.Hit) error) error {
					return e.Terms(ctx, f, []string{tf[0]}, query.And, tf[1], query.Page{}, emit)
				})
				n, err2 := e.CountTerm(ctx, f, tf[0], tf[1])
				if err2 != nil {
					t.Fatal(err2)
				}
				if int(n) != len(keys) {
					t.Errorf("%s term %v: CountTerm %d, Terms retrieved %d", p, tf, n, len(keys))
				}
			}
			put(fmt.Sprintf("%s4,8 term %s/%s", p, tf[0], tf[1]), keys, err)
		}
		for _, op := range []query.Op{query.And, query.Or} {
			if fi%2 == 1 {
				break // combinations on every other filter: each scan costs
			}
			for _, ts := range q.ands {
				var keys []string
				var err error
				if byScan {
					var k []schemas.RowKey
					k, err = sc.Terms(ctx, f, slices.Clone(ts), op, "text")
					keys = keysOf(k)
				} else {
					keys, err = collect(func(emit func(query.Hit) error) error {
						return e.Terms(ctx, f, slices.Clone(ts), op, "text", query.Page{}, emit)
					})
				}
				put(fmt.Sprintf("%s7 terms op%d %v", p, op, ts), keys, err)
			}
		}
		for i, ph := range q.phrases {
			s := query.Search{Phrases: []string{ph}, Terms: q.ands[i%len(q.ands)][:i%2], Op: query.Op(i % 3 / 2), Field: "text"}
			var keys []string
			var err error
			if byScan {
				var k []schemas.RowKey
				k, err = sc.Search(ctx, f, s)
				keys = keysOf(k)
			} else {
				keys, err = collect(func(emit func(query.Hit) error) error { return e.Search(ctx, f, s, query.Page{}, emit) })
				if n, err := e.CountSearch(ctx, f, s); err != nil || int(n) != len(keys) {
					t.Errorf("%s %+v: CountSearch %d, %v; Search retrieved %d", p, s, n, err, len(keys))
				}
			}
			put(fmt.Sprintf("%s7 phrase %+v", p, s), keys, err)
		}
		for _, typ := range schemas.EdgeTypes() {
			if f.Lang != "" {
				break // the edge table holds no language
			}
			for _, eq := range []query.EdgeQuery{{Type: typ}, {Type: typ, Node: q.nodes[typ]}, {Type: typ, Node: strings.ToUpper(q.nodes[typ+100]), Top: 3}} {
				name := fmt.Sprintf("%sedges %s node %q top %d", p, typ.Name(), eq.Node, eq.Top)
				if byScan {
					v, err := sc.Edges(ctx, f, eq)
					put(name, v, err)
				} else {
					v, err := e.Edges(ctx, f, eq)
					put(name, v, err)
				}
			}
		}
		// Top, completion and trending, from the per-day term counts.
		for i, field := range schemas.TermDayFields() {
			if fi%3 != 0 && i > 0 {
				break // every field on every third filter: each scan costs
			}
			for _, tq := range []query.TopQuery{{Field: field}, {Field: field, Limit: 7}}[min(i, 1):] { // the whole list of hashtags
				name := fmt.Sprintf("%stop %s limit %d", p, field, tq.Limit)
				if byScan {
					v, err := sc.Top(ctx, f, tq)
					put(name, v, err)
				} else {
					v, err := e.Top(ctx, f, tq)
					put(name, v, err)
				}
			}
		}
		for _, pf := range q.prefixes {
			if fi%3 != 0 {
				break
			}
			tq := query.TopQuery{Field: pf[1], Prefix: pf[0], Limit: 20}
			name := fmt.Sprintf("%scomplete %s %q", p, pf[1], pf[0])
			if byScan {
				v, err := sc.Top(ctx, f, tq)
				put(name, v, err)
			} else {
				v, err := e.Top(ctx, f, tq)
				put(name, v, err)
			}
		}
		if !f.From.IsZero() && !f.To.IsZero() {
			for fj, field := range []string{"hashtag", "text"} {
				tq := query.TopQuery{Field: field, Limit: 25}
				for bi, base := range []query.Filter{query.Baseline(f), {From: dataStart, To: dataStart.Add(24 * time.Hour)}}[:2-fj] {
					name := fmt.Sprintf("%strending %s baseline %d", p, field, bi)
					if byScan {
						v, err := sc.Trending(ctx, f, base, tq)
						put(name, v, err)
					} else {
						v, err := e.Trending(ctx, f, base, tq)
						put(name, v, err)
					}
				}
			}
		}
		if byScan {
			k, err := sc.Tweets(ctx, f)
			put(p+"6,9 tweets", keysOf(k), err)
			u, err := sc.Users(ctx, f)
			put(p+"10 users", u, err)
		} else {
			keys, err := collect(func(emit func(query.Hit) error) error { return e.Tweets(ctx, f, query.Page{}, emit) })
			put(p+"6,9 tweets", keys, err)
			u, err := e.Users(ctx, f)
			put(p+"10 users", u, err)
		}
	}
	return out
}

func diffAnswers(t *testing.T, want, got map[string]string, wantName, gotName string) {
	t.Helper()
	names := make([]string, 0, len(want))
	for k := range want {
		names = append(names, k)
	}
	slices.Sort(names)
	bad := 0
	for _, k := range names {
		if got[k] != want[k] {
			if bad++; bad <= 10 {
				w, g := want[k], got[k]
				// Show the answers from a little before where they part.
				i := 0
				for i < len(w) && i < len(g) && w[i] == g[i] {
					i++
				}
				if i > 100 {
					w, g = "..."+w[i-100:], "..."+g[i-100:]
				}
				if len(w) > 300 {
					w = w[:300] + "..."
				}
				if len(g) > 300 {
					g = g[:300] + "..."
				}
				t.Errorf("%s:\n  %s: %s\n  %s: %s", k, wantName, w, gotName, g)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d answers differ", bad, len(names))
	}
}

// TestIndexAnswersMatchScan answers every question from the indexes and by
// a full scan of the raw table, on data no other test uses: any difference
// is a bug.
func TestIndexAnswersMatchScan(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) answers 300 questions from the indexes and by a scan of 6,000 tweets")
	}
	ctx := context.Background()
	r := openStore(t)
	q := pickQuestions(t, r)
	want := answers(t, ctx, r, q, true)
	got := answers(t, ctx, r, q, false)
	diffAnswers(t, want, got, "scan", "index")
	// The questions must have answers, or the comparison proves little.
	must := []string{"f0 1 count", "f0 2,5 geo box 0", "f0 2,5 geo box 5", "f0 2,5 geo box 6", "f0 2,5 geo box 7"}
	for _, typ := range schemas.EdgeTypes() {
		must = append(must, fmt.Sprintf("f0 edges %s node %q top 0", typ.Name(), ""), fmt.Sprintf("f0 edges %s node %q top 0", typ.Name(), q.nodes[typ]))
	}
	for _, field := range schemas.TermDayFields() {
		must = append(must, fmt.Sprintf("f0 top %s limit 7", field), fmt.Sprintf("f3 top %s limit 7", field))
	}
	for _, pf := range q.prefixes {
		must = append(must, fmt.Sprintf("f0 complete %s %q", pf[1], pf[0]))
	}
	must = append(must, "f0 top hashtag limit 0", "f2 trending hashtag baseline 0", "f4 trending hashtag baseline 1", "f4 trending text baseline 0")
	for _, k := range must {
		if v := want[k]; v == "0" || v == "[]" {
			t.Errorf("%s has an empty answer: pick better questions", k)
		}
	}
}

// TestCassandraAnswersMatchStore indexes the same data through gocql into
// the CQL test server and answers every question from Cassandra's tables:
// the answers are the store's.
func TestCassandraAnswersMatchStore(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) indexes 6,000 tweets through gocql into the CQL test server and checks every answer against the store's")
	}
	ctx := context.Background()
	store := openStore(t)
	q := pickQuestions(t, store)
	// Every question, over ranges of a few hours: a Cassandra read of
	// raw tweets is 16 partition reads a minute, and the CQL test server
	// answers each over loopback TCP.
	day := 24 * time.Hour
	q.filters = []query.Filter{
		{From: dataStart.Add(day + 90*time.Minute), To: dataStart.Add(day + 3*time.Hour + 7*time.Minute)},
		{From: dataStart.Add(2*day - 2*time.Hour), To: dataStart.Add(2*day + 3*time.Hour), Lang: "ja"}, // across midnight
		{From: dataStart.Add(-day), To: dataStart.Add(-time.Hour)},
	}
	want := answers(t, ctx, store, q, false)

	cr := indexCassandra(t, "tweetindex_query", testData(t)).Reader
	got := answers(t, ctx, cr, q, false)
	diffAnswers(t, want, got, "store", "cassandra")
}

// TestPagesResume reads the tweets of a range, a term and a box a page at
// a time, each page resuming after the last row key of the one before:
// the pages put together are the whole answer.
func TestPagesResume(t *testing.T) {
	ctx := context.Background()
	r := openStore(t)
	e := query.NewEngine(r)
	f := query.Filter{From: dataStart.Add(2 * time.Hour), To: dataStart.Add(14 * time.Hour)}
	world := &query.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}
	for name, run := range map[string]func(query.Page, func(query.Hit) error) error{
		"tweets": func(p query.Page, emit func(query.Hit) error) error { return e.Tweets(ctx, f, p, emit) },
		"term": func(p query.Page, emit func(query.Hit) error) error {
			return e.Terms(ctx, f, []string{"rt"}, query.Or, "text", p, emit)
		},
		"geo": func(p query.Page, emit func(query.Hit) error) error {
			return e.Geo(ctx, query.Filter{PlaceCentres: true}, world, p, emit)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var all []schemas.RowKey
			if err := run(query.Page{}, func(h query.Hit) error { all = append(all, h.Key); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(all) < 20 {
				t.Fatalf("only %d results: pick a larger question", len(all))
			}
			var paged []schemas.RowKey
			page := query.Page{Limit: 7}
			for pages := 0; ; pages++ {
				var got []schemas.RowKey
				if err := run(page, func(h query.Hit) error { got = append(got, h.Key); return nil }); err != nil {
					t.Fatal(err)
				}
				if len(got) > page.Limit {
					t.Fatalf("page of %d results, limit %d", len(got), page.Limit)
				}
				paged = append(paged, got...)
				if len(got) < page.Limit {
					break
				}
				last := got[len(got)-1]
				page.After = &last
			}
			if !slices.Equal(all, paged) {
				t.Errorf("pages put together: %d results, whole answer %d", len(paged), len(all))
			}
		})
	}
}

// TestExtentFromTableEnds: the store's extent comes from the frequency
// table's first and last cells; it must be the smallest and largest
// minute of all its cells (read here by a scan), and an empty store has
// none.
func TestExtentFromTableEnds(t *testing.T) {
	r := openStore(t)
	ctx := context.Background()
	var lo, hi string
	err := r.ScanAll(ctx, schemas.TableFrequency, func(key, _ []byte) error {
		m := string(key[:len(schemas.MinuteLayout)])
		if lo == "" || m < lo {
			lo = m
		}
		hi = max(hi, m)
		return nil
	})
	if err != nil || lo == "" {
		t.Fatalf("scanning the frequency table: %q %v", lo, err)
	}
	from, to, err := query.NewEngine(r).Extent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := from.Format(schemas.MinuteLayout); got != lo {
		t.Errorf("extent from %s, want %s", got, lo)
	}
	if got := to.Add(-time.Minute).Format(schemas.MinuteLayout); got != hi {
		t.Errorf("extent to %s (exclusive), want %s's minute", to, hi)
	}

	empty, err := storeio.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if from, to, err := query.NewEngine(empty).Extent(ctx); err != nil || !from.IsZero() || !to.IsZero() {
		t.Errorf("an empty store's extent: %v %v %v", from, to, err)
	}
}
