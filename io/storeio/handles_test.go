package storeio

import (
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// openCount returns how many Opens of dir (absolute) the process holds.
func openCount(dir string) int {
	openMu.Lock()
	defer openMu.Unlock()
	if h := opened[dir]; h != nil {
		return h.refs
	}
	return 0
}

// TestOpenCountsReferences: every Open, OpenBulk and OpenRead of one
// directory in the process shares the database opened first and counts a
// reference; the last Close flushes and closes it, releasing the directory
// (Pebble's lock), and the next Open opens it again with what was written.
func TestOpenCountsReferences(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenRead(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a != c {
		t.Fatal("OpenBulk or OpenRead of an open directory opened a second database")
	}
	if a.bulk {
		t.Error("OpenBulk of a directory already open changed how it is open")
	}
	if n := openCount(a.Dir()); n != 3 {
		t.Fatalf("%d references after three opens, want 3", n)
	}
	if err := a.Write([]schemas.Cell{schemas.MetaRow{Name: "x", Value: []byte("1")}.Cell()}); err != nil {
		t.Fatal(err)
	}
	for i, s := range []*Store{a, b, c} {
		if err := s.Close(); err != nil {
			t.Fatalf("close %d: %v", i+1, err)
		}
	}
	if n := openCount(a.Dir()); n != 0 {
		t.Fatalf("%d references after every Close, want none", n)
	}
	if err := a.Close(); err != nil {
		t.Errorf("a Close after the last: %v, want nothing to happen", err)
	}

	d, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after the last Close: %v", err)
	}
	defer d.Close()
	if d == a {
		t.Error("Open after the last Close returned the closed database")
	}
	if v, ok, err := d.Get(schemas.TableMeta, []byte("x")); err != nil || !ok || string(v) != "1" {
		t.Errorf("after reopening: %q %v %v, want the row written before", v, ok, err)
	}
}

// TestOpenServedShared: the open of a stream that serves its store
// (OpenServed) is the one its writers' Opens share: one database, written
// through one and read through the other.
func TestOpenServedShared(t *testing.T) {
	dir := t.TempDir()
	served, err := OpenServed(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer served.Close()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w != served || w.readOnly {
		t.Fatal("Open after OpenServed did not share its writable database")
	}
	if err := w.Write([]schemas.Cell{schemas.MetaRow{Name: "x", Value: []byte("1")}.Cell()}); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := served.Get(schemas.TableMeta, []byte("x")); err != nil || !ok || string(v) != "1" {
		t.Errorf("the served store reads %q %v %v, want the row the writer wrote", v, ok, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
