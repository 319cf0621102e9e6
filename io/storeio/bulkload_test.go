package storeio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tweetindex/tweetindex/io/storeio/internal/extsort"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestSortedLoadKeepsLastWrite bulk loads term and raw cells through the
// sorted load with chunks and sort runs small enough that every path is
// taken (runs spilled to files, a chunk sorted in several runs and
// merged, the last chunk merged from memory, partitions), overwriting and
// deleting keys across chunks, over a store that already holds some of
// them: the tables end equal to a model where the last write of each key
// wins. While the load goes on, Get and Scan find what it holds (the last
// write, over the store's older cells) as the model says. The other
// tables' cells pass through the memtable as before. With a base (the
// load told, half way, that its input is read: MergeEarly), the runs
// spilled by then are merged into the base's tables while the writes go
// on, over the same keys, and the end ingests both; cut short (as the end
// cuts a base whose merge is under way), the base writes some of its
// parts, and the end merges the others with its own runs.
func TestSortedLoadKeepsLastWrite(t *testing.T) {
	for _, tc := range []struct {
		name       string
		chunkBytes int
		sortRun    int
		blockBytes int
		writes     int
		fanIn      int              // runFanIn: 0, none merged before the end
		base       bool             // MergeEarly says the input is read half way through the writes
		cut        func(p int) bool // the base's parts left to the end (cutBasePart)
	}{
		{"one chunk in memory", 1 << 20, 1 << 17, 64 << 10, 500, 0, false, nil},
		{"runs and sort runs", 2 << 10, 7, 64 << 10, 3000, 0, false, nil},
		{"runs of many blocks", 4 << 10, 7, 100, 3000, 0, false, nil},
		{"many small runs", 256, 3, 64 << 10, 2000, 0, false, nil},
		{"runs merged while loading", 256, 3, 64 << 10, 3000, 3, false, nil},
		{"runs of many blocks merged", 1 << 10, 7, 100, 3000, 2, false, nil},
		{"base merged early", 2 << 10, 7, 64 << 10, 3000, 0, true, nil},
		{"base of many blocks", 1 << 10, 7, 100, 3000, 0, true, nil},
		{"base and runs merged while loading", 256, 3, 64 << 10, 3000, 3, true, nil},
		{"base with one chunk in memory", 1 << 20, 1 << 17, 64 << 10, 500, 0, true, nil},
		{"base cut short", 1 << 10, 7, 100, 3000, 0, true, func(p int) bool { return p >= 5 }},
		{"base cut before its first part", 2 << 10, 7, 64 << 10, 3000, 0, true, func(int) bool { return true }},
		{"base cut in every third part", 1 << 10, 7, 100, 3000, 0, true, func(p int) bool { return p%3 == 1 }},
		{"base cut but in every third part", 2 << 10, 7, 64 << 10, 3000, 0, true, func(p int) bool { return p%3 != 1 }},
		{"base cut short, runs merged while loading", 256, 3, 100, 3000, 3, true, func(p int) bool { return p%2 == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldChunk, oldRun, oldBlock, oldFanIn := sortedChunkBytes, extsort.SortRun, extsort.RunBlockBytes, runFanIn
			sortedChunkBytes, extsort.SortRun, extsort.RunBlockBytes, runFanIn = tc.chunkBytes, tc.sortRun, tc.blockBytes, 1<<30
			if tc.fanIn > 0 {
				runFanIn = tc.fanIn
			}
			t.Cleanup(func() {
				sortedChunkBytes, extsort.SortRun, extsort.RunBlockBytes, runFanIn = oldChunk, oldRun, oldBlock, oldFanIn
			})

			dir := filepath.Join(t.TempDir(), "store")
			type tk struct {
				table schemas.Table
				key   string
			}
			key := func(i int) tk {
				if i%3 == 0 {
					return tk{schemas.TableRaw, string(schemas.RawRow{Key: schemas.RowKey{byte(i % 7), 0, 0, 0, 0, 0, 0, 0, byte(i % 11)}, ID: uint64(i)}.Cell().Key)}
				}
				return tk{schemas.TableTerms, string(schemas.TermRow{Term: fmt.Sprintf("term%03d", i%97), Field: "text", Key: schemas.RowKey{byte(i % 5), byte(i)}}.Cell().Key)}
			}
			model := map[tk]string{}
			var s *Store
			var err error
			// check reads every key of the model and its neighbours, and
			// scans both tables, through the store.
			check := func(when string) {
				t.Helper()
				for i := range 600 {
					k := key(i)
					v, ok, err := s.Get(k.table, []byte(k.key))
					want, wok := model[k]
					if err != nil || ok != wok || string(v) != want {
						t.Fatalf("%s: Get %c %x = %q, %v, %v; want %q, %v", when, k.table, k.key, v, ok, err, want, wok)
					}
				}
				for _, table := range []schemas.Table{schemas.TableRaw, schemas.TableTerms} {
					got := map[tk]string{}
					var prev []byte
					err := s.Scan(context.Background(), table, nil, nil, func(k, v []byte) error {
						if prev != nil && bytes.Compare(prev, k) >= 0 {
							return fmt.Errorf("scan out of order: %x after %x", k, prev)
						}
						prev = bytes.Clone(k)
						got[tk{table, string(k)}] = string(v)
						return nil
					})
					if err != nil {
						t.Fatalf("%s: %v", when, err)
					}
					n := 0
					for k, v := range model {
						if k.table != table {
							continue
						}
						n++
						if got[k] != v {
							t.Fatalf("%s: scan of %c: %x = %q, want %q", when, table, k.key, got[k], v)
						}
					}
					if len(got) != n {
						t.Fatalf("%s: scan of %c finds %d cells, want %d", when, table, len(got), n)
					}
				}
			}
			// Earlier data, written through the memtable.
			s, err = Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			var before []schemas.Cell
			for i := range 300 {
				k := key(i)
				before = append(before, schemas.Cell{Table: k.table, Key: []byte(k.key), Value: []byte("old")})
				model[k] = "old"
			}
			if err := s.Write(before); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			s, err = OpenBulk(dir)
			if err != nil {
				t.Fatal(err)
			}
			if s.sorted == nil {
				t.Fatal("a bulk store has no sorted load")
			}
			var written atomic.Int64 // read by the spills
			if tc.base {
				defer MergeEarly(dir, func() float64 { return 2 * float64(written.Load()) / float64(tc.writes) })()
			}
			if tc.cut != nil {
				cutBasePart = tc.cut
				t.Cleanup(func() { cutBasePart = nil })
			}
			rng := rand.New(rand.NewPCG(1, uint64(tc.writes)))
			other := 0
			for w := 0; w < tc.writes; written.Store(int64(w)) {
				var cells []schemas.Cell
				for range rng.IntN(8) + 1 {
					k := key(rng.IntN(600))
					if rng.IntN(5) == 0 {
						cells = append(cells, schemas.Cell{Table: k.table, Key: []byte(k.key), Delete: true})
						delete(model, k)
					} else {
						v := fmt.Sprint(w)
						cells = append(cells, schemas.Cell{Table: k.table, Key: []byte(k.key), Value: []byte(v)})
						model[k] = v
					}
					w++
				}
				if rng.IntN(3) == 0 {
					cells = append(cells, schemas.FrequencyRow{Minute: fmt.Sprintf("2026110112%02d", other%60), Lang: "en", Count: int64(other + 1)}.Cell())
					other++
				}
				if rng.IntN(2) == 0 {
					// A writer's batch (the table writers, Identify's
					// retractions) hands term cells to the load itself.
					if err := s.Write(cells); err != nil {
						t.Fatal(err)
					}
					continue
				}
				rest, err := s.sorted.Take(cells)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range rest {
					if sortedTables[c.Table] {
						t.Fatalf("Take returned a %c cell", c.Table)
					}
				}
				if err := s.Write(rest); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(40) == 0 {
					check(fmt.Sprintf("after %d writes", w))
				}
			}
			check("before the end of the load")
			if tc.base {
				s.sorted.spills.Wait() // the base's merge
				l := s.sorted
				written, cut := 0, 0
				for p, d := range l.baseDone {
					if d {
						written++
					}
					if tc.cut != nil && tc.cut(p) {
						cut++
					}
				}
				switch spilled := len(l.runs) > 0; {
				case !spilled && l.based:
					t.Fatal("a base of no run")
				case spilled && l.baseRuns == 0:
					t.Fatalf("no base after half the writes: %d runs", len(l.runs))
				case spilled && written != len(l.baseDone)-cut:
					t.Fatalf("%d of the base's %d parts written, want %d", written, len(l.baseDone), len(l.baseDone)-cut)
				case tc.cut != nil && (cut == 0 || len(l.baseDone) < 2):
					t.Fatalf("base of %d parts, %d cut: the case wants some of several cut", len(l.baseDone), cut)
				case (written > 0) != (len(l.baseTables) > 0 && l.baseCells > 0):
					t.Fatalf("base of %d parts written: %d tables, %d cells", written, len(l.baseTables), l.baseCells)
				}
				check("after the base's merge")
			}
			if tc.fanIn > 0 {
				s.sorted.spills.Wait() // the merges under way
				levels, top := map[int]int{}, 0
				for _, r := range s.sorted.runs {
					if !r.gone {
						levels[r.level]++
						top = max(top, r.level)
					}
				}
				if top < 2 {
					t.Fatalf("runs by level %v: no run merged twice while loading", levels)
				}
				for level, n := range levels {
					if n > 2*runFanIn {
						t.Errorf("%d runs of level %d left; want at most %d", n, level, 2*runFanIn)
					}
				}
				check("after the merges")
			}
			if ok, err := FlushOpen(context.Background(), dir, false); err != nil || !ok {
				t.Fatalf("FlushOpen: %v, %v", ok, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "bulk-load")); !os.IsNotExist(err) {
				t.Errorf("the bulk load's scratch directory is left behind (%v)", err)
			}
			check("after the load")
			freq := 0
			s.Scan(context.Background(), schemas.TableFrequency, nil, nil, func(k, v []byte) error { freq++; return nil })
			if want := min(other, 60); freq != want {
				t.Errorf("frequency table holds %d cells, want %d", freq, want)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSortedLoadFinishedOnClose closes a bulk store without FlushOpen:
// what the sorted load holds is ingested, not lost.
func TestSortedLoadFinishedOnClose(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	cell := schemas.TermRow{Term: "hello", Field: "text", Key: schemas.RowKey{1}}.Cell()
	if rest, err := s.sorted.Take([]schemas.Cell{cell}); err != nil || len(rest) != 0 {
		t.Fatalf("Take: %v, %v", rest, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok, err := s.Get(schemas.TableTerms, cell.Key); err != nil || !ok {
		t.Fatalf("term cell after Close: found %v, %v", ok, err)
	}
}

// TestSortedLoadFinishAgainAfterCancel cancels the end of a bulk load
// (a signal while the term index is written): it fails, and a second
// FlushOpen (the run recording itself as interrupted) still ingests every
// cell, spilled or in memory.
func TestSortedLoadFinishAgainAfterCancel(t *testing.T) {
	setChunkBytes(t, 1<<10)
	s, dir := openBulkTemp(t)
	var cells []schemas.Cell
	for i := range 211 {
		cells = append(cells, schemas.TermRow{Term: fmt.Sprintf("t%d", i), Field: "text", Key: schemas.RowKey{byte(i)}}.Cell())
		if _, err := s.sorted.Take(cells[i:]); err != nil {
			t.Fatal(err)
		}
	}
	if s.sorted.cur == nil || len(s.sorted.runs) == 0 {
		t.Fatal("the test wants cells both spilled and in memory")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FlushOpen(ctx, dir, false); err == nil {
		t.Fatal("FlushOpen with a cancelled context did not fail")
	}
	if _, err := FlushOpen(context.Background(), dir, false); err != nil {
		t.Fatal(err)
	}
	n := 0
	s.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error { n++; return nil })
	if n != len(cells) {
		t.Fatalf("term table holds %d cells after a cancelled and a second FlushOpen, want %d", n, len(cells))
	}
}

// setChunkBytes sets the size of the load's chunks (sortedChunkBytes) to
// n until tb ends.
func setChunkBytes(tb testing.TB, n int) {
	old := sortedChunkBytes
	sortedChunkBytes = n
	tb.Cleanup(func() { sortedChunkBytes = old })
}

// openBulkTemp opens a store for a bulk load in a temporary directory,
// closed when the test ends.
func openBulkTemp(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := OpenBulk(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// TestSortedLoadBaseStays: a fresh store loaded with a base ends with the
// base's tables in the last level and the end's in one sublevel of the
// first, above them, and CompactOpen (which compacts the tables written
// through the memtable) leaves both as they are.
func TestSortedLoadBaseStays(t *testing.T) {
	setChunkBytes(t, 64<<10)
	s, dir := openBulkTemp(t)
	var written atomic.Int64
	defer MergeEarly(dir, func() float64 { return float64(written.Load()) / 20_000 })()
	for i := range 20_000 {
		written.Store(int64(i))
		cells := []schemas.Cell{
			schemas.TermRow{Term: fmt.Sprintf("t%d", i%3000), Field: "text", Key: schemas.NewRowKey(int64(i), nil)}.Cell(),
			schemas.IdentityRow{ID: uint64(i), Key: schemas.NewRowKey(int64(i), nil)}.Cell(), // through the memtable
		}
		if err := s.Write(cells); err != nil {
			t.Fatal(err)
		}
	}
	s.sorted.spills.Wait() // the base's merge, whole (the end cuts short one under way)
	if _, err := FlushOpen(context.Background(), dir, false); err != nil {
		t.Fatal(err)
	}
	if ok, err := CompactOpen(context.Background(), dir); !ok || err != nil {
		t.Fatalf("CompactOpen: %v, %v", ok, err)
	}
	m := s.db.Metrics()
	if l0, l6 := m.Levels[0], m.Levels[6]; l0.Sublevels != 1 || l0.TablesCount == 0 || l6.TablesCount == 0 {
		t.Errorf("first level: %d sublevels, %d tables; last level: %d tables; want the end's tables in one sublevel over the base's",
			l0.Sublevels, l0.TablesCount, l6.TablesCount)
	}
	n := 0
	s.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error { n++; return nil })
	if n != 20_000 {
		t.Errorf("term table holds %d cells, want 20000", n)
	}
}

// TestSortedLoadBaseAtFanIn: a load whose run says how much of its input
// it has read (MergeEarly) and that spills earlyBaseRuns runs before it
// has read MergeEarlyAt of it merges them as its base, rather than into one
// run of the next level (which would be merged again at the end): half
// way through, the base is the first earlyBaseRuns runs or so (the runs after
// it merge into levels as before); the tables hold every cell's last
// write.
func TestSortedLoadBaseAtFanIn(t *testing.T) {
	setChunkBytes(t, 4<<10)
	old := runFanIn
	runFanIn = 4
	t.Cleanup(func() { runFanIn = old })
	s, dir := openBulkTemp(t)
	const n = 20_000
	var written atomic.Int64
	defer MergeEarly(dir, func() float64 { return float64(written.Load()) / n })()
	write := func(from, to int) {
		for i := from; i < to; i++ {
			written.Store(int64(i))
			c := schemas.TermRow{Term: fmt.Sprintf("t%d", i%3000), Field: "text", Key: schemas.NewRowKey(int64(i), nil), Freq: uint32(i) + 1}.Cell()
			if err := s.Write([]schemas.Cell{c}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(0, n/2)
	s.sorted.spills.Wait()
	s.sorted.mu.Lock()
	based, runs, baseRuns := s.sorted.based, len(s.sorted.runs), s.sorted.baseRuns
	s.sorted.mu.Unlock()
	if runs <= 2*runFanIn || !based || baseRuns < earlyBaseRuns() || baseRuns > 2*runFanIn {
		t.Fatalf("half way: %d runs, base begun %v with %d runs; want more than %d runs and the base begun with %d to %d (the first runs, not merged into a level)",
			runs, based, baseRuns, 2*runFanIn, earlyBaseRuns(), 2*runFanIn)
	}
	write(n/2, n)
	if _, err := FlushOpen(context.Background(), dir, true); err != nil {
		t.Fatal(err)
	}
	got := 0
	err := s.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error {
		r, err := schemas.DecodeTerm(k, v)
		if err != nil {
			return err
		}
		if want := uint32(r.Key.Seconds()) + 1; r.Freq != want {
			t.Errorf("term %s at %d: frequency %d, want %d", r.Term, r.Key.Seconds(), r.Freq, want)
		}
		got++
		return nil
	})
	if err != nil || got != n {
		t.Errorf("term table holds %d cells (%v), want %d", got, err, n)
	}
}

// TestFailedLoadRecordsAndCleansUp: a load that fails for good (a spill
// that cannot be written, as on a full disk) still takes the cells of the
// tables written through the memtable (the run's record of its failure),
// and its end (FlushOpen) fails saying why, removes the files it spilled,
// and leaves on disk what the memtable holds, as a kill after a flush
// would: the record says the run failed, not that it is running.
func TestFailedLoadRecordsAndCleansUp(t *testing.T) {
	setChunkBytes(t, 4<<10)
	s, dir := openBulkTemp(t)
	for i := range 2000 {
		c := schemas.TermRow{Term: fmt.Sprintf("t%d", i), Field: "text", Key: schemas.NewRowKey(int64(i), nil), Freq: 1}.Cell()
		if err := s.Write([]schemas.Cell{c}); err != nil {
			t.Fatal(err)
		}
	}
	s.sorted.spills.Wait()
	if entries, _ := os.ReadDir(s.sorted.dir); len(entries) == 0 {
		t.Fatal("nothing spilled: the test wants spilled runs")
	}
	full := errors.New("write run-00009: no space left on device")
	s.sorted.fail(full)
	if err := s.Write([]schemas.Cell{schemas.TermRow{Term: "late", Field: "text", Key: schemas.NewRowKey(1, nil), Freq: 1}.Cell()}); !errors.Is(err, full) {
		t.Errorf("a sorted cell written after the failure: %v, want the failure", err)
	}
	record := schemas.MetaRow{Name: "run/x", Value: []byte(`{"status":"failed"}`)}.Cell()
	if err := s.Write([]schemas.Cell{record}); err != nil {
		t.Fatalf("the run's record after the load failed: %v", err)
	}
	if _, err := FlushOpen(context.Background(), dir, false); !errors.Is(err, full) || strings.Contains(err.Error(), "\n") {
		t.Errorf("FlushOpen: %v, want the failure in one line", err)
	}
	if _, err := os.Stat(s.sorted.dir); !os.IsNotExist(err) {
		t.Errorf("the failed load's spilled runs are left (%v)", err)
	}
	// The run records its failure, and makes the record durable, after
	// its end failed: the load is over, the flush succeeds.
	if _, err := FlushOpen(context.Background(), dir, false); err != nil {
		t.Errorf("FlushOpen after the failed end: %v, want the memtable flushed", err)
	}
	crash := filepath.Join(t.TempDir(), "crash")
	copyDir(t, dir, crash)
	c, err := Open(crash)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, ok, err := c.Get(record.Table, record.Key); err != nil || !ok || string(v) != string(record.Value) {
		t.Errorf("the run's record on disk: %q, %v, %v; want %q", v, ok, err, record.Value)
	}
}
