package pipelines

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// TestScrubGeoOfOneOfACollidingPair: two tweets of one user share a row
// key (a collision) and, a metre apart, one geo cell, which holds one
// point. A scrub_geo that takes the location of one of them writes the
// cell again from the other (as forgetting one does), and one that takes
// both, at once or in two runs, leaves no geo row: the tweet scrubbed in
// an earlier run does not give the cell its point back when the other
// goes, by a scrub or by a forget. The raw and term rows stay. The
// notices are recorded as a run's pipeline records them
// (transforms.NoticeCells) and applied as the run then applies them
// (maintain.ApplyScrubGeo). Store and CQL test server. Before, scrubbing one
// deleted the cell the other still had, and the point of a tweet
// scrubbed came back when the other was forgotten.
func TestScrubGeoOfOneOfACollidingPair(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	const user = 4242
	lats := [2]float64{10.5, 10.50001}
	if schemas.Geohash(lats[0], 20) != schemas.Geohash(lats[1], 20) {
		t.Fatal("the two points are not in one geohash cell: the test shares no geo cell")
	}
	lines, ids := collidingPair(at, func(kind, i int, id uint64) string {
		return fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"collide n%d","lang":"en","user":{"id_str":"%d","name":"n","screen_name":"s"},"coordinates":{"type":"Point","coordinates":[20,%g]}}`,
			at.Format(time.RubyDate), id, i, user, lats[kind])
	})
	first := 0 // the tweet of the smaller id
	if ids[1] < ids[0] {
		first = 1
	}
	tweet := func(i int) schemas.Notice { return schemas.Notice{Kind: "scrub_geo", V2: true, ID: ids[i]} }
	byUser := func(upTo uint64) schemas.Notice { return schemas.Notice{Kind: "scrub_geo", ID: user, UpTo: upTo} }
	type step struct {
		notices []schemas.Notice // applied as one run applies its notices
		forget  []uint64         // or forgotten
	}
	notices := func(ns ...schemas.Notice) step { return step{notices: ns} }
	cases := []struct {
		name     string
		steps    []step
		want     []int // the tweets whose point the geo rows hold (-1: the cell as indexed)
		scrubbed int   // geo rows the scrubs delete
	}{
		{"v2 event names tweet 0", []step{notices(tweet(0))}, []int{1}, 0},
		{"v2 event names tweet 1", []step{notices(tweet(1))}, []int{0}, 0},
		{"user's up_to is the first id", []step{notices(byUser(ids[first]))}, []int{1 - first}, 0},
		{"user's up_to covers both", []step{notices(byUser(max(ids[0], ids[1])))}, nil, 1},
		{"both named in one run", []step{notices(tweet(0), tweet(1))}, nil, 1},
		{"tweet 0, then tweet 1 in a later run", []step{notices(tweet(0)), notices(tweet(1))}, nil, 1},
		{"tweet 1, then the user's first in a later run", []step{notices(tweet(1 - first)), notices(byUser(ids[first]))}, nil, 1},
		{"another user's", []step{notices(schemas.Notice{Kind: "scrub_geo", ID: user + 1, UpTo: math.MaxUint64})}, []int{-1}, 0},
		// The tweet that stays after a forget gives the shared cell its
		// point (transforms.Identifier keeps it), unless it was scrubbed.
		{"tweet 0 forgotten", []step{{forget: ids[:1]}}, []int{1}, 0},
		{"tweet 0 scrubbed, then tweet 1 forgotten", []step{notices(tweet(0)), {forget: ids[1:]}}, nil, 0},
	}
	for _, sinks := range sinkKinds {
		t.Run(sinks.name, func(t *testing.T) {
			newSink := sinks.sinks(tempDir(t))
			in := writeLines(t, tempDir(t)+"/pair.jsonl", lines[0], lines[1])
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					cfg, dump := newSink(t, fmt.Sprintf("scrub%d", i))
					cfg.Input = in
					if sum := runPipeline(t, cfg); sum.Collisions != 1 {
						t.Fatalf("summary %+v: want one collision", sum)
					}
					cfg.Input = ""
					before := dump()
					scrubbed, forgot := 0, false
					for _, st := range c.steps {
						if len(st.forget) > 0 {
							if _, err := forget(context.Background(), cfg, maintain.IDList{IDs: st.forget}); err != nil {
								t.Fatal(err)
							}
							forgot = true
							continue
						}
						s, err := openSink(cfg)
						if err != nil {
							t.Fatal(err)
						}
						err = s.Write(context.Background(), transforms.NoticeCells(nil, st.notices))
						s.Close()
						if err != nil {
							t.Fatal(err)
						}
						n, err := applyScrubGeo(context.Background(), cfg)
						if err != nil {
							t.Fatal(err)
						}
						scrubbed += n
					}
					after := dump()
					var got []float32 // as stored
					for _, r := range rows(t, after["geo"]) {
						got = append(got, float32(r["lat"].(float64)))
					}
					var want []float32
					for _, i := range c.want {
						if i < 0 { // the cell as it was
							for _, r := range rows(t, before["geo"]) {
								want = append(want, float32(r["lat"].(float64)))
							}
							continue
						}
						want = append(want, float32(lats[i]))
					}
					slices.Sort(got)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("geo rows at latitudes %v, want %v (lines %v)", got, want, lines)
					}
					if scrubbed != c.scrubbed {
						t.Errorf("%d geo rows scrubbed, want %d", scrubbed, c.scrubbed)
					}
					for _, name := range []string{"raw", "terms", "frequency", "authors"} {
						if !forgot && before[name] != after[name] {
							t.Errorf("table %s changed:\n%s\nwas:\n%s", name, after[name], before[name])
						}
					}
					checkNoScrubMarks(t, cfg)
				})
			}
		})
	}
}

// checkNoScrubMarks fails the test if cfg's sink holds a scrub_geo mark.
func checkNoScrubMarks(t *testing.T, cfg Config) {
	t.Helper()
	s, err := openSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = sink.ScanPrefix(context.Background(), s, schemas.TableMeta, []byte(schemas.ScrubGeoPrefix), func(key, _ []byte) error {
		t.Errorf("scrub_geo mark %s left", key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
