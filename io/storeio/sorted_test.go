package storeio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

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
			oldChunk, oldRun, oldBlock, oldFanIn := sortedChunkBytes, sortRun, runBlockBytes, runFanIn
			sortedChunkBytes, sortRun, runBlockBytes, runFanIn = tc.chunkBytes, tc.sortRun, tc.blockBytes, 1<<30
			if tc.fanIn > 0 {
				runFanIn = tc.fanIn
			}
			t.Cleanup(func() { sortedChunkBytes, sortRun, runBlockBytes, runFanIn = oldChunk, oldRun, oldBlock, oldFanIn })

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
			if ok, err := FlushOpen(context.Background(), dir); err != nil || !ok {
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
	if _, err := FlushOpen(ctx, dir); err == nil {
		t.Fatal("FlushOpen with a cancelled context did not fail")
	}
	if _, err := FlushOpen(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	n := 0
	s.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error { n++; return nil })
	if n != len(cells) {
		t.Fatalf("term table holds %d cells after a cancelled and a second FlushOpen, want %d", n, len(cells))
	}
}

// TestSortedTablesProgress: while FlushOpen writes a bulk load's sorted
// tables, SortedTablesProgress says so, with the cells the load took and
// their work; it reports nothing before or after. It is read each time the
// end's report (every compactReportEvery, here always) writes a line.
func TestSortedTablesProgress(t *testing.T) {
	setChunkBytes(t, 1<<20) // runs spilled, and a last chunk
	s, dir := openBulkTemp(t)
	var cells []schemas.Cell
	var work int64
	for i := range 100_000 {
		cells = append(cells, schemas.TermRow{Term: fmt.Sprintf("t%d", i%5000), Field: "text", Key: schemas.NewRowKey(int64(i), nil)}.Cell())
		work += cellWork(1+len(cells[i].Key), len(cells[i].Value))
	}
	for b := range slices.Chunk(cells, 1000) {
		if rest, err := s.sorted.Take(b); err != nil || len(rest) != 0 {
			t.Fatalf("Take: %d left, %v", len(rest), err)
		}
	}
	s.sorted.spills.Wait()
	if len(s.sorted.runs) == 0 || s.sorted.cur == nil {
		t.Fatal("the test wants cells both spilled and in memory")
	}
	if _, ok := SortedTablesProgress(); ok {
		t.Fatal("SortedTablesProgress before FlushOpen: a load is ending")
	}
	var seen progressWriter
	oldOut, oldEvery := logOutput, compactReportEvery
	logOutput, compactReportEvery = &seen, time.Nanosecond
	defer func() { logOutput, compactReportEvery = oldOut, oldEvery }()
	if _, err := FlushOpen(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if len(seen.samples) == 0 {
		t.Fatal("no report during FlushOpen")
	}
	for _, p := range seen.samples {
		if !p.ok || p.CellsAll != int64(len(cells)) || p.Cells < 0 || p.Cells > p.CellsAll ||
			p.WorkAll != work || p.Work < 0 || p.Work > p.WorkAll {
			t.Fatalf("SortedTablesProgress during FlushOpen: %+v, want a load ending with %d cells, %d of work", p, len(cells), work)
		}
	}
	if p, ok := SortedTablesProgress(); ok {
		t.Fatalf("SortedTablesProgress after FlushOpen: %+v, want no load ending", p)
	}
	line := regexp.MustCompile(`^storeio: writing the raw, term and authors tables: \d+% \(\d+ of 100000 cells\), \d+s\n$`)
	for _, l := range seen.lines {
		if !line.MatchString(l) {
			t.Fatalf("the end's report %q, want it to match %s", l, line)
		}
	}
}

// TestEarlyTablesProgress: while a bulk load's base merge runs (the run
// has read MergeEarlyAt of its input), EarlyTablesProgress says so, with
// the cells of the runs it merges; before it and once it is done it
// reports nothing. It is sampled as each of the base's parts begins.
func TestEarlyTablesProgress(t *testing.T) {
	setChunkBytes(t, 64<<10)
	s, dir := openBulkTemp(t)
	var mu sync.Mutex
	var samples []progressSample
	cutBasePart = func(int) bool {
		p, ok := EarlyTablesProgress()
		mu.Lock()
		samples = append(samples, progressSample{p, ok})
		mu.Unlock()
		return false
	}
	t.Cleanup(func() { cutBasePart = nil })
	var written atomic.Int64
	defer MergeEarly(dir, func() float64 { return float64(written.Load()) / 20_000 })()
	if _, ok := EarlyTablesProgress(); ok {
		t.Fatal("EarlyTablesProgress before any cell: a base merge is under way")
	}
	for i := range 20_000 {
		written.Store(int64(i))
		if _, err := s.sorted.Take([]schemas.Cell{schemas.TermRow{Term: fmt.Sprintf("t%d", i%3000), Field: "text", Key: schemas.NewRowKey(int64(i), nil)}.Cell()}); err != nil {
			t.Fatal(err)
		}
	}
	s.sorted.spills.Wait() // the base merge, whole
	if _, ok := EarlyTablesProgress(); ok {
		t.Fatal("EarlyTablesProgress after the base merge: one is under way")
	}
	if s.sorted.baseRuns == 0 {
		t.Fatal("no base merge: the test wants one")
	}
	// The cells the base merged, and their work: the keys are distinct,
	// each run's cells are the first of the load's, in order.
	var inBase int64
	for _, r := range s.sorted.runs[:s.sorted.baseRuns] {
		inBase += r.cells
	}
	if inBase == 0 || inBase > 20_000 || s.sorted.baseCells != inBase {
		t.Fatalf("the base's runs hold %d cells and the base %d, want the same, some of the 20000", inBase, s.sorted.baseCells)
	}
	var work int64
	for i := range inBase {
		c := schemas.TermRow{Term: fmt.Sprintf("t%d", i%3000), Field: "text", Key: schemas.NewRowKey(i, nil)}.Cell()
		work += cellWork(1+len(c.Key), len(c.Value))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(samples) == 0 {
		t.Fatal("no sample: no part of the base began")
	}
	for _, p := range samples {
		if !p.ok || p.CellsAll != inBase || p.Cells < 0 || p.Cells > p.CellsAll || p.WorkAll != work || p.Work < 0 || p.Work > p.WorkAll {
			t.Fatalf("EarlyTablesProgress during the base merge: %+v, want one under way over %d cells, %d of work", p, inBase, work)
		}
	}
	if _, err := FlushOpen(context.Background(), dir); err != nil {
		t.Fatal(err)
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

// progressWriter samples SortedTablesProgress at each write.
type progressWriter struct {
	samples []progressSample
	lines   []string
}

type progressSample struct {
	TablesProgress
	ok bool
}

func (w *progressWriter) Write(b []byte) (int, error) {
	p, ok := SortedTablesProgress()
	w.samples = append(w.samples, progressSample{p, ok})
	w.lines = append(w.lines, string(b))
	return len(b), nil
}

// TestRadixSortOrdersAsCompare sorts keys chosen to meet radixSort's edge
// cases (keys shorter than its prefix bytes, keys that begin others, zero
// bytes, keys equal in their first 24 bytes and after, the same key added
// several times) and checks the order is compare's: by key, then by the
// order added.
func TestRadixSortOrdersAsCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 1, 'a', 'b', 0xff}
	for _, n := range []int{0, 1, 2, 31, 33, 200, 5000} {
		c := &chunk{}
		var shared []byte // a prefix many keys share, longer than 24 bytes
		for range 30 {
			shared = append(shared, alphabet[r.IntN(len(alphabet))])
		}
		for range n {
			var k []byte
			switch r.IntN(3) {
			case 0:
				k = append(k, shared[:r.IntN(len(shared)+1)]...)
			case 1:
				k = append(k, shared...)
			}
			for range r.IntN(6) {
				k = append(k, alphabet[r.IntN(len(alphabet))])
			}
			off := len(c.arena)
			c.arena = append(c.arena, k...)
			c.ents = append(c.ents, newEntry(c.arena[off:], off, len(k), 0, false))
		}
		want := slices.Clone(c.ents)
		slices.SortFunc(want, c.compare)
		got := slices.Clone(c.ents)
		c.radixSort(got, 0)
		if !slices.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%d keys: at %d got key %q (off %d), want %q (off %d)", n, i, c.key(&got[i]), got[i].off, c.key(&want[i]), want[i].off)
				}
			}
		}
	}
}

