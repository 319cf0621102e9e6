package pipelines

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

func TestReadIDList(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		"1790000000000000001",
		"  ",
		`{"id":"1790000000000000002","action":"delete","created_at":"2026-11-02T00:00:00.000Z","reason":"deleted"}`,
		`{"id":1790000000000000003}`,
		`{"id_str":"1790000000000000004","id":1.79e18}`,
		`{"delete":{"status":{"id":1,"id_str":"1790000000000000005"}}}`,
		`{"id":"1790000000000000006","action":"scrub_geo"}`,
		"12ab",
		`{"text":"no id"}`,
		`{"id":"0"}`,
		`{broken`,
	}, "\n")
	got, err := maintain.ReadIDList(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1790000000000000001, 1790000000000000002, 1790000000000000003, 1790000000000000004, 1790000000000000005}
	if fmt.Sprint(got.IDs) != fmt.Sprint(want) {
		t.Errorf("ids %v, want %v", got.IDs, want)
	}
	if got.NotDeletes != 1 {
		t.Errorf("%d events other than delete, want 1 (scrub_geo)", got.NotDeletes)
	}
	var lines []int
	for _, b := range got.Bad {
		lines = append(lines, b.Line)
	}
	if fmt.Sprint(lines) != "[8 9 10 11]" {
		t.Errorf("bad lines %v (%+v), want [8 9 10 11]", lines, got.Bad)
	}
}

// forgetFixture is a file of tweets in three minutes, some with points,
// and the ids forget is given.
type forgetFixture struct {
	input  string
	ids    []uint64 // of the tweets in input
	list   string   // a file of ids: ids[1] (twice), ids[2] as a twarc2 result, one never stored, a scrub_geo event and a bad line
	absent uint64   // the id never stored
}

func newForgetFixture(t *testing.T) forgetFixture {
	t.Helper()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var f forgetFixture
	var lines []string
	words := []string{"keepone", "forgetme", "vanish", "staystill"}
	for i, w := range words {
		sec := at.Add(time.Duration(i) * 50 * time.Second) // minutes 12:00, 12:00, 12:01, 12:02
		id := snowflake(sec, i)
		f.ids = append(f.ids, id)
		// Each tweet makes edges of its own: a mention and a hashtag pair.
		lines = append(lines, v1Tweet(id, sec, w+" words @"+w+"pal #"+w+" #common", float64(10+i), float64(20+i)))
	}
	dir := tempDir(t)
	f.input = writeLines(t, filepath.Join(dir, "tweets.jsonl"), lines...)
	f.absent = snowflake(at.Add(time.Hour), 9)
	f.list = writeLines(t, filepath.Join(dir, "forget.txt"),
		fmt.Sprint(f.ids[1]),
		fmt.Sprintf(`{"id":"%d","action":"delete","created_at":"2026-11-02T00:00:00.000Z","reason":"deleted"}`, f.ids[2]),
		"",
		fmt.Sprintf(`{"id_str":"%d"}`, f.absent),
		fmt.Sprintf(`{"id":"%d","action":"scrub_geo","created_at":"2026-11-02T00:00:00.000Z"}`, f.ids[0]),
		"not an id",
		fmt.Sprint(f.ids[1]),
	)
	return f
}

