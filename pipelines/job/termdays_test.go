package job

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// termDaysFixture is two files of tweets over two days, both files
// holding tweets of the first day, and the id of one tweet to forget.
type termDaysFixture struct {
	files  [2]string
	forget uint64
}

func newTermDaysFixture(t *testing.T) termDaysFixture {
	t.Helper()
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	texts := []string{
		"#alpha #common first words", // file 0, day 0
		"#beta #common forget me",    // file 1, day 0: forgotten
		"#alpha second @pal",         // file 0, day 0
		"#common late #alpha",        // file 1, day 0
		"#alpha next day",            // file 0, day 1
		"#gamma next day @pal",       // file 1, day 1
	}
	var lines [2][]string
	var f termDaysFixture
	for i, text := range texts {
		at := day.Add(time.Duration(i/4)*24*time.Hour + time.Duration(i+1)*3*time.Hour)
		id := snowflake(at, i)
		if i == 1 {
			f.forget = id
		}
		lines[i%2] = append(lines[i%2], v1Tweet(id, at, text, 0, 0))
	}
	dir := tempDir(t)
	for i := range lines {
		f.files[i] = writeLines(t, filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i)), lines[i]...)
	}
	return f
}

// termDaysMatchScan checks that every top question over the sink equals
// the scan's, over the data and over its first day, and returns the top
// hashtags of the data.
func termDaysMatchScan(t *testing.T, r sink.Reader, when string) string {
	t.Helper()
	ctx := context.Background()
	e, sc := query.NewEngine(r), query.Scanner{R: r}
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var hashtags string
	for _, f := range []query.Filter{{}, {From: day, To: day.Add(24 * time.Hour)}, {Lang: "en"}} {
		for _, field := range schemas.TermDayFields() {
			q := query.TopQuery{Field: field}
			got, err := e.Top(ctx, f, q)
			if err != nil {
				t.Fatalf("%s: top %s: %v", when, field, err)
			}
			want, err := sc.Top(ctx, f, q)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: top %s over %+v: index %v, scan %v", when, field, f, got, want)
			}
			if field == schemas.TermFieldHashtag && f == (query.Filter{}) {
				hashtags = fmt.Sprint(got)
			}
		}
	}
	return hashtags
}

