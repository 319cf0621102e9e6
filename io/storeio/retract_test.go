package storeio

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestBulkRetractionIntents: the identity stage writes a retracted
// version's term and authors deletes (writeDurably), then its raw delete.
// In a bulk load the term and authors cells go to the sorted load, on disk
// only at its end, while a memtable flush puts the raw delete on disk at
// any time: without more, a crash between leaves the cells of a version an
// earlier run stored with no raw row, for good (the next run finds nothing
// to retract). The cells whose keys the database holds are recorded as an
// intent, ahead of the raw delete. Three ends:
//   - a crash after a flush, the load not ingested: the next open applies
//     the intents, and the cells this run wrote to the sorted load alone
//     are lost with it;
//   - a crash once the end saved its plan, before its ingestion: the next
//     open completes the ingestion and does not apply the intents over it
//     (a cell the intent deletes and the run writes again stays written);
//   - the load's end: every key as written.
//
// Each leaves no intent behind, and no table file that spans a table
// written through the memtable and a sorted one (the end's compaction of
// the memtable's tables would rewrite the sorted tables it overlaps).
func TestBulkRetractionIntents(t *testing.T) {
	k := schemas.NewRowKey(1793534400, []byte(`{"a":1}`))
	term := func(term string, freq uint32) schemas.Cell {
		return schemas.TermRow{Term: term, Field: "text", Key: k, Freq: freq}.Cell()
	}
	del := func(c schemas.Cell) schemas.Cell { return schemas.Cell{Table: c.Table, Key: c.Key, Delete: true} }
	author := schemas.AuthorRow{Key: k, ID: 7, Lang: "en", ScreenName: "u"}.Cell()
	raw := schemas.RawRow{Key: k, ID: 7, JSON: []byte(`{"a":1}`)}.Cell()
	// An earlier run's cells, on disk; "shared" says 3.
	earlier := []schemas.Cell{term("gone", 1), term("back", 1), term("shared", 3), author, raw}
	// The retraction, then the raw delete, then a later write of the run.
	retract := []schemas.Cell{
		del(term("gone", 1)), // an earlier run's cell deleted
		del(term("back", 1)), // deleted, and written again later in the run
		term("shared", 2),    // an earlier run's cell written again (a collision's kept tweet)
		del(author),
		del(term("never", 1)), // a cell no run left on disk
		term("new", 2),        // a cell this run writes
	}
	later := []schemas.Cell{term("back", 5)}
	cells := map[string]schemas.Cell{"gone": term("gone", 1), "back": term("back", 1), "shared": term("shared", 2),
		"never": term("never", 1), "new": term("new", 2), "author": author, "raw": raw}
	const absent = "(absent)"
	// After a crash: the earlier run's cells deleted or rewritten before
	// the raw row went, nothing of this run's sorted cells.
	crashed := map[string]string{"gone": absent, "back": absent, "shared": "2", "never": absent, "new": absent, "author": absent, "raw": absent}
	// After the load's end: every key as written.
	finished := map[string]string{"gone": absent, "back": "5", "shared": "2", "never": absent, "new": "2", "author": absent, "raw": absent}

	check := func(t *testing.T, s *Store, want map[string]string, spans bool) {
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
				t.Errorf("cell %s holds %q, want %q", name, got, want[name])
			}
		}
		it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: intentBounds[0], UpperBound: intentBounds[1]})
		if err != nil {
			t.Fatal(err)
		}
		if it.First() {
			t.Errorf("intent %x left in the store", it.Key())
		}
		it.Close()
		if spans {
			return // the intents applied at open: their batch spans both, once
		}
		lowestSorted := byte(0xff)
		for tab, sorted := range sortedTables {
			if sorted {
				lowestSorted = min(lowestSorted, byte(tab))
			}
		}
		levels, err := s.db.SSTables()
		if err != nil {
			t.Fatal(err)
		}
		for level, files := range levels {
			for _, f := range files {
				if lo, hi := f.Smallest.UserKey[0], f.Largest.UserKey[0]; lo < lowestSorted && hi >= lowestSorted {
					t.Errorf("level %d file %s spans %q to %q: a table written through the memtable and a sorted one", level, f.FileNum, lo, hi)
				}
			}
		}
	}
	// crash drops the open database as a dead process leaves it: no
	// Close of the store, no flush.
	crash := func(t *testing.T, s *Store) {
		openMu.Lock()
		delete(opened, s.dir)
		openMu.Unlock()
		if err := s.db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, s *Store, dir string)
		want map[string]string
		// spans: the intents are applied when the store is opened,
		// their batch's first-level file spanning the tables.
		spans bool
	}{
		{"crash after a flush", func(t *testing.T, s *Store, _ string) {
			if err := s.db.Flush(); err != nil { // as a full memtable is
				t.Fatal(err)
			}
			crash(t, s)
		}, crashed, true},
		{"crash before the ingestion", func(t *testing.T, s *Store, dir string) {
			cut := errors.New("cut off")
			old := cutIngest
			cutIngest = func(at string) error {
				if at == "tables" {
					return cut
				}
				return nil
			}
			_, err := FlushOpen(context.Background(), dir, false)
			cutIngest = old
			if !errors.Is(err, cut) {
				t.Fatalf("FlushOpen: %v, want the cut", err)
			}
			crash(t, s)
		}, finished, false},
		{"the load's end", func(t *testing.T, s *Store, dir string) {
			if ok, err := FlushOpen(context.Background(), dir, true); err != nil || !ok {
				t.Fatalf("FlushOpen = %v, %v", ok, err)
			}
			if _, err := CompactOpen(context.Background(), dir); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}, finished, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Write(earlier); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if s, err = OpenBulk(dir); err != nil {
				t.Fatal(err)
			}
			// The raw delete with the tweet's tombstone, as the identity
			// stage writes them.
			tombstone := schemas.IdentityRow{ID: 7, Deleted: true}.Cell()
			for _, w := range [][]schemas.Cell{retract, {del(raw), tombstone}} {
				if err := s.writeDurably(context.Background(), w); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Write(later); err != nil {
				t.Fatal(err)
			}
			if !s.sorted.intents.written.Load() {
				t.Fatal("no intent written")
			}
			tc.end(t, s, dir)
			if s, err = Open(dir); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			check(t, s, tc.want, tc.spans)
		})
	}
}

// TestIntentPrefixSortsAmongMemtableTables: the intents' prefix is no
// table's, and it and every table written through the memtable sort
// below every sorted table, so that a flushed memtable's files span no
// sorted table.
func TestIntentPrefixSortsAmongMemtableTables(t *testing.T) {
	var memtable, sorted []byte
	for _, spec := range schemas.Registry() {
		if byte(spec.Table) == intentPrefix {
			t.Errorf("table %s has the intents' prefix %q", spec.Name, intentPrefix)
		}
		if sortedTables[spec.Table] {
			sorted = append(sorted, byte(spec.Table))
		} else {
			memtable = append(memtable, byte(spec.Table))
		}
	}
	memtable = append(memtable, intentPrefix)
	if len(sorted) == 0 {
		t.Fatal("no sorted table")
	}
	if slices.Max(memtable) >= slices.Min(sorted) {
		t.Errorf("written through the memtable: %q; sorted: %q; want each of the first below each of the second", memtable, sorted)
	}
}
