package job

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tweetindex/tweetindex/pipelines"
)

// TestHostileLines indexes a JSON-lines file whose first two lines are
// broken, with a one-line array of three non-tweets and a v2 page of three
// bad elements: every good line is indexed, each bad item is one
// dead-letter row, and the summary's rows.deadletter equals the rows in
// the table, in the store and through CQL alike.
func TestHostileLines(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "sample", "v1-stream-12a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	goodPath := filepath.Join(dir, "good", "a.jsonl")
	if err := os.MkdirAll(filepath.Dir(goodPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goodPath, good, 0o644); err != nil {
		t.Fatal(err)
	}
	hostile := "{\"id_str\":\n{\"text\": \"cut\n" + string(good) +
		"[1,2,3]\n" + `{"data":[1,{"id":"9"},"s"],"includes":{}}` + "\n"
	hostilePath := filepath.Join(dir, "hostile", "a.jsonl")
	if err := os.MkdirAll(filepath.Dir(hostilePath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostilePath, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}

	want := runPipeline(t, pipelines.Config{Input: goodPath, Store: filepath.Join(dir, "want")})
	store := filepath.Join(dir, "store")
	got := runPipeline(t, pipelines.Config{Input: hostilePath, Store: store})
	if got.Indexed != want.Indexed || got.DeadLettered != want.DeadLettered+8 {
		t.Errorf("indexed %d, dead_lettered %d; want indexed %d (every good line) and dead_lettered %d (+2 broken lines, +3 array items, +3 page items)",
			got.Indexed, got.DeadLettered, want.Indexed, want.DeadLettered+8)
	}
	tables := dumpStore(t, store)
	if n := int64(len(rows(t, tables["deadletter"]))); n != got.DeadLettered || got.Rows["deadletter"] != n {
		t.Errorf("dead-letter table has %d rows; summary says dead_lettered %d, rows.deadletter %d", n, got.DeadLettered, got.Rows["deadletter"])
	}

	_, cfg := startCQL(t)
	viaCQL := runPipeline(t, pipelines.Config{Input: hostilePath, Cassandra: cfg})
	if viaCQL.Rows["deadletter"] != got.Rows["deadletter"] || viaCQL.DeadLettered != got.DeadLettered {
		t.Errorf("through CQL: dead_lettered %d, rows.deadletter %d; store: %d, %d", viaCQL.DeadLettered, viaCQL.Rows["deadletter"], got.DeadLettered, got.Rows["deadletter"])
	}
	diffTables(t, tables, dumpCassandra(t, cfg), "store", "cassandra")
}
