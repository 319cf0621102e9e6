package pipelines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// collidingPairAtOnePoint returns two tweet lines of one second whose JSON
// has the same 32-bit murmur2 (one row key), with the same point and the
// word "collide" in common and a word of their own each, and their ids.
func collidingPairAtOnePoint(at time.Time) (lines [2]string, ids [2]uint64) {
	type cand struct {
		line string
		id   uint64
	}
	seen := map[uint32]cand{}
	for i := 0; ; i++ {
		id := uint64(at.UnixMilli()-1288834974657)<<22 | uint64(i)
		line := fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"collide n%d","lang":"en","user":{"name":"n","screen_name":"s"},"coordinates":{"type":"Point","coordinates":[20,10.5]}}`,
			at.Format(time.RubyDate), id, i)
		h := schemas.Murmur2([]byte(line))
		if prev, ok := seen[h]; ok {
			return [2]string{prev.line, line}, [2]uint64{prev.id, id}
		}
		seen[h] = cand{line, id}
	}
}

// collidingPairSharingCells returns two tweet lines of one second whose
// JSON has the same 32-bit murmur2 (one row key) that share the term
// "collide" with other frequencies (2 in the first, 1 in the second), the
// author's terms, and a geo cell (one geohash) with points a metre apart;
// and their ids.
func collidingPairSharingCells(at time.Time) (lines [2]string, ids [2]uint64) {
	return collidingPair(at, func(kind, i int, id uint64) string {
		text := [2]string{"collide collide n%d", "collide n%d"}[kind]
		lat := [2]string{"10.5", "10.50001"}[kind]
		return fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"`+text+`","lang":"en","user":{"name":"n","screen_name":"s"},"coordinates":{"type":"Point","coordinates":[20,%s]}}`,
			at.Format(time.RubyDate), id, i, lat)
	})
}

// collidingPair returns two tweet lines of one second whose JSON has the
// same 32-bit murmur2 (one row key), one of each kind that line makes
// (kind 0 or 1; i varies the text, id is the tweet's id, created at at),
// in the order of their kinds, and their ids: a birthday search.
func collidingPair(at time.Time, line func(kind, i int, id uint64) string) (lines [2]string, ids [2]uint64) {
	type cand struct {
		line string
		id   uint64
	}
	seen := [2]map[uint32]cand{{}, {}}
	for i := 0; ; i++ {
		kind := i % 2
		id := uint64(at.UnixMilli()-1288834974657)<<22 | uint64(i)
		l := line(kind, i, id)
		h := schemas.Murmur2([]byte(l))
		if other, ok := seen[1-kind][h]; ok {
			if kind == 0 { // keep the kinds in place
				return [2]string{l, other.line}, [2]uint64{id, other.id}
			}
			return [2]string{other.line, l}, [2]uint64{other.id, id}
		}
		seen[kind][h] = cand{l, id}
	}
}

// forgetOneOfAPair indexes the two lines into a sink (new makes it),
// forgets the tweet ids[which], and compares the tables with those of the
// other tweet indexed alone into another new sink.
func forgetOneOfAPair(t *testing.T, dir string, lines [2]string, ids [2]uint64, which int, newSink func(t *testing.T, name string) (Config, func() map[string]string)) map[string]string {
	t.Helper()
	both := filepath.Join(dir, "pair.jsonl")
	other := filepath.Join(dir, fmt.Sprintf("other%d.jsonl", which))
	if err := os.WriteFile(both, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(lines[1-which]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, dump := newSink(t, fmt.Sprintf("pair%d", which))
	cfg.Input = both
	if sum := runPipeline(t, cfg); sum.Collisions != 1 {
		t.Fatalf("summary %+v: want one collision", sum)
	}
	cfg.Input = ""
	if _, err := forget(context.Background(), cfg, maintain.IDList{IDs: ids[which : which+1]}); err != nil {
		t.Fatal(err)
	}
	aloneCfg, aloneDump := newSink(t, fmt.Sprintf("alone%d", which))
	aloneCfg.Input = other
	runPipeline(t, aloneCfg)
	got, want := dump(), aloneDump()
	for _, name := range []string{"raw", "terms", "geo", "frequency"} {
		if got[name] != want[name] {
			t.Errorf("table %s after forgetting %d of the pair:\n%s\nwant (the other indexed alone):\n%s", name, ids[which], got[name], want[name])
		}
	}
	return got
}

// storeSinks makes new embedded stores under dir.
func storeSinks(dir string) func(t *testing.T, name string) (Config, func() map[string]string) {
	return func(t *testing.T, name string) (Config, func() map[string]string) {
		store := filepath.Join(dir, name)
		return Config{Store: store}, func() map[string]string { return dumpStore(t, store) }
	}
}

// cqlSinks makes new keyspaces, each on a CQL test server of its own.
func cqlSinks(t *testing.T, name string) (Config, func() map[string]string) {
	_, cfg := startCQL(t)
	return Config{Cassandra: cfg}, func() map[string]string { return dumpCassandra(t, cfg) }
}

// sinkKinds are the two kinds of sink a test runs on, each a maker of new
// sinks (under dir: storeSinks; cqlSinks needs none) and their dumps.
var sinkKinds = []struct {
	name  string
	sinks func(dir string) func(t *testing.T, name string) (Config, func() map[string]string)
}{
	{"store", storeSinks},
	{"cassandra", func(string) func(*testing.T, string) (Config, func() map[string]string) { return cqlSinks }},
}

// TestForgetOneOfACollidingPairKeepsSharedRows indexes two tweets that
// share a row key, a word, the author's terms and a point, then forgets
// one: the term and geo rows they share stay (the other tweet still needs
// them), the forgotten tweet's own word goes, and the tables equal those
// of indexing the other tweet alone. Before, the shared rows went with the
// forgotten tweet. On the store and through gocql on the CQL test server.
func TestForgetOneOfACollidingPairKeepsSharedRows(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	lines, ids := collidingPairAtOnePoint(at)
	for _, c := range sinkKinds {
		t.Run(c.name, func(t *testing.T) {
			dir := tempDir(t)
			got := forgetOneOfAPair(t, dir, lines, ids, 0, c.sinks(dir))
			if !strings.Contains(got["terms"], `"collide"`) {
				t.Errorf("the shared term is gone:\n%s", got["terms"])
			}
		})
	}
}

// TestForgetOneOfACollidingPairRewritesSharedRows: a term cell and a geo
// cell that two tweets of one row key share hold one value, a frequency
// and a point, of whichever tweet wrote it last. Forgetting either tweet
// writes the shared cells again from the one that stays: the tables equal
// those of the staying tweet indexed alone (its frequency of "collide",
// its point), whichever of the two is forgotten. Before, the cells kept
// the forgotten tweet's value when it had written last.
func TestForgetOneOfACollidingPairRewritesSharedRows(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	if schemas.Geohash(10.5, 20) != schemas.Geohash(10.50001, 20) {
		t.Fatal("the two points are not in one geohash cell: the test shares no geo cell")
	}
	lines, ids := collidingPairSharingCells(at)
	for _, c := range sinkKinds {
		t.Run(c.name, func(t *testing.T) {
			for forget := range 2 {
				forgetOneOfAPair(t, tempDir(t), lines, ids, forget, c.sinks(tempDir(t)))
			}
		})
	}
}
