package storeio

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/tweetindex/tweetindex/io/storeio/storeiotest"
	"github.com/tweetindex/tweetindex/schemas"
)

// streamBundles are the bundles a stream-like writer writes in
// TestFaultsStreamWrites: b of them, each of cells of several tables,
// setting new keys, overwriting keys of earlier bundles and deleting some,
// about 2 MB a bundle, so that the memtable (32 MB) is flushed and the
// write-ahead log rotated along the way.
func streamBundles(n int) [][]schemas.Cell {
	r := rand.New(rand.NewPCG(38, 1))
	tables := []schemas.Table{schemas.TableRaw, schemas.TableTerms, schemas.TableIdentity, schemas.TableFrequency, schemas.TableGeo}
	bundles := make([][]schemas.Cell, n)
	for b := range bundles {
		for i := range 1000 {
			c := schemas.Cell{Table: tables[r.IntN(len(tables))], Key: []byte(fmt.Sprintf("k%03d-%04d", b, i))}
			if b > 0 && i%10 == 0 { // a key of an earlier bundle: overwritten or deleted
				c.Key = []byte(fmt.Sprintf("k%03d-%04d", r.IntN(b), r.IntN(1000)))
				c.Table = tables[len(c.Key)%len(tables)]
				c.Delete = i%20 == 0
			}
			if !c.Delete {
				c.Value = make([]byte, 1500+r.IntN(1000))
				for j := range c.Value {
					c.Value[j] = byte(r.Uint32())
				}
			}
			bundles[b] = append(bundles[b], c)
		}
	}
	return bundles
}

// writeStream writes bundles to the store in dir as a stream's sink does
// (WriteFn, not bulk: the write-ahead log, each bundle synced when it
// ends), calling acked(i) once bundle i is durable.
func writeStream(ctx context.Context, dir string, bundles [][]schemas.Cell, acked func(int)) error {
	f := &WriteFn{Dir: dir, FlushBytes: 1 << 20}
	if err := f.Setup(); err != nil {
		return err
	}
	for i, cells := range bundles {
		for k := 0; k < len(cells); k += 100 {
			if err := f.ProcessElement(ctx, cells[k:min(k+100, len(cells))]); err != nil {
				f.Teardown()
				return err
			}
		}
		if err := f.FinishBundle(ctx); err != nil {
			f.Teardown()
			return err
		}
		acked(i)
	}
	return f.Teardown()
}

