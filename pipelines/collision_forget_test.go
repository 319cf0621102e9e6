package pipelines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestForgetOneOfACollidingPairKeepsSharedRows indexes two tweets that
// share a row key, a word, the author's terms and a point, then forgets
// one: the term and geo rows they share stay (the other tweet still needs
// them), the forgotten tweet's own word goes, and the tables equal those
// of indexing the other tweet alone. Before, the shared rows went with the
// forgotten tweet.
func TestForgetOneOfACollidingPairKeepsSharedRows(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	lines, ids := collidingPairAtOnePoint(at)
	dir := t.TempDir()
	both := filepath.Join(dir, "pair.jsonl")
	second := filepath.Join(dir, "second.jsonl")
	if err := os.WriteFile(both, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte(lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	if sum := runPipeline(t, Config{Input: both, Store: store}); sum.Collisions != 1 {
		t.Fatalf("summary %+v: want one collision", sum)
	}
	if _, err := Forget(context.Background(), Config{Store: store}, IDList{IDs: ids[:1]}); err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(dir, "alone")
	runPipeline(t, Config{Input: second, Store: alone})
	got, want := dumpStore(t, store), dumpStore(t, alone)
	for _, name := range []string{"raw", "terms", "geo", "frequency"} {
		if got[name] != want[name] {
			t.Errorf("table %s after forgetting %d of the pair:\n%s\nwant (the other indexed alone):\n%s", name, ids[0], got[name], want[name])
		}
	}
	if !strings.Contains(got["terms"], `"collide"`) {
		t.Errorf("the shared term is gone:\n%s", got["terms"])
	}
}
