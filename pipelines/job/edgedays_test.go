package job

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// edgeDaysFixture is two files of tweets over two days, both holding one
// tweet (overlapping input) and tweets of the first day, whose retweets
// repeat one pair; and the id of one tweet to forget.
type edgeDaysFixture struct {
	files  [2]string
	forget uint64
	day    time.Time
}

// edgeDaysDay is the fixture's first day.
var edgeDaysDay = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func newEdgeDaysFixture(t *testing.T) edgeDaysFixture {
	t.Helper()
	tweets := []struct {
		file   int // 2: both files
		hour   int
		author string
		text   string
	}{
		{0, 1, "Alice", "RT @bob: hello #x #y"},
		{1, 2, "carol", "RT @Bob: hello"},
		{0, 3, "alice", "RT @bob: again #y #x"},
		{2, 4, "alice", "RT @bob: in both files @carol"},
		{1, 5, "erin", "RT @bob: forget me #x #y"}, // forgotten
		{0, 6, "dan", "@alice hi #x #z"},
		{1, 7, "dan", "@Alice again #z #x"},
		{0, 25, "alice", "@dan hi #x #z"},
		{1, 26, "dan", "RT @bob: next day #x #y"},
		{0, 30, "carol", "RT @bob: next day"},
	}
	f := edgeDaysFixture{day: edgeDaysDay}
	var lines [2][]string
	for i, tw := range tweets {
		at := edgeDaysDay.Add(time.Duration(tw.hour)*time.Hour + time.Duration(i)*time.Minute)
		id := snowflake(at, i)
		if strings.Contains(tw.text, "forget me") {
			f.forget = id
		}
		line := strings.Replace(v1Tweet(id, at, tw.text, 0, 0), `"screen_name":"s"`, fmt.Sprintf(`"screen_name":%q`, tw.author), 1)
		for file := range lines {
			if tw.file == file || tw.file == 2 {
				lines[file] = append(lines[file], line)
			}
		}
	}
	dir := tempDir(t)
	for i := range lines {
		f.files[i] = writeLines(t, filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i)), lines[i]...)
	}
	return f
}

// edgeWeightsFromCells returns the per-day edge weights that the dump of
// an edge table makes (one line per (kind, day, source, target) and its
// cells), and the dump of the weights in the same form: the recount from
// edge cells, done here from the dumps alone.
func edgeWeightsFromCells(t *testing.T, dump map[string]string) (fromCells, weights string) {
	t.Helper()
	type edge struct{ Type, Day, Source, Target string }
	counts := map[edge]int64{}
	for line := range strings.SplitSeq(strings.TrimSpace(dump["edges"]), "\n") {
		if line == "" {
			continue
		}
		var e edge
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("edges dump %q: %v", line, err)
		}
		counts[e]++
	}
	var a, b []string
	for e, n := range counts {
		a = append(a, fmt.Sprintf("%s %s %s>%s %d", e.Type, e.Day, e.Source, e.Target, n))
	}
	for line := range strings.SplitSeq(strings.TrimSpace(dump["edgedays"]), "\n") {
		if line == "" {
			continue
		}
		var w struct {
			edge
			Tweets int64
		}
		if err := json.Unmarshal([]byte(line), &w); err != nil {
			t.Fatalf("edgedays dump %q: %v", line, err)
		}
		b = append(b, fmt.Sprintf("%s %s %s>%s %d", w.Type, w.Day, w.Source, w.Target, w.Tweets))
	}
	slices.Sort(a)
	slices.Sort(b)
	return strings.Join(a, "\n"), strings.Join(b, "\n")
}

