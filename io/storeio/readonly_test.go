package storeio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/tweetindex/tweetindex/io/storeio/internal/hooks"
	"github.com/tweetindex/tweetindex/io/storeio/storeiotest"
	"github.com/tweetindex/tweetindex/schemas"
)

// readOnlyFS makes the filesystem stores open on read-only, as a
// read-only mount is (Pebble's vfs/errorfs: every operation that writes
// fails with EROFS), until the test ends.
func readOnlyFS(t *testing.T) {
	t.Helper()
	storeiotest.SetFS(t, errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.EROFS}
		}
		return nil
	})))
}

// TestReaderOfAReadOnlyStore: a store on a read-only filesystem is read
// (OpenRead falls back to a read-only open without Pebble's lock, which
// cannot be opened for writing there) with every cell as written; a
// writer's open fails, saying why. A store whose bulk load was cut off
// (its intents not applied) is refused in one line saying to open it once
// where it can be written.
func TestReaderOfAReadOnlyStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cells := []schemas.Cell{
		schemas.FrequencyRow{Minute: "202611011200", Lang: "en", Count: 42}.Cell(),
		schemas.MetaRow{Name: "param/x", Value: []byte("1")}.Cell(),
	}
	if err := s.Write(cells); err != nil {
		t.Fatal(err)
	}
	s.Close()

	readOnlyFS(t)
	if w, err := Open(dir); err == nil {
		w.Close()
		t.Fatal("a writer opened a store on a read-only filesystem")
	}
	r, err := OpenRead(dir, 0)
	if err != nil {
		t.Fatalf("OpenRead of a store on a read-only filesystem: %v", err)
	}
	for _, c := range cells {
		v, ok, err := r.Get(c.Table, c.Key)
		if err != nil || !ok || string(v) != string(c.Value) {
			t.Errorf("cell %s %q: %q, %v, %v; want %q", c.Table.Name(), c.Key, v, ok, err, c.Value)
		}
	}
	r.Close()

	// A load cut off: its intent left in the database.
	hooks.Set(vfs.Default)
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.db.Set([]byte{intentPrefix, 0, 0, 0, 0, 0, 0, 0, 1}, appendIntentCell(nil, []byte("tkey"), nil, true), nil); err != nil {
		t.Fatal(err)
	}
	if err := w.db.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	readOnlyFS(t)
	if r, err := OpenRead(dir, 0); err == nil {
		r.Close()
		t.Fatal("OpenRead read-only of a store whose load was cut off: no error")
	} else if !strings.Contains(err.Error(), "open it once where it can be written") || strings.Contains(err.Error(), "\n") {
		t.Errorf("OpenRead: %v; want one line saying to open it where it can be written", err)
	}
}

// TestReaderRunsNoCompaction: a store whose first level holds more files
// than Pebble lets stand (as two runs of the same days leave it, their
// tables overlapping) has Pebble compact when a writer opens it, and a
// writer's Close waits for that; a reader (OpenRead) starts none, so a
// question does not wait for one when it closes the store.
func TestReaderRunsNoCompaction(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	o := options(false)
	o.DisableAutomaticCompactions = true
	db, err := pebble.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 24 { // L0CompactionThreshold is 16
		for k := range 10 {
			if err := db.Set([]byte(fmt.Sprintf("t%03d-%02d", k, i)), []byte("v"), nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	var begun atomic.Int64
	compactionBegun = &begun
	t.Cleanup(func() { compactionBegun = nil })
	r, err := OpenRead(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n := begun.Load(); n != 0 {
		t.Errorf("a reader began %d compactions, want none", n)
	}
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if begun.Load() == 0 {
		t.Error("a writer began no compaction of 24 first-level files: the test's store does not call for one")
	}
}
