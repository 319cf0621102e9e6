package job

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// checkRowsEqualTables fails the test unless the summary's rows written
// per table equal the rows in the dumped tables (a fresh store or
// keyspace).
func checkRowsEqualTables(t *testing.T, name string, sum Summary, tables map[string]string) {
	t.Helper()
	for table, dump := range tables {
		if n := int64(strings.Count(dump, "\n")); sum.Rows[table] != n {
			t.Errorf("%s: the summary says %d rows written to %s, the table has %d", name, sum.Rows[table], table, n)
		}
	}
}

// TestSummaryRowsEqualTables indexes every file of the sample (every
// format, duplicates, a truncated stream), the same files again under
// other names (every tweet a duplicate, every dead letter a row of its
// own origin) and a hostile file (broken first lines, a one-line array of
// non-tweets, a v2 page of bad elements) into a store and through CQL: in
// both, the summary's rows written per table equal the rows in the
// tables, and the two summaries agree.
func TestSummaryRowsEqualTables(t *testing.T) {
	dir := tempDir(t)
	in := filepath.Join(dir, "in")
	sample := filepath.Join(repoRoot(t), "testdata", "sample")
	entries, err := os.ReadDir(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(in, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(sample, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(in, sub, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	good, err := os.ReadFile(filepath.Join(sample, "v1-stream-12a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	hostile := "{\"id_str\":\n{\"text\": \"cut\n" + string(good) +
		"[1,2,3]\n" + `{"data":[1,{"id":"9"},"s"],"includes":{}}` + "\n"
	if err := os.MkdirAll(filepath.Join(in, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "c", "hostile.jsonl"), []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(in, "*", "*")

	store := filepath.Join(dir, "store")
	viaStore := runPipeline(t, pipelines.Config{Input: input, Store: store})
	if viaStore.Duplicates == 0 || viaStore.DeadLettered == 0 {
		t.Fatalf("the input should hold duplicates and dead letters: %+v", viaStore)
	}
	storeTables := dumpStore(t, store)
	checkRowsEqualTables(t, "store", viaStore, storeTables)

	_, cfg := startCQL(t)
	viaCQL := runPipeline(t, pipelines.Config{Input: input, Cassandra: cfg})
	checkRowsEqualTables(t, "cassandra", viaCQL, dumpCassandra(t, cfg))
	for table, n := range viaStore.Rows {
		if viaCQL.Rows[table] != n {
			t.Errorf("rows written to %s: %d to the store, %d through CQL", table, n, viaCQL.Rows[table])
		}
	}
}

// TestRunSummaryCounts: a run alone in a process whose workers run in it
// takes its summary from the counts the process made while it ran (the
// runner's metrics can lose a bundle's counts: runSummary); a run that
// another overlapped, or whose workers run elsewhere, takes the runner's
// metrics (none here: no result).
func TestRunSummaryCounts(t *testing.T) {
	ctx := context.Background()
	read, rows := flow.NewCounter(flow.CounterRead), flow.NewCounter(flow.RowCounterName(schemas.TableRaw))
	read.Inc(ctx, 3) // before the run: not its own

	c, done := startCounts()
	read.Inc(ctx, 7)
	rows.Inc(ctx, 5)
	if s := runSummary(nil, c, true, time.Second); s.Read != 7 || s.Rows["raw"] != 5 {
		t.Errorf("alone, in process: read %d, raw rows %d; want the run's own 7 and 5", s.Read, s.Rows["raw"])
	}
	if s := runSummary(nil, c, false, time.Second); s.Read != 0 {
		t.Errorf("workers elsewhere: read %d, want the runner's (no result: 0)", s.Read)
	}
	other, otherDone := startCounts() // a second run starts in the process
	if s := runSummary(nil, c, true, time.Second); s.Read != 0 {
		t.Errorf("overlapped by another run: read %d, want the runner's (0)", s.Read)
	}
	otherDone()
	if s := runSummary(nil, other, true, time.Second); s.Read != 0 {
		t.Errorf("a run that started while another ran: read %d, want the runner's (0)", s.Read)
	}
	done()
}