// dumpAll returns every key and value of the store in dir, read with
// Pebble, in key order.
func dumpAll(t testing.TB, dir string) string {
	t.Helper()
	s, err := OpenReadOnly(dir, 0)
	if err != nil {
		t.Fatalf("open the store again: %v", err)
	}
	defer s.Close()
	it, err := s.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b strings.Builder
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Fprintf(&b, "%q %x\n", it.Key(), it.Value())
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFaultsStreamWrites fails the disk (Pebble's vfs/errorfs: ENOSPC from
// an operation on, or one EIO) at random points of a stream-like writer
// (WriteFn without bulk load: the write-ahead log, a sync at the end of
// each bundle), in a child process, as Pebble ends the process when it
// cannot write its log or MANIFEST. The points: a class of operations
// (reads or writes of one kind of file), then one of a clean run's
// operations of that class, from a seed the test prints. After each: no
// panic, the error is one line naming the store; the store opens again
// once the fault is gone, every bundle acknowledged before the fault is
// there as written, and writing every bundle again gives the store of one
// clean run.
func TestFaultsStreamWrites(t *testing.T) {
	ctx := context.Background()
	n := 20
	if f, ok := storeiotest.ChildFault(); ok {
		storeiotest.Inject(t, f)
		dir := storeiotest.ChildEnv("DIR")
		err := writeStream(ctx, dir, streamBundles(n), func(i int) { fmt.Printf("acked %d\n", i) })
		storeiotest.ExitChild(err)
	}
	bundles := streamBundles(n)
	clean := filepath.Join(t.TempDir(), "clean")
	countOps := storeiotest.Count(t)
	if err := writeStream(ctx, clean, bundles, func(int) {}); err != nil {
		t.Fatal(err)
	}
	counts := countOps()
	t.Logf("a clean run's operations by class: %v", counts)
	want := dumpAll(t, clean)
	points := 8
	if testing.Short() {
		points = 3
	}
	faults := storeiotest.Points(storeiotest.Seed(t), counts, points, syscall.ENOSPC, syscall.EIO)
	for i, f := range faults {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("store-", i))
		c := storeiotest.RunChild(t, "TestFaultsStreamWrites", f, "DIR="+dir)
		t.Logf("fault %d of %d, %s: exit %d: %s", i+1, len(faults), f, c.Exit, c.LastLine())
		storeiotest.CheckFailure(t, c, dir, f)
		// Every bundle acknowledged is there, as its last write left it.
		acked := strings.Count(c.Stdout, "acked ")
		s, err := Open(dir)
		if err != nil {
			t.Errorf("%s: the store does not open again: %v", f, err)
			continue
		}
		// A key's last write in the bundles acknowledged, or a write of it
		// by a bundle after them, committed before the fault (a bundle's
		// batches are committed as they fill), though not acknowledged.
		last := map[string][]schemas.Cell{}
		for _, cells := range bundles[:acked] {
			for _, cell := range cells {
				last[string(appendKey(nil, cell.Table, cell.Key))] = []schemas.Cell{cell}
			}
		}
		for _, cells := range bundles[acked:] {
			for _, cell := range cells {
				k := string(appendKey(nil, cell.Table, cell.Key))
				if l, ok := last[k]; ok {
					last[k] = append(l, cell)
				}
			}
		}
		missing := 0
		for _, writes := range last {
			v, ok, err := s.Get(writes[0].Table, writes[0].Key)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if !slices.ContainsFunc(writes, func(c schemas.Cell) bool { return ok != c.Delete && (!ok || bytes.Equal(v, c.Value)) }) {
				missing++
			}
		}
		if err := s.Close(); err != nil {
			t.Errorf("%s: closing the store opened again: %v", f, err)
		}
		if missing > 0 {
			t.Errorf("%s: %d cells of the %d bundles acknowledged are not as written", f, missing, acked)
		}
		if c.Exit == 0 && acked != n {
			t.Errorf("%s: the child succeeded with %d of %d bundles acknowledged", f, acked, n)
		}
		if err := writeStream(ctx, dir, bundles, func(int) {}); err != nil {
			t.Errorf("%s: writing again: %v", f, err)
			continue
		}
		if got := dumpAll(t, dir); got != want {
			t.Errorf("%s: written again, the store differs from one clean run's", f)
		}
	}
}

// TestReadersNeverWrite: a reader (OpenReadOnly: dump, query, serve)
// writes nothing to a store, not even one whose write-ahead log holds
// writes not in its tables (a stream killed: Pebble, opened to write,
// flushes them into a table and writes a new MANIFEST), with a bulk
// load's scratch files left: every operation of its open, reads and
// close that would write fails the test (Pebble's vfs/errorfs), and what
// it reads is what was written. The same store opened to write (OpenRead)
// does write: the test's store calls for it.
func TestReadersNeverWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	o := options(false)
	db, err := pebble.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	var cells []schemas.Cell
	for i := range 200 {
		cells = append(cells, schemas.FrequencyRow{Minute: fmt.Sprintf("2026110112%02d", i%60), Lang: strconv.Itoa(i), Count: int64(i)}.Cell())
	}
	for i, c := range cells {
		if err := db.Set(appendKey(nil, c.Table, c.Key), c.Value, nil); err != nil {
			t.Fatal(err)
		}
		if i == 99 {
			if err := db.Flush(); err != nil { // half in a table, half in the log only
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil { // Pebble's Close leaves the memtable in the log
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bulk-load"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bulk-load", "run-00000"), []byte("left by a dead run"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listing(t, dir)

	var mu sync.Mutex
	var writes []string
	storeiotest.SetFS(t, errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if !storeiotest.IsWrite(op) {
			return nil
		}
		mu.Lock()
		writes = append(writes, fmt.Sprintf("%v %s", op.Kind, op.Path))
		mu.Unlock()
		return &os.PathError{Op: "write", Path: op.Path, Err: syscall.EROFS}
	})))
	r, err := OpenReadOnly(dir, 0)
	if err != nil {
		t.Fatalf("OpenReadOnly: %v", err)
	}
	for _, c := range cells {
		v, ok, err := r.Get(c.Table, c.Key)
		if err != nil || !ok || !bytes.Equal(v, c.Value) {
			t.Fatalf("cell %q: %q, %v, %v; want %q", c.Key, v, ok, err, c.Value)
		}
	}
	n := 0
	if err := r.Scan(context.Background(), schemas.TableFrequency, nil, nil, func(_, _ []byte) error { n++; return nil }); err != nil || n != len(cells) {
		t.Errorf("scan: %d cells, %v; want %d", n, err, len(cells))
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if len(writes) > 0 {
		t.Errorf("a reader wrote to the store: %s", strings.Join(writes, "; "))
	}
	if after := listing(t, dir); after != before {
		t.Errorf("the store's files changed under a reader:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// A writer, on the same filesystem, writes on open.
	if w, err := OpenRead(dir, 0); err == nil {
		w.Close()
	}
	if len(writes) == 0 {
		t.Error("OpenRead wrote nothing either: the test's store does not call for writes")
	}
}

// listing returns the names, sizes and modification times of the files
// under dir.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if filepath.Base(p) == "LOCK" { // taken (flock) by every opener: Pebble opens it to write
			lines = append(lines, p)
			return nil
		}
		lines = append(lines, fmt.Sprintf("%s %d %d", p, fi.Size(), fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
