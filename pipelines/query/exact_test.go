package query_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestExactAnswersMatchScan runs in the short tier too: ranges with
// mid-minute ends, terms that tokenize to several tokens (a phrase, CJK
// runs, a full-width word), and boxes of ±1e-6 degrees around points
// whose exact coordinates the test wrote, each answered from the indexes
// and by a scan of the raw tweets (which tests every tweet's seconds,
// tokens and coordinates).
func TestExactAnswersMatchScan(t *testing.T) {
	ctx := context.Background()
	r := openStore(t)
	e := query.NewEngine(r)
	sc := query.Scanner{R: r}
	all, err := sc.Tweets(ctx, query.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// Ranges cut at the seconds of stored tweets, so that the edges matter.
	at := func(i int) time.Time { return time.Unix(int64(binaryTime(all[i])), 0).UTC() }
	n := len(all)
	filters := []query.Filter{
		{From: at(n / 3), To: at(n / 3).Add(30 * time.Second)},
		{From: at(n / 4).Add(time.Second), To: at(n / 2).Add(-time.Second)},
		{From: at(n / 5), To: at(n / 5)}, // empty
		{From: at(n / 5), To: at(n / 5).Add(time.Second)},
		{From: at(n / 6).Add(-59 * time.Second), To: at(n / 6).Add(61 * time.Second), Lang: "en"},
	}
	edgesSeen := map[schemas.EdgeType]int{}
	for i, f := range filters {
		want, err := sc.Tweets(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		// The independent count: row keys of the raw table whose second is in the range.
		var byKey int64
		for _, k := range all {
			if s := int64(binaryTime(k)); s >= f.From.Unix() && s < f.To.Unix() {
				byKey++
			}
		}
		if f.Lang == "" && int64(len(want)) != byKey {
			t.Errorf("filter %d: the scan finds %d tweets, the row keys say %d", i, len(want), byKey)
		}
		got, err := e.Count(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if got != int64(len(want)) {
			t.Errorf("filter %d %v..%v: Count %d, scan %d", i, f.From, f.To, got, len(want))
		}
		var keys []schemas.RowKey
		if err := e.Tweets(ctx, f, query.Page{}, func(h query.Hit) error { keys = append(keys, h.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(keys, want) {
			t.Errorf("filter %d: Tweets gives %d tweets, scan %d", i, len(keys), len(want))
		}
		for _, typ := range schemas.EdgeTypes() {
			if f.Lang != "" {
				break
			}
			got, err1 := e.Edges(ctx, f, query.EdgeQuery{Type: typ})
			want, err2 := sc.Edges(ctx, f, query.EdgeQuery{Type: typ})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("filter %d: %s edges\n index %v\n  scan %v", i, typ.Name(), got, want)
			}
			edgesSeen[typ] += len(want)
		}
		for _, step := range []time.Duration{time.Minute, time.Hour} {
			gs, err1 := e.SeriesBy(ctx, f, step, true)
			ws, err2 := sc.SeriesBy(ctx, f, step, true)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if fmt.Sprint(gs) != fmt.Sprint(ws) {
				t.Errorf("filter %d: series by %s\n index %v\n  scan %v", i, step, gs, ws)
			}
		}
	}
	if c, _ := e.Count(ctx, filters[0]); c == 0 {
		t.Error("filter 0 has no tweets: the comparison proves little")
	}
	for _, typ := range schemas.EdgeTypes() {
		if edgesSeen[typ] == 0 {
			t.Errorf("no %s edge in any range: the comparison proves little", typ.Name())
		}
	}

	// Terms as people type them: each must find what the scan finds, and
	// the CJK runs something.
	terms := append([]string{"Edge Point", "EDGE", "Ｅｄｇｅ", "#FAR", "!?", "far edge"}, termsOf(pickCJK(t, ctx, sc))...)
	for _, term := range terms {
		want, err := sc.Terms(ctx, query.Filter{}, []string{term}, query.And, "text")
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.CountTerm(ctx, query.Filter{}, term, "text")
		if err != nil {
			t.Fatal(err)
		}
		if got != int64(len(want)) {
			t.Errorf("term %q: CountTerm %d, scan %d", term, got, len(want))
		}
		if len(want) == 0 && term != "!?" {
			t.Errorf("term %q: the scan finds nothing: pick other terms", term)
		}
	}

	// Exact points and place centres: the geo table's kind of point
	// against the scan's reading of each tweet.
	world := &query.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}
	var geoCounts [2]int64
	for i, centres := range []bool{false, true} {
		f := query.Filter{PlaceCentres: centres}
		got, err := e.CountGeo(ctx, f, world)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sc.Geo(ctx, f, world)
		if err != nil {
			t.Fatal(err)
		}
		if got != int64(len(want)) {
			t.Errorf("world, place centres %v: CountGeo %d, scan %d", centres, got, len(want))
		}
		geoCounts[i] = got
	}
	if geoCounts[0] == 0 || geoCounts[1] <= geoCounts[0] {
		t.Errorf("exact points %d, with place centres %d: want some of each", geoCounts[0], geoCounts[1])
	}

	// Heatmaps: the scan's cells at every precision, adding up to the
	// count of the same box.
	for _, precision := range []int{1, 3, 5, query.MaxHeatPrecision} {
		for _, centres := range []bool{false, true} {
			f := query.Filter{PlaceCentres: centres}
			got, err := e.Heatmap(ctx, f, world, precision)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sc.Heatmap(ctx, f, world, precision)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("heatmap of precision %d, place centres %v: %d cells, the scan's %d; first %v, scan %v", precision, centres, len(got), len(want), first(got), first(want))
			}
			if total, _ := query.HeatTotal(got); total != geoCounts[boolIndex(centres)] {
				t.Errorf("heatmap of precision %d, place centres %v: counts add up to %d, CountGeo %d", precision, centres, total, geoCounts[boolIndex(centres)])
			}
		}
	}

	// Boxes of ±1e-6 degrees around the exact coordinates of the edge
	// points (written by the test, so the coordinates are known).
	for _, p := range edgePoints {
		const d = 1e-6
		b := &query.Box{MinLon: max(p[1]-d, -180), MinLat: max(p[0]-d, -90), MaxLon: min(p[1]+d, 180), MaxLat: min(p[0]+d, 90)}
		got, err := e.CountGeo(ctx, query.Filter{}, b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sc.Geo(ctx, query.Filter{}, b)
		if err != nil {
			t.Fatal(err)
		}
		if got != int64(len(want)) || got < 1 {
			t.Errorf("box %v around %v: CountGeo %d, scan %d (want at least the point itself)", b, p, got, len(want))
		}
	}
}

// first returns the first few cells of a heatmap, for a message.
func first(cells []query.HeatCell) []query.HeatCell { return cells[:min(len(cells), 3)] }

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func termsOf(tf [][2]string) []string {
	out := make([]string, len(tf))
	for i, x := range tf {
		out[i] = x[0]
	}
	return out
}

// binaryTime returns the created_at second of a row key.
func binaryTime(k schemas.RowKey) uint64 {
	var s uint64
	for _, b := range k[:8] {
		s = s<<8 | uint64(b)
	}
	return s
}