// TestSortedLoadIngestCutOff stops the end of a load with a base before
// either of its two ingestions and drops the database as a crash would
// (no Finish again, no flush): the next Open completes the ingestion from
// the plan the end saved, and the tables hold the last write of every
// key; a second Open finds nothing left to complete. Or, stopped by an
// error between the two, the end runs again in the same process (the
// run recording its failure flushes the store again) and completes them.
func TestSortedLoadIngestCutOff(t *testing.T) {
	setChunkBytes(t, 4<<10)
	for _, tc := range []struct {
		stage string
		crash bool
	}{{"base", true}, {"tables", true}, {"tables", false}} {
		stage := tc.stage
		name := "crash before " + stage
		if !tc.crash {
			name = "FlushOpen again after an error before " + stage
		}
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			s, err := OpenBulk(dir)
			if err != nil {
				t.Fatal(err)
			}
			var written atomic.Int64
			defer MergeEarly(dir, func() float64 { return float64(written.Load()) / 1000 })()
			model := map[string]string{}
			rng := rand.New(rand.NewPCG(5, 6))
			for w := range 2000 {
				written.Store(int64(w))
				k := schemas.TermRow{Term: fmt.Sprintf("t%03d", rng.IntN(400)), Field: "text", Key: schemas.RowKey{byte(w % 3)}}.Cell()
				if rng.IntN(4) == 0 {
					k.Delete = true
					delete(model, string(k.Key))
				} else {
					k.Value = []byte(fmt.Sprint(w))
					model[string(k.Key)] = string(k.Value)
				}
				if _, err := s.sorted.Take([]schemas.Cell{k}); err != nil {
					t.Fatal(err)
				}
			}
			s.sorted.spills.Wait()
			if len(s.sorted.baseTables) == 0 {
				t.Fatal("no base: the test wants one")
			}
			cut := errors.New("cut off")
			oldCut := cutIngest
			cutIngest = func(at string) error {
				if at == stage {
					return cut
				}
				return nil
			}
			_, err = FlushOpen(context.Background(), dir)
			cutIngest = oldCut
			if !errors.Is(err, cut) {
				t.Fatalf("FlushOpen: %v, want the cut", err)
			}
			if tc.crash {
				// The process dies: the database goes without the store's Close.
				openMu.Lock()
				delete(opened, s.dir)
				openMu.Unlock()
				if err := s.db.Close(); err != nil {
					t.Fatal(err)
				}
				if s, err = Open(dir); err != nil {
					t.Fatal(err)
				}
			} else if _, err := FlushOpen(context.Background(), dir); err != nil {
				t.Fatalf("FlushOpen again: %v", err)
			}
			got := map[string]string{}
			s.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error {
				got[string(k)] = string(v)
				return nil
			})
			if len(got) != len(model) {
				t.Errorf("term table holds %d cells after the store was opened again, want %d", len(got), len(model))
			}
			for k, v := range model {
				if got[k] != v {
					t.Fatalf("term %x = %q, want %q", k, got[k], v)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "bulk-load")); !os.IsNotExist(err) {
				t.Errorf("the completed load's scratch directory is left behind (%v)", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			db, err := pebble.Open(dir, options(false))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if again, err := recoverIngest(db, dir); again || err != nil {
				t.Errorf("recoverIngest on the next open: %v, %v; want nothing to complete", again, err)
			}
		})
	}
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
	if _, err := FlushOpen(context.Background(), dir); err != nil {
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
