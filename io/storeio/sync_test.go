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
	if ok, err := FlushOpen(context.Background(), dir, false); err != nil || !ok {
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
	if ok, _ := FlushOpen(context.Background(), filepath.Join(t.TempDir(), "other"), false); ok {
		t.Error("FlushOpen of a store this process has not opened reported true")
	}
}