// checkForget runs the fixture against a sink (cfg: Store or Cassandra,
// freshly made; dump reads its tables; engine its query engine).
func (f forgetFixture) check(t *testing.T, cfg Config, dump func() map[string]string, engine func() (*query.Engine, func())) {
	t.Helper()
	run := cfg
	run.Input = f.input
	runPipeline(t, run)
	list := readIDList(t, f.list)
	sum, err := forget(context.Background(), cfg, list)
	if err != nil {
		t.Fatal(err)
	}
	want := maintain.ForgetSummary{Read: 4, Distinct: 3, Forgotten: 2, AlreadyAbsent: 1, NotDeletes: 1, BadLines: 1, Recounted: 2}
	sum.Seconds, sum.RowsDeleted = 0, 0
	if sum != want {
		t.Errorf("forget: %+v, want %+v", sum, want)
	}
	after := dump()
	kept := fmt.Sprint([]string{fmt.Sprint(f.ids[0]), fmt.Sprint(f.ids[3])})
	if got := storedIDs(t, after); fmt.Sprint(got) != kept {
		t.Errorf("raw table holds %v after forget, want %s", got, kept)
	}
	for _, w := range []string{"forgetme", "vanish"} {
		if strings.Contains(after["terms"], `"term":"`+w+`"`) {
			t.Errorf("terms table still holds %q of a forgotten tweet", w)
		}
	}
	if !strings.Contains(after["terms"], `"term":"staystill"`) {
		t.Errorf("terms table lost %q of a kept tweet", "staystill")
	}
	for _, w := range []string{"forgetme", "vanish", "staystill", "keepone"} {
		n := strings.Count(after["edges"], `"source":"s","target":"`+w+`pal"`) + strings.Count(after["edges"], `"source":"common","target":"`+w+`"`)
		if gone := w == "forgetme" || w == "vanish"; gone && n != 0 || !gone && n != 2 {
			t.Errorf("edges table holds %d edges of %q's tweet (forgotten: %t):\n%s", n, w, gone, after["edges"])
		}
	}
	if n := len(rows(t, after["geo"])); n != 2 {
		t.Errorf("geo table holds %d rows, want the 2 kept tweets'", n)
	}
	tombstones := 0
	for _, r := range rows(t, after["identity"]) {
		if r["deleted"] == true {
			tombstones++
		}
	}
	if tombstones != 3 {
		t.Errorf("identity table holds %d tombstones, want 3 (two forgotten, one never stored):\n%s", tombstones, after["identity"])
	}
	checkCountsFollowRaw(t, after)

	e, done := engine()
	ctx := context.Background()
	n, err := e.Count(ctx, query.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var hits int64
	if err := e.Tweets(ctx, query.Filter{}, query.Page{}, func(query.Hit) error { hits++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 2 || hits != 2 {
		t.Errorf("after forget: count %d, tweets retrieved %d; want 2 and 2", n, hits)
	}
	if c, err := e.CountTerm(ctx, query.Filter{}, "vanish", "text"); err != nil || c != 0 {
		t.Errorf("count of a forgotten tweet's term: %d, %v; want 0", c, err)
	}
	done()

	// Again: nothing changes; every id is deleted already.
	sum, err = forget(context.Background(), cfg, list)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Forgotten != 0 || sum.AlreadyDeleted != 3 || sum.RowsDeleted != 0 {
		t.Errorf("forget again: %+v, want nothing forgotten, 3 deleted already", sum)
	}
	diffTables(t, after, dump(), "after forget", "after forget again")

	// The original file again: the forgotten tweets stay forgotten.
	s := runPipeline(t, run)
	if s.SkippedBy["deleted"] != 2 {
		t.Errorf("indexing the file again: %+v, want its 2 forgotten tweets skipped as deleted", s)
	}
	diffTables(t, after, dump(), "after forget", "after the original file again")
}

// checkCountsFollowRaw checks that every minute's frequency count equals
// the tweets of that minute in the raw table, and that the authors table
// follows the raw table too.
func checkCountsFollowRaw(t *testing.T, dump map[string]string) {
	t.Helper()
	checkAuthorsFollowRaw(t, dump)
	raw := map[string]int64{}
	for _, r := range rows(t, dump["raw"]) {
		at, err := time.Parse(time.RFC3339, r["created_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		raw[schemas.Minute(at.Unix())]++
	}
	freq := map[string]int64{}
	for _, r := range rows(t, dump["frequency"]) {
		freq[r["minute"].(string)] += int64(r["count"].(float64))
	}
	if fmt.Sprint(raw) != fmt.Sprint(freq) {
		t.Errorf("counts per minute %v, raw tweets per minute %v", freq, raw)
	}
}

func readIDList(t *testing.T, path string) maintain.IDList {
	t.Helper()
	list, err := maintain.ReadIDList(strings.NewReader(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestForgetStore forgets ids in the embedded store: the tweets leave the
// raw, term and geo tables, counts follow, tombstones stay, forgetting
// again changes nothing and indexing the original file again does not
// bring them back.
func TestForgetStore(t *testing.T) {
	t.Parallel()
	f := newForgetFixture(t)
	store := filepath.Join(tempDir(t), "store")
	f.check(t, Config{Store: store}, func() map[string]string { return dumpStore(t, store) },
		func() (*query.Engine, func()) {
			st, err := storeio.Open(store)
			if err != nil {
				t.Fatal(err)
			}
			return query.NewEngine(st), func() { st.Close() }
		})
}

// TestForgetCassandra is TestForgetStore through gocql against the CQL
// test server.
func TestForgetCassandra(t *testing.T) {
	t.Parallel()
	f := newForgetFixture(t)
	_, cfg := startCQL(t)
	f.check(t, Config{Cassandra: cfg}, func() map[string]string { return dumpCassandra(t, cfg) },
		func() (*query.Engine, func()) {
			r, err := cassandraio.NewReader(*cfg)
			if err != nil {
				t.Fatal(err)
			}
			return query.NewEngine(r), func() { r.Close() }
		})
}

// TestDeadStreamMinutesRebuilt: the minutes a stream that died left
// marked as counting get their term and geo cells and counts back from
// the raw rows in the next run, whatever that run reads: a kill can lose
// cells of tweets whose raw rows were written and whose Kafka offsets were
// committed (TestKilledStreamResumesToOneRun in the command's tests).
func TestDeadStreamMinutesRebuilt(t *testing.T) {
	t.Parallel()
	f := newForgetFixture(t)
	ref := filepath.Join(tempDir(t), "ref")
	runPipeline(t, Config{Store: ref, Input: f.input})
	want := dumpStore(t, ref)

	store := filepath.Join(tempDir(t), "store")
	runPipeline(t, Config{Store: store, Input: f.input})
	tables, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	// What a killed stream may leave: raw rows and counting marks, some
	// term, geo and frequency cells not written.
	var cells []schemas.Cell
	lost := []schemas.Table{schemas.TableFrequency}
	for _, d := range transforms.DerivedTables() {
		lost = append(lost, d.Table)
	}
	for _, table := range lost {
		err := tables.Scan(context.Background(), table, nil, nil, func(key, _ []byte) error {
			cells = append(cells, schemas.Cell{Table: table, Key: bytes.Clone(key), Delete: true})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rows(t, want["frequency"]) {
		cells = append(cells, schemas.MetaRow{Name: schemas.CountingPrefix + r["minute"].(string)}.Cell())
	}
	if err := tables.Write(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	tables.Close()

	empty := writeLines(t, filepath.Join(tempDir(t), "empty.jsonl"), "")
	sum := runPipeline(t, Config{Store: store, Input: empty})
	if sum.Recounted != 3 {
		t.Errorf("the next run recounted %d minutes, want the 3 marked", sum.Recounted)
	}
	diffTables(t, want, dumpStore(t, store), "one run", "cells lost, then rebuilt")
}
