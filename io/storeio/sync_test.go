package storeio

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// copyDir copies the files of an open store, as a crash would leave them
// on disk (less the lock file).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "LOCK" {
			continue
		}
		src, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
}

// TestSyncMakesWritesDurable writes a cell and syncs, with the store still
// open (prism never closes a sink's store at the end of a run): a copy of
// the files on disk holds the cell.
func TestSyncMakesWritesDurable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cell := schemas.FrequencyRow{Minute: "202611011200", Lang: "en", Count: 42}.Cell()
	if err := s.Write([]schemas.Cell{cell}); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	copyDir(t, dir, cp)
	c, err := Open(cp)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, ok, err := c.Get(cell.Table, cell.Key)
	if err != nil || !ok || string(v) != "42" {
		t.Errorf("the files on disk hold %q (found %v, %v), want the synced cell", v, ok, err)
	}
}

// TestFlushOpenMakesBulkWritesDurable writes a cell to a store opened by
// OpenBulk, which has no write-ahead log, and calls FlushOpen with the
// store still open: a copy of the files on disk holds the cell. Without the
// flush it would only be in a memtable.
func TestFlushOpenMakesBulkWritesDurable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cell := schemas.FrequencyRow{Minute: "202611011200", Lang: "en", Count: 42}.Cell()
	if err := s.Write([]schemas.Cell{cell}); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil { // no log: does nothing
		t.Fatal(err)
	}
	before := filepath.Join(t.TempDir(), "before")
	copyDir(t, dir, before)
	if ok, err := FlushOpen(context.Background(), dir); err != nil || !ok {
		t.Fatalf("FlushOpen = %v, %v; want true, nil", ok, err)
	}
	after := filepath.Join(t.TempDir(), "after")
	copyDir(t, dir, after)
	for _, tc := range []struct {
		dir  string
		want bool
	}{{before, false}, {after, true}} {
		c, err := Open(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := c.Get(cell.Table, cell.Key)
		c.Close()
		if err != nil || ok != tc.want {
			t.Errorf("%s: cell on disk %v (%v), want %v", filepath.Base(tc.dir), ok, err, tc.want)
		}
	}
	if ok, _ := FlushOpen(context.Background(), filepath.Join(t.TempDir(), "other")); ok {
		t.Error("FlushOpen of a store this process has not opened reported true")
	}
}

// TestBulkRetractionReachesDiskBeforeItsRawDelete: the identity stage
// writes a retracted version's term and authors deletes (writeDurably),
// then its raw delete. In a bulk load the term and authors cells go to
// the sorted load, on disk only at its end, while a memtable flush puts
// the raw delete on disk at any time: a crash between left the cells of
// a version an earlier run stored with no raw row, for good (the next
// run finds nothing to retract). Now such cells (keys the database holds)
// also go to the memtable, ahead of the raw delete: a copy of the files
// after a flush, as a crash leaves them, holds none of them, and the cells
// this run wrote to the sorted load alone are lost with it; the end of
// the load leaves every key as written, in order.
func TestBulkRetractionReachesDiskBeforeItsRawDelete(t *testing.T) {
	k := schemas.NewRowKey(1793534400, []byte(`{"a":1}`))
	term := func(term string, freq uint32) schemas.Cell {
		return schemas.TermRow{Term: term, Field: "text", Key: k, Freq: freq}.Cell()
	}
	del := func(c schemas.Cell) schemas.Cell { return schemas.Cell{Table: c.Table, Key: c.Key, Delete: true} }
	author := schemas.AuthorRow{Key: k, ID: 7, Lang: "en", ScreenName: "u"}.Cell()
	raw := schemas.RawRow{Key: k, ID: 7, JSON: []byte(`{"a":1}`)}.Cell()
	// An earlier run's cells, on disk; "shared" says 3.
	earlier := []schemas.Cell{term("gone", 1), term("shared", 3), author, raw}
	// The retraction, then the raw delete.
	retract := []schemas.Cell{
		del(term("gone", 1)), // an earlier run's cell deleted
		term("shared", 2),    // an earlier run's cell written again (a collision's kept tweet)
		del(author),
		del(term("never", 1)), // a cell no run left on disk
		term("new", 2),        // a cell this run writes
	}
	cells := map[string]schemas.Cell{"gone": term("gone", 1), "shared": term("shared", 2), "never": term("never", 1), "new": term("new", 2), "author": author, "raw": raw}
	absent := "(absent)"
	// After a crash: the earlier run's cells deleted or rewritten before
	// the raw row went, nothing of this run's sorted cells.
	crashed := map[string]string{"gone": absent, "shared": "2", "never": absent, "new": absent, "author": absent, "raw": absent}
	// After the load's end: every key as written.
	finished := map[string]string{"gone": absent, "shared": "2", "never": absent, "new": "2", "author": absent, "raw": absent}

	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(earlier); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.writeDurably(context.Background(), retract); err != nil {
		t.Fatal(err)
	}
	if err := s.writeDurably(context.Background(), []schemas.Cell{del(raw)}); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil { // as a full memtable is
		t.Fatal(err)
	}
	crash := filepath.Join(t.TempDir(), "crash")
	copyDir(t, dir, crash)
	if ok, err := FlushOpen(context.Background(), dir); err != nil || !ok {
		t.Fatalf("FlushOpen = %v, %v", ok, err)
	}
	check := func(s *Store, want map[string]string, what string) {
		t.Helper()
		for name, c := range cells {
			v, ok, err := s.Get(c.Table, c.Key)
			if err != nil {
				t.Fatal(err)
			}
			got := absent
			if ok {
				got = string(v)
			}
			if got != want[name] {
				t.Errorf("%s: cell %s holds %q, want %q", what, name, got, want[name])
			}
		}
	}
	check(s, finished, "after the load's end")
	c, err := Open(crash)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	check(c, crashed, "on disk after a flush, the load not finished (a crash)")
}