// checkEdgeWeights fails the test unless the sink's edge weights are the
// recount of its edge cells, no mark is left, and every edge question
// over the sink (each kind, over the data, a whole day, a day and a half
// with partial ends, a node) equals the scan's.
func checkEdgeWeights(t *testing.T, dump map[string]string, r sink.Reader, when string) {
	t.Helper()
	fromCells, weights := edgeWeightsFromCells(t, dump)
	if weights == "" {
		t.Fatalf("%s: no edge weights", when)
	}
	if weights != fromCells {
		t.Errorf("%s: edge weights\n%s\nwant the recount of the edge cells\n%s", when, weights, fromCells)
	}
	ctx := context.Background()
	if err := sink.ScanPrefix(ctx, r, schemas.TableMeta, []byte(schemas.EdgeDayMarkPrefix), func(key, _ []byte) error {
		t.Errorf("%s: mark %s left", when, key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	edgesMatchScan(t, r, when)
}

// edgesMatchScan fails the test unless every edge question over r equals
// the scan's.
func edgesMatchScan(t *testing.T, r sink.Reader, when string) {
	t.Helper()
	ctx := context.Background()
	e, sc := query.NewEngine(r), query.Scanner{R: r}
	d := edgeDaysDay
	for _, f := range []query.Filter{
		{},
		{From: d, To: d.Add(24 * time.Hour)},
		{From: d.Add(-time.Hour), To: d.Add(48 * time.Hour)},
		{From: d.Add(3*time.Hour + 30*time.Second), To: d.Add(25*time.Hour + 30*time.Minute)},
		{From: d.Add(2 * time.Hour), To: d.Add(24*time.Hour + 2*time.Second)},
	} {
		for _, typ := range schemas.EdgeTypes() {
			for _, q := range []query.EdgeQuery{{Type: typ}, {Type: typ, Node: "BOB"}, {Type: typ, Node: "x", Top: 1}} {
				got, err := e.Edges(ctx, f, q)
				if err != nil {
					t.Fatalf("%s: edges: %v", when, err)
				}
				want, err := sc.Edges(ctx, f, q)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: %s edges %+v over %s..%s: index %v, scan %v", when, typ.Name(), q, f.From.Format(time.DateTime), f.To.Format(time.DateTime), got, want)
				}
			}
		}
	}
}

// check indexes the fixture's two files in two runs into the sink of cfg
// and checks that its edge weights are the recount of its edge cells and
// those of one run over both files (ref), that re-running a file changes
// nothing, that forgetting a tweet takes its edges off its day's weights
// (refForgot), and that a day marked for a recount is answered from its
// edge cells.
func (f edgeDaysFixture) check(t *testing.T, cfg pipelines.Config, ref, refForgot map[string]string, dump func() map[string]string, reader func() (sink.Reader, func())) {
	t.Helper()
	for _, in := range f.files {
		run := cfg
		run.Input = in
		runPipeline(t, run)
	}
	twoRuns := dump()
	if twoRuns["edgedays"] != ref["edgedays"] {
		t.Errorf("edge weights of two runs over parts of a day:\n%s\nwant those of one run over both:\n%s", twoRuns["edgedays"], ref["edgedays"])
	}
	if !strings.Contains(twoRuns["edgedays"], `"source":"alice","target":"bob","tweets":3}`) {
		t.Errorf("edge weights of two runs: want alice>bob in 3 tweets (one in both files):\n%s", twoRuns["edgedays"])
	}
	r, done := reader()
	checkEdgeWeights(t, twoRuns, r, "after two runs")
	done()

	run := cfg
	run.Input = f.files[0]
	runPipeline(t, run)
	diffTables(t, twoRuns, dump(), "before", "after a file indexed again")

	if _, err := forget(context.Background(), cfg, maintain.IDList{IDs: []uint64{f.forget}}); err != nil {
		t.Fatal(err)
	}
	forgot := dump()
	if forgot["edgedays"] != refForgot["edgedays"] {
		t.Errorf("edge weights after forget:\n%s\nwant those of one run and the same forget:\n%s", forgot["edgedays"], refForgot["edgedays"])
	}
	if strings.Contains(forgot["edgedays"], `"erin"`) {
		t.Errorf("the edge weights keep the forgotten tweet's edges:\n%s", forgot["edgedays"])
	}
	r, done = reader()
	checkEdgeWeights(t, forgot, r, "after forget")
	done()

	// A day still marked (a stream writing it; a run that died before
	// its recount) whose weights are stale is answered from its cells.
	s, err := sink.Open(sinkConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	day := schemas.Day(f.day.Unix())
	stale := []schemas.Cell{schemas.MetaRow{Name: schemas.EdgeDayMark(day)}.Cell(),
		schemas.EdgeDayRow{Type: schemas.EdgeRetweet, Day: day, Source: "alice", Target: "bob", Tweets: 100}.Cell()}
	err = s.Write(context.Background(), stale)
	if err == nil {
		// Check leaves the marked day to its recount.
		var rep maintain.CheckReport
		rep, err = maintain.Check(context.Background(), s, nil)
		if p := rep.Tables["edgedays"].Problems(); err == nil && p != 0 {
			t.Errorf("check finds %d problems in the weights of a day marked for a recount: %v", p, rep.Examples)
		}
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	r, done = reader()
	defer done()
	edgesMatchScan(t, r, "a day marked, its weights stale")
}

// sinkConfig is the sink of cfg.
func sinkConfig(cfg pipelines.Config) sink.Config {
	return sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra}
}

// TestEdgeWeightsFollowEdges: the per-day edge weights, on the embedded
// store and the CQL test server, are the recount of the edge cells after
// a run, after a second run over overlapping input (no tweet counted
// twice), after a file indexed again and after forget, and every edge
// question (whole days from the weights, partial days from the cells)
// equals the scan of the stored tweets.
func TestEdgeWeightsFollowEdges(t *testing.T) {
	t.Parallel()
	f := newEdgeDaysFixture(t)
	refDir := filepath.Join(tempDir(t), "ref")
	ref := pipelines.Config{Store: refDir, Input: filepath.Dir(f.files[0])}
	runPipeline(t, ref)
	refDump := dumpStore(t, refDir)
	if _, err := forget(context.Background(), ref, maintain.IDList{IDs: []uint64{f.forget}}); err != nil {
		t.Fatal(err)
	}
	refForgot := dumpStore(t, refDir)
	t.Run("store", func(t *testing.T) {
		t.Parallel()
		store := filepath.Join(tempDir(t), "store")
		f.check(t, pipelines.Config{Store: store}, refDump, refForgot, func() map[string]string { return dumpStore(t, store) },
			storeReader(t, store))
	})
	t.Run("cassandra", func(t *testing.T) {
		t.Parallel()
		_, cfg := startCQL(t)
		f.check(t, pipelines.Config{Cassandra: cfg}, refDump, refForgot, func() map[string]string { return dumpCassandra(t, cfg) },
			cassandraReader(t, cfg))
	})
}