// checkTermDays indexes the fixture's two files in two runs (both
// storing tweets of one day) into the sink of cfg, and checks that its
// per-day term counts are those of one run over both files (ref), that
// re-running a file changes none, and that forgetting a tweet takes its
// terms off its day's counts.
func (f termDaysFixture) check(t *testing.T, cfg pipelines.Config, ref map[string]string, dump func() map[string]string, reader func() (sink.Reader, func())) {
	t.Helper()
	for _, in := range f.files {
		run := cfg
		run.Input = in
		runPipeline(t, run)
	}
	twoRuns := dump()
	if twoRuns["termdays"] != ref["termdays"] {
		t.Errorf("term counts of two runs over parts of a day:\n%s\nwant those of one run over both:\n%s", twoRuns["termdays"], ref["termdays"])
	}
	r, done := reader()
	before := termDaysMatchScan(t, r, "after two runs")
	done()
	if !strings.Contains(before, "{#common 3}") || !strings.Contains(before, "{#beta 1}") {
		t.Errorf("top hashtags %s: want #common in 3 tweets and #beta in 1", before)
	}

	run := cfg
	run.Input = f.files[0]
	runPipeline(t, run)
	diffTables(t, twoRuns, dump(), "before", "after a file indexed again")

	list, err := maintain.ReadIDList(strings.NewReader(fmt.Sprint(f.forget)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := forget(context.Background(), cfg, list); err != nil {
		t.Fatal(err)
	}
	r, done = reader()
	defer done()
	after := termDaysMatchScan(t, r, "after forget")
	if !strings.Contains(after, "{#common 2}") || strings.Contains(after, "#beta") {
		t.Errorf("top hashtags after forgetting a tweet of #beta and #common: %s; want #common in 2, #beta gone", after)
	}
	if strings.Contains(dump()["termdays"], `"term":"#beta"`) {
		t.Errorf("the termdays table keeps the forgotten tweet's #beta")
	}
	if err := sink.ScanPrefix(context.Background(), r, schemas.TableMeta, []byte(schemas.TermDayMarkPrefix), func(key, _ []byte) error {
		t.Errorf("mark %s left after the run", key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestTermDaysFollowTweets: the per-day term counts in the embedded store
// are absolute (two runs over parts of a day count both, a file indexed
// again changes nothing), and follow forget.
func TestTermDaysFollowTweets(t *testing.T) {
	t.Parallel()
	f := newTermDaysFixture(t)
	refDir := filepath.Join(tempDir(t), "ref")
	runPipeline(t, pipelines.Config{Store: refDir, Input: filepath.Dir(f.files[0])})
	ref := dumpStore(t, refDir)
	if !strings.Contains(ref["termdays"], `"term":"#common"`) {
		t.Fatalf("one run over the fixture wrote no #common count:\n%s", ref["termdays"])
	}
	t.Run("store", func(t *testing.T) {
		t.Parallel()
		store := filepath.Join(tempDir(t), "store")
		f.check(t, pipelines.Config{Store: store}, ref, func() map[string]string { return dumpStore(t, store) },
			storeReader(t, store))
	})
	t.Run("cassandra", func(t *testing.T) {
		t.Parallel()
		_, cfg := startCQL(t)
		f.check(t, pipelines.Config{Cassandra: cfg}, ref, func() map[string]string { return dumpCassandra(t, cfg) },
			cassandraReader(t, cfg))
	})
}

// TestTermDaysOfABusyDay indexes 3,000 tweets of one day whose terms
// repeat across them: top over the day, per field, equals the scan's.
func TestTermDaysOfABusyDay(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var lines []string
	for i := range 3000 {
		at := day.Add(time.Duration(i) * 20 * time.Second)
		lines = append(lines, v1Tweet(snowflake(at, i), at, fmt.Sprintf("#tag%d #other%d word%d @user%d", i%7, i%11, i%13, i%5), 0, 0))
	}
	store := filepath.Join(tempDir(t), "store")
	runPipeline(t, pipelines.Config{Store: store, Input: writeLines(t, filepath.Join(tempDir(t), "day.jsonl"), lines...)})
	s, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if top := termDaysMatchScan(t, s, "a day of 3,000 tweets"); !strings.Contains(top, "{#tag0 429}") {
		t.Errorf("top hashtags %s: want #tag0 in 429 tweets", top)
	}
}

var benchTermDaysStore = flag.String("bench.termdays.store", "", "BenchmarkRecountTermDays: a store whose every day's term counts to recount")

// BenchmarkRecountTermDays marks every day of a store's tweets and
// recounts their term counts, as the end of a run that stored tweets in
// each does (go test -run '^$' -bench BenchmarkRecountTermDays
// -benchtime 1x ./pipelines/ -args -bench.termdays.store DIR). The counts
// must come out as they were.
func BenchmarkRecountTermDays(b *testing.B) {
	if *benchTermDaysStore == "" {
		b.Skip("-bench.termdays.store DIR: a store to recount")
	}
	ctx := context.Background()
	dir := *benchTermDaysStore
	before := dumpStore(b, dir)["termdays"]
	s, err := sink.Open(sink.Config{Store: dir, Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	days := map[string]bool{}
	err = s.ScanAll(ctx, schemas.TableFrequency, func(key, _ []byte) error {
		at, err := time.Parse(schemas.MinuteLayout, string(key[:len(schemas.MinuteLayout)]))
		if err == nil {
			days[schemas.TermDayMark(schemas.Day(at.Unix()))] = true
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		var marks []schemas.Cell
		for d := range days {
			marks = append(marks, schemas.MetaRow{Name: d}.Cell())
		}
		if err := s.Write(ctx, marks); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := maintain.RecountMarked(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(days)), "days")
	s.Close()
	if after := dumpStore(b, dir)["termdays"]; after != before {
		b.Errorf("the term counts changed in the recount")
	}
}

// TestNoTermDaysWhenLeftOut: a store indexed with Config.NoTermDays gets
// no per-day term counts, no param/termdays and no day marks, also after
// a later run that does not leave them out and after a forget, and top
// refuses it in one line; a store indexed with them keeps its counts on a
// later run that leaves them out.
func TestNoTermDaysWhenLeftOut(t *testing.T) {
	t.Parallel()
	f := newTermDaysFixture(t)
	dir := filepath.Join(tempDir(t), "plain")
	runPipeline(t, pipelines.Config{Store: dir, Input: f.files[0], NoTermDays: true})
	runPipeline(t, pipelines.Config{Store: dir, Input: f.files[1]})
	if _, err := forget(context.Background(), pipelines.Config{Store: dir}, maintain.IDList{IDs: []uint64{f.forget}}); err != nil {
		t.Fatal(err)
	}
	if counts := dumpStore(t, dir)["termdays"]; counts != "" {
		t.Errorf("a store indexed with NoTermDays holds term counts:\n%s", counts)
	}
	st, err := sink.Open(sink.Config{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := st.Lookup(context.Background(), schemas.TableMeta, []byte(schemas.TermDaysParam)); err != nil || found {
		t.Errorf("a store indexed with NoTermDays: %s %v, %v; want none", schemas.TermDaysParam, found, err)
	}
	if err := sink.ScanPrefix(context.Background(), st, schemas.TableMeta, []byte(schemas.TermDayMarkPrefix), func(key, _ []byte) error {
		t.Errorf("a store indexed with NoTermDays holds the mark %s", key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err = query.NewEngine(st.Reader).Top(context.Background(), query.Filter{}, query.TopQuery{Field: schemas.TermFieldHashtag, Limit: 10})
	st.Close()
	if !errors.Is(err, query.ErrTermDaysNotIndexed) {
		t.Errorf("top on a store without term counts: %v, want %v", err, query.ErrTermDaysNotIndexed)
	}

	kept := filepath.Join(tempDir(t), "kept")
	runPipeline(t, pipelines.Config{Store: kept, Input: f.files[0]})
	runPipeline(t, pipelines.Config{Store: kept, Input: f.files[1], NoTermDays: true})
	ref := filepath.Join(tempDir(t), "ref")
	runPipeline(t, pipelines.Config{Store: ref, Input: filepath.Dir(f.files[0])})
	if got, want := dumpStore(t, kept)["termdays"], dumpStore(t, ref)["termdays"]; got != want {
		t.Errorf("a store with term counts, written again with NoTermDays:\n%s\nwant (one run of both files):\n%s", got, want)
	}
}
