package query_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestEdgesFromWeights answers every kind of edge (all, a node's, the top
// 3) over ranges of whole days, of partial first and last days around
// whole ones, within one day, across one midnight, each three ways: from
// the per-day edge weights and the edge cells of a freshly indexed store,
// from the edge cells alone with the weights hidden (a store indexed
// before they existed), and by decoding every stored tweet. All three
// agree; the first reads the weights of the whole days and edge cells
// only for the partial ones, the second no weight.
func TestEdgesFromWeights(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	d := dataStart.Truncate(24 * time.Hour) // the data's first day, which it begins at noon
	h := time.Hour
	type rng struct {
		f           query.Filter
		whole, part int // days read from the weights, from the cells (of each kind)
	}
	for _, c := range []rng{
		{query.Filter{From: d.Add(24 * h), To: d.Add(72 * h)}, 2, 0},
		{query.Filter{From: d.Add(13*h + 15*time.Second), To: d.Add(60*h + 45*time.Second)}, 1, 2},
		{query.Filter{From: d.Add(23*h + 59*time.Minute + 59*time.Second), To: d.Add(72*h + time.Second)}, 2, 2},
		{query.Filter{From: d.Add(30 * h), To: d.Add(31*h + 30*time.Second)}, 0, 1},
		{query.Filter{From: d.Add(47 * h), To: d.Add(49 * h)}, 0, 2},
		{query.Filter{}, 2, 2}, // the data's extent: noon to noon, three days later
	} {
		f := c.f
		name := fmt.Sprintf("%s..%s", f.From.Format("02T15:04:05"), f.To.Format("02T15:04:05"))
		for _, typ := range schemas.EdgeTypes() {
			sc := query.Scanner{R: store}
			all, err := sc.Edges(ctx, f, query.EdgeQuery{Type: typ})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) == 0 && f == (query.Filter{}) {
				t.Fatalf("no %s edge in the data: the comparison proves little", typ.Name())
			}
			node := "nobody"
			if len(all) > 0 {
				node = all[len(all)/2].Target
			}
			for _, q := range []query.EdgeQuery{{Type: typ}, {Type: typ, Node: node}, {Type: typ, Top: 3}} {
				want, err := sc.Edges(ctx, f, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, hide := range []bool{false, true} {
					r := &tableReads{Reader: store, hideEdgeDays: hide}
					got, err := query.NewEngine(r).Edges(ctx, f, q)
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s %s %+v (weights hidden %v):\n index %v\n  scan %v", name, typ.Name(), q, hide, got, want)
					}
					weights, cells := r.scans[schemas.TableEdgeDays].Load(), r.scans[schemas.TableEdges].Load()
					if hide && weights != 0 {
						t.Errorf("%s: the weights hidden, %d reads of them", name, weights)
					}
					if !hide && (weights != int64(c.whole) || cells != int64(c.part)) {
						t.Errorf("%s %s: %d reads of the weights and %d of the cells, want %d and %d", name, typ.Name(), weights, cells, c.whole, c.part)
					}
				}
			}
		}
	}
}
