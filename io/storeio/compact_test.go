package storeio

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestCompactOpen: after a bulk load, CompactOpen leaves one level of
// tables and no first-level files, and a compaction that lasts says how
// far it is and when it is done; a store not opened for a bulk load is
// left as it is.
func TestCompactOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for round := range 6 {
		// Each round overlaps the others' keys, and is flushed to its own
		// first-level files.
		var cells []schemas.Cell
		for i := range 5000 {
			key := schemas.NewRowKey(int64(i*7+round), []byte(fmt.Sprint(round)))
			cells = append(cells, schemas.IdentityRow{ID: uint64(i*7 + round), Key: key}.Cell()) // not raw or terms: a bulk load sorts those
		}
		if err := s.Write(cells); err != nil {
			t.Fatal(err)
		}
		if err := s.db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if sh := s.Shape(); sh.L0Files < 6 {
		t.Fatalf("before: %+v, want at least 6 first-level files", sh)
	}
	var out bytes.Buffer
	oldOut, oldEvery := logOutput, compactReportEvery
	logOutput, compactReportEvery = &out, time.Nanosecond
	defer func() { logOutput, compactReportEvery = oldOut, oldEvery }()
	if ok, err := CompactOpen(context.Background(), dir); !ok || err != nil {
		t.Fatalf("CompactOpen: %v, %v", ok, err)
	}
	if sh := s.Shape(); sh.L0Files != 0 || sh.Levels != 1 || sh.WALBytes != 0 {
		t.Errorf("after: %+v, want one level, no first-level files and no log", sh)
	}
	if !strings.Contains(out.String(), "storeio: compacted "+dir) {
		t.Errorf("no line saying the compaction is done: %q", out.String())
	}

	other, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if ok, err := CompactOpen(context.Background(), other.Dir()); ok || err != nil {
		t.Errorf("CompactOpen of a store not bulk loaded: %v, %v; want false, nil", ok, err)
	}
}

// TestCompactOpenSkipsSmallLoads: a load that adds little to a large
// store leaves it as it is (a compaction would rewrite all of it).
func TestCompactOpenSkipsSmallLoads(t *testing.T) {
	dir := t.TempDir()
	write := func(s *Store, n, round int) {
		var cells []schemas.Cell
		for i := range n {
			key := schemas.NewRowKey(int64(i*7+round), []byte(fmt.Sprint(round)))
			cells = append(cells, schemas.IdentityRow{ID: uint64(i*7 + round), Key: key}.Cell()) // not raw or terms: a bulk load sorts those
		}
		if err := s.Write(cells); err != nil {
			t.Fatal(err)
		}
		if err := s.db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	s, err := OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	write(s, 50000, 0)
	if _, err := CompactOpen(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write(s, 2000, 1)
	write(s, 2000, 2)
	l0 := s.Shape().L0Files
	if _, err := CompactOpen(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if sh := s.Shape(); sh.L0Files != l0 || l0 == 0 {
		t.Errorf("a small load into a large store: %d first-level files before, %+v after; want them left", l0, sh)
	}
}
