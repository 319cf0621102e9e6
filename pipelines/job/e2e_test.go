package job

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/testdata/gen/tweetgen"
	"github.com/tweetindex/tweetindex/transforms"
)

// sampleExpected is the path of testdata/expected/sample.json: counts the
// generator computed from its own model of the sample, independently of
// the decoder.
func sampleExpected(t testing.TB) string {
	return filepath.Join(repoRoot(t), "testdata", "expected", "sample.json")
}

// loadExpected reads sampleExpected.
func loadExpected(t *testing.T) tweetgen.Expected {
	t.Helper()
	raw, err := os.ReadFile(sampleExpected(t))
	if err != nil {
		t.Fatal(err)
	}
	var e tweetgen.Expected
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// indexSample indexes the committed sample into a new store and returns
// the store's directory and the summary.
func indexSample(t *testing.T) (string, Summary) {
	t.Helper()
	store := filepath.Join(tempDir(t), "store")
	sum := runPipeline(t, pipelines.Config{Input: filepath.Join(repoRoot(t), "testdata", "sample", "*"), Store: store})
	return store, sum
}

// TestSampleBatchesByReference: a bounded run on prism in this process
// sends its tweet batches to deduplication by handle
// (transforms.ShareBatchesInProcess), and every one is taken back, once:
// none is held after the run. Not parallel, so that no other run shares
// batches meanwhile.
func TestSampleBatchesByReference(t *testing.T) {
	sent0, _ := transforms.SharedBatches()
	_, sum := indexSample(t)
	sent, held := transforms.SharedBatches()
	if sent == sent0 {
		t.Errorf("the run sent no batch by handle (indexed %d tweets; sent %d before, %d after)", sum.Indexed, sent0, sent)
	}
	if held != 0 {
		t.Errorf("%d of the %d batches sent by handle are still held after the run", held, sent-sent0)
	}
}

// rows decodes a table dump into one map per row.
func rows(t *testing.T, dump string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(dump, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("dump line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestSampleMatchesGenerator indexes testdata/sample and compares the
// summary and every table with what the generator recorded while writing
// the sample.
func TestSampleMatchesGenerator(t *testing.T) {
	t.Parallel()
	want := loadExpected(t)
	dump, sum, _ := indexSampleFiles(t)

	got := map[string]int64{"read": sum.Read, "indexed": sum.Indexed, "duplicates": sum.Duplicates, "skipped": sum.Skipped, "dead_lettered": sum.DeadLettered}
	for k, w := range map[string]int64{"read": want.Read, "indexed": want.Indexed, "duplicates": want.Duplicates, "skipped": want.Skipped, "dead_lettered": want.DeadLettered} {
		if got[k] != w {
			t.Errorf("summary %s = %d, generator says %d", k, got[k], w)
		}
	}
	for table, w := range want.Rows {
		if sum.Rows[table] != w {
			t.Errorf("rows written to %s = %d, generator says %d", table, sum.Rows[table], w)
		}
	}

	for table, w := range want.Rows {
		if n := int64(len(rows(t, dump[table]))); n != w {
			t.Errorf("table %s holds %d rows, generator says %d", table, n, w)
		}
	}

	t.Run("frequency", func(t *testing.T) {
		gotFreq := map[string]int64{}
		for _, r := range rows(t, dump["frequency"]) {
			gotFreq[r["minute"].(string)+"/"+r["lang"].(string)] = int64(r["count"].(float64))
		}
		for k, w := range want.Frequency {
			if gotFreq[k] != w {
				t.Errorf("frequency %s = %d, want %d", k, gotFreq[k], w)
			}
		}
		if len(gotFreq) != len(want.Frequency) {
			t.Errorf("frequency has %d cells, want %d", len(gotFreq), len(want.Frequency))
		}
	})

	t.Run("terms", func(t *testing.T) {
		perTerm := map[string]int64{}
		for _, r := range rows(t, dump["terms"]) {
			perTerm[r["field"].(string)+"/"+r["term"].(string)]++
		}
		for k, w := range want.Terms {
			if perTerm[k] != w {
				t.Errorf("term %s is in %d tweets, want %d", k, perTerm[k], w)
			}
		}
	})

	t.Run("geo", func(t *testing.T) {
		// Map row keys to tweet ids through the raw table.
		idOf := map[string]string{}
		for _, r := range rows(t, dump["raw"]) {
			idOf[r["row_key"].(string)] = r["tweet_id"].(string)
		}
		seen := map[string]bool{}
		for _, r := range rows(t, dump["geo"]) {
			id := idOf[r["row_key"].(string)]
			p, ok := want.Points[id]
			if !ok {
				t.Errorf("geo row for tweet %q (row key %s), which the generator did not geotag", id, r["row_key"])
				continue
			}
			seen[id] = true
			if d := abs(r["lat"].(float64)-p[0]) + abs(r["lon"].(float64)-p[1]); d > 1e-4 {
				t.Errorf("tweet %s at (%v, %v), want (%v, %v)", id, r["lat"], r["lon"], p[0], p[1])
			}
		}
		if len(seen) != len(want.Points) {
			t.Errorf("%d geotagged tweets indexed, want %d", len(seen), len(want.Points))
		}
	})

	t.Run("deadletter", func(t *testing.T) {
		var gotOrigins, wantOrigins []string
		for _, r := range rows(t, dump["deadletter"]) {
			o := r["origin"].(string)
			gotOrigins = append(gotOrigins, strings.TrimPrefix(o, filepath.Join(repoRoot(t), "testdata", "sample")+"/"))
			if r["reason"].(string) == "" {
				t.Errorf("dead letter %s has no reason", o)
			}
		}
		for _, d := range want.DeadLetters {
			wantOrigins = append(wantOrigins, d.Origin)
		}
		sort.Strings(gotOrigins)
		sort.Strings(wantOrigins)
		if fmt.Sprint(gotOrigins) != fmt.Sprint(wantOrigins) {
			t.Errorf("dead-letter origins\n got %v\nwant %v", gotOrigins, wantOrigins)
		}
	})
}

// TestIndexTwiceIsIdempotent runs the sample twice into one store: the
// second run must rewrite exactly the same cells.
func TestIndexTwiceIsIdempotent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) indexes the whole sample twice into one store; TestBackfillTwoHoursOfAnArchive runs a backfill twice either way")
	}
	t.Parallel()
	store, first := indexSample(t)
	before := dumpStore(t, store)
	second := runPipeline(t, pipelines.Config{Input: filepath.Join(repoRoot(t), "testdata", "sample", "*"), Store: store})
	diffTables(t, before, dumpStore(t, store), "first run", "after second run")
	if first.Read != second.Read || first.Indexed != second.Indexed {
		t.Errorf("second run read %d, indexed %d; first read %d, indexed %d", second.Read, second.Indexed, first.Read, first.Indexed)
	}
}

// TestSameFilesUnderTwoNames indexes the sample's files under two names in
// one run: every tweet is a duplicate of itself, so the tweet tables equal
// those of a single copy, and each broken record is dead-lettered once per
// file it is in (the dead-letter table is keyed by origin).
func TestSameFilesUnderTwoNames(t *testing.T) {
	t.Parallel()
	shared, _, _ := indexSampleFiles(t)
	want := maps.Clone(shared) // its deadletter entry is deleted below

	dir := tempDir(t)
	src := filepath.Join(repoRoot(t), "testdata", "sample")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name, "copy-"+e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	store := filepath.Join(tempDir(t), "store")
	sum := runPipeline(t, pipelines.Config{Input: filepath.Join(dir, "*", "*"), Store: store})
	got := dumpStore(t, store)

	deadWant, deadGot := want["deadletter"], got["deadletter"]
	delete(want, "deadletter")
	delete(got, "deadletter")
	diffTables(t, want, got, "one copy", "two copies")

	exp := loadExpected(t)
	if sum.Indexed != exp.Indexed || sum.Read != 2*exp.Read || sum.DeadLettered != 2*exp.DeadLettered {
		t.Errorf("two copies: read %d indexed %d dead_lettered %d; want read %d indexed %d dead_lettered %d",
			sum.Read, sum.Indexed, sum.DeadLettered, 2*exp.Read, exp.Indexed, 2*exp.DeadLettered)
	}
	if n, m := len(rows(t, deadGot)), len(rows(t, deadWant)); n != 2*m {
		t.Errorf("dead letters of two copies: %d, want %d", n, 2*m)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
