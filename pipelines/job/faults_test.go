package job

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/io/storeio/storeiotest"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// The disk fails under the embedded store (Pebble's vfs/errorfs, through
// storeiotest: ENOSPC from one operation on, a full disk, or one EIO) at
// random points of a bounded run (a bulk load), a forget and the
// questions of a query; storeio's TestFaultsStreamWrites does the same
// to a stream's writes. Each faulted operation runs in a child process
// of the test binary (Pebble ends the process when it cannot write its
// MANIFEST), the rest in the test's. A point is a class of operations
// (reads or writes of one kind of the store's files: tables, log,
// MANIFEST, the bulk load's scratch files...), each as likely, then one
// of the operations of that class a clean run made, each as likely,
// chosen from a seed the test prints (TWEETINDEX_FAULT_SEED runs the same
// points again). After each: no panic, the error is one line naming the
// store; with the fault gone, the store opens, and either the operation's
// results are all there or doing it again gives the tables of one clean
// run.

// faultPoints is how many random points each test tries.
func faultPoints() int {
	if testing.Short() {
		return 2
	}
	return 6
}

// faultInput is the input of the fault tests: the committed sample.
func faultInput(t testing.TB) string {
	return filepath.Join(repoRoot(t), "testdata", "sample", "*")
}

// faultChunkBytes makes the bulk loads' chunks small, so that the sample
// spills and merges run files as a large input does.
const faultChunkBytes = 64 << 10

// closeStores closes what a run in this process left open in dir (prism
// never tears a finished job's sinks down).
func closeStores(t testing.TB, dir string) {
	t.Helper()
	if _, err := storeio.CloseOpen(dir); err != nil {
		t.Logf("closing the stores in %s: %v", dir, err)
	}
}

// TestFaultsBoundedRun: faults at random points of a bounded run, a bulk
// load into a fresh store; after each, running it again gives the tables
// of one clean run, and leaves no scratch files of the load.
func TestFaultsBoundedRun(t *testing.T) {
	storeiotest.SetBulkChunkBytes(t, faultChunkBytes)
	if f, ok := storeiotest.ChildFault(); ok {
		storeiotest.Inject(t, f)
		dir := storeiotest.ChildEnv("DIR")
		sum, err := Run(context.Background(), pipelines.Config{Input: faultInput(t), Store: dir})
		if err == nil && !sum.Reconciles() {
			err = fmt.Errorf("store %s: counts do not reconcile: %+v", dir, sum)
		}
		storeiotest.ExitChild(err)
	}
	root := tempDir(t)
	clean := filepath.Join(root, "clean")
	countOps := storeiotest.Count(t)
	runPipeline(t, pipelines.Config{Input: faultInput(t), Store: clean})
	closeStores(t, clean)
	counts := countOps()
	t.Logf("a clean run's operations by class: %v", counts)
	want := dumpStore(t, clean)
	faults := storeiotest.Points(storeiotest.Seed(t), counts, faultPoints(), syscall.ENOSPC, syscall.EIO)
	for i, f := range faults {
		dir := filepath.Join(root, fmt.Sprint("store-", i))
		c := storeiotest.RunChild(t, "TestFaultsBoundedRun", f, "DIR="+dir)
		t.Logf("fault %d of %d, %s: exit %d: %s", i+1, len(faults), f, c.Exit, c.LastLine())
		storeiotest.CheckFailure(t, c, dir, f)
		if c.Exit == 0 {
			diffTables(t, want, dumpStore(t, dir), "clean run", "run with "+f.String())
		}
		runPipeline(t, pipelines.Config{Input: faultInput(t), Store: dir})
		closeStores(t, dir)
		diffTables(t, want, dumpStore(t, dir), "clean run", "run again after "+f.String())
		if _, err := os.Stat(filepath.Join(dir, "bulk-load")); err == nil {
			t.Errorf("%s: the run again left the load's scratch directory", f)
		}
	}
}

// forgetIDs returns some tweet ids the store in dir holds: every third
// stored tweet's, from the raw table.
func forgetIDs(t testing.TB, dir string) maintain.IDList {
	t.Helper()
	tables, err := sink.Open(sink.Config{Store: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	var list maintain.IDList
	n := 0
	if err := tables.Scan(context.Background(), schemas.TableRaw, nil, nil, func(key, value []byte) error {
		r, err := schemas.DecodeRaw(key, value)
		if err != nil {
			return err
		}
		if n++; n%3 == 0 {
			list.IDs = append(list.IDs, r.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(list.IDs) == 0 {
		t.Fatal("no tweet ids in the raw table")
	}
	return list
}

// copyStore copies the closed store in src to dst.
func copyStore(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFaultsForget: faults at random points of a forget of a third of the
// stored tweets; after each, forgetting them again gives the tables of
// one clean forget.
func TestFaultsForget(t *testing.T) {
	if f, ok := storeiotest.ChildFault(); ok {
		dir := storeiotest.ChildEnv("DIR")
		var list maintain.IDList
		if err := json.Unmarshal([]byte(storeiotest.ChildEnv("IDS")), &list.IDs); err != nil {
			storeiotest.ExitChild(err)
		}
		storeiotest.Inject(t, f)
		_, err := forget(context.Background(), pipelines.Config{Store: dir}, list)
		storeiotest.ExitChild(err)
	}
	root := tempDir(t)
	base := filepath.Join(root, "base")
	runPipeline(t, pipelines.Config{Input: faultInput(t), Store: base})
	closeStores(t, base)
	list := forgetIDs(t, base)
	ids, err := json.Marshal(list.IDs)
	if err != nil {
		t.Fatal(err)
	}
	clean := filepath.Join(root, "clean")
	copyStore(t, base, clean)
	countOps := storeiotest.Count(t)
	if _, err := forget(context.Background(), pipelines.Config{Store: clean}, list); err != nil {
		t.Fatal(err)
	}
	counts := countOps()
	t.Logf("a clean run's operations by class: %v", counts)
	want := dumpStore(t, clean)
	faults := storeiotest.Points(storeiotest.Seed(t), counts, faultPoints(), syscall.ENOSPC, syscall.EIO)
	for i, f := range faults {
		dir := filepath.Join(root, fmt.Sprint("store-", i))
		copyStore(t, base, dir)
		c := storeiotest.RunChild(t, "TestFaultsForget", f, "DIR="+dir, "IDS="+string(ids))
		t.Logf("fault %d of %d, %s: exit %d: %s", i+1, len(faults), f, c.Exit, c.LastLine())
		storeiotest.CheckFailure(t, c, dir, f)
		if c.Exit == 0 {
			diffTables(t, want, dumpStore(t, dir), "clean forget", "forget with "+f.String())
		}
		if _, err := forget(context.Background(), pipelines.Config{Store: dir}, list); err != nil {
			t.Errorf("%s: forget again: %v", f, err)
			continue
		}
		diffTables(t, want, dumpStore(t, dir), "clean forget", "forget again after "+f.String())
	}
}

// askQuestions asks the store in dir, opened as tweetindex query opens it
// (read-only, or its newest snapshot), several questions, and returns the
// answers as text.
func askQuestions(ctx context.Context, dir string) (string, error) {
	tables, err := sink.Open(sink.Config{Store: dir, Snapshot: true})
	if err != nil {
		return "", err
	}
	defer tables.Close()
	e := query.NewEngine(tables.Reader)
	var b strings.Builder
	from, to, err := e.Extent(ctx)
	if err != nil {
		return "", err
	}
	f := query.Filter{From: from, To: to.Add(time.Minute)}
	n, err := e.Count(ctx, f)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "count %d\n", n)
	series, err := e.SeriesBy(ctx, f, time.Hour, true)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "series %s\n", jsonText(series))
	terms := 0
	if err := e.Terms(ctx, f, []string{"rt"}, query.And, "text", query.Page{Limit: 50}, func(h query.Hit) error {
		terms++
		fmt.Fprintf(&b, "term hit %s\n", jsonText(h))
		return nil
	}); err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "term hits %d\n", terms)
	users, err := e.Users(ctx, f)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "users %s\n", jsonText(users))
	var dump strings.Builder
	for _, table := range []schemas.Table{schemas.TableRaw, schemas.TableFrequency, schemas.TableGeo, schemas.TableAuthors} {
		if _, err := maintain.DumpRows(ctx, tables, table, func(row any) error {
			return json.NewEncoder(&dump).Encode(row)
		}); err != nil {
			return "", err
		}
	}
	b.WriteString(dump.String())
	return b.String(), nil
}

// jsonText returns v as JSON (pointers followed, maps in key order).
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestFaultsQuery: faults at random points of the questions of a query
// (EIO on a read of any of the store's files; ENOSPC on any write, of
// which a reader makes none); after each, the store opens and answers as
// before, and its files are as they were. A query that answers despite
// the fault answers as without it.
func TestFaultsQuery(t *testing.T) {
	ctx := context.Background()
	if f, ok := storeiotest.ChildFault(); ok {
		storeiotest.Inject(t, f)
		answers, err := askQuestions(ctx, storeiotest.ChildEnv("DIR"))
		if err == nil {
			fmt.Print(answers)
		}
		storeiotest.ExitChild(err)
	}
	root := tempDir(t)
	dir := filepath.Join(root, "store")
	runPipeline(t, pipelines.Config{Input: faultInput(t), Store: dir})
	closeStores(t, dir)
	countOps := storeiotest.Count(t)
	want, err := askQuestions(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	counts := countOps()
	t.Logf("a clean run's operations by class: %v", counts)
	for c, n := range counts {
		if c.Write && n > 0 {
			t.Errorf("a query made %d write operations on %s files", n, c.Kind)
		}
	}
	before := storeFiles(t, dir)
	// EIO at the reads of the clean questions; ENOSPC at the first write
	// of a kind, of which the clean questions made none, were there one.
	writes := storeiotest.Counts{}
	for _, kind := range []string{"sst", "wal", "manifest", "options", "other"} {
		writes[storeiotest.Class{Write: true, Kind: kind}] = 1
	}
	seed := storeiotest.Seed(t)
	faults := append(storeiotest.Points(seed, counts, 2*faultPoints(), syscall.EIO),
		storeiotest.Points(seed+1, writes, faultPoints()/2, syscall.ENOSPC)...)
	for i, f := range faults {
		c := storeiotest.RunChild(t, "TestFaultsQuery", f, "DIR="+dir)
		t.Logf("fault %d of %d, %s: exit %d: %s", i+1, len(faults), f, c.Exit, c.LastLine())
		storeiotest.CheckFailure(t, c, dir, f)
		if c.Exit == 0 && c.Stdout != want {
			t.Errorf("%s: the query answered, not as without the fault", f)
		}
		if f.Errno == syscall.ENOSPC && c.Exit != 0 {
			t.Errorf("%s: a query failed on a write fault: it wrote", f)
		}
		if after := storeFiles(t, dir); after != before {
			t.Errorf("%s: the store's files changed under a query:\nbefore:\n%s\nafter:\n%s", f, before, after)
		}
		got, err := askQuestions(ctx, dir)
		if err != nil {
			t.Errorf("%s: asked again: %v", f, err)
		} else if got != want {
			t.Errorf("%s: asked again, the answers differ", f)
		}
	}
}

// storeFiles returns the names, sizes and modification times of the files
// under dir.
func storeFiles(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if filepath.Base(p) == "LOCK" { // taken (flock) by every opener: Pebble opens it to write
			fmt.Fprintln(&b, p)
			return nil
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
