package storeio

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/tweetindex/tweetindex/io/storeio/internal/extsort"
	"github.com/tweetindex/tweetindex/io/storeio/internal/hooks"
	"github.com/tweetindex/tweetindex/schemas"
)

// A bulk load (OpenBulk) writes the raw tweets, the term index and the
// authors table, all but 2 of the 26 cells a tweet adds and nearly all of
// its bytes, around the memtable. They are gathered in memory, sorted a
// chunk at a time, spilled to sorted run files, and merged at the end of
// the load (FlushOpen) into sorted tables that Pebble ingests as they are,
// at the bottom of the tree: each cell is written twice (run, table)
// instead of passing through a memtable, a flush and several compactions,
// and the store needs no compaction after the load. The bytes of these
// tables ('r', 't', 'u') are above every table the memtable holds in a
// bulk load, so their tables overlap no other and land in the last level.
//
// When the run says how much of its input it has read (MergeEarly), the
// load does not leave all of that merge to the end: once the run has read
// MergeEarlyAt of its input, it merges the runs spilled so far into tables
// (the base, mergeBase) while the run reads on, and the end merges only
// the runs spilled after them. The base's merge goes a key range (part)
// at a time: if the input is read before it is done, the end lets the
// parts under way finish and merges the rest, base runs and later runs
// together, so that it waits no longer than a part for the base
// (endParts). Both are ingested at the end, the base
// first (ingest): nothing of the load is on disk before the end, as
// without a base, so a run killed before it leaves none of its sorted
// cells, and one killed between the two ingestions has them completed
// when the store is next opened (recoverIngest). The end's tables overlap
// the base's, so Pebble puts them above it, in one sublevel of its first
// level, where they stay: Pebble compacts that level when it holds many
// sublevels (L0CompactionThreshold), not one, and the run's compaction
// (CompactOpen) leaves the sorted tables as they were ingested. A read
// merges the two, as it merges the levels of any LSM tree.
//
// Later writes of a key win, as in the memtable: within a chunk by the
// order of the cells (their offset), across chunks by the chunk's order.
// A run reads back what it wrote (Identify reads the raw row of a version
// it replaces or deletes): Store.Get and Store.Scan look in the load
// (sortedLoad.scan) before the database while it is not finished.
//
// The identity stage's writes of cells an earlier run left in the
// database (the deletes of a retracted version's cells, which must reach
// disk before its raw delete) are also recorded as intents, through the
// memtable (retract.go); the end clears them once the load is ingested.
// The base holds the first chunks, in the order they filled, and the
// end's tables, ingested after it, every later chunk.
//
// The pieces: this file gathers the cells (Take), spills full chunks and
// merges runs in the background (spillChunk, mergeRuns), ends the load
// (Finish) and reads it (scan); parts.go merges runs into tables a part
// at a time, the end's and the base's (writeParts, endParts, mergeBase);
// ingestplan.go ingests them and completes an ingestion a crash cut off
// (ingest, recoverIngest); progress.go says how far the merges are and
// how much of its input the run has read (MergeEarly). The external
// sort's byte-slice machinery, chunks and their radix sort, run files,
// the loser tree's merge, is package internal/extsort.

// sortedTables are the tables a bulk load sorts and ingests
// (schemas.TableSpec.BulkSorted).
var sortedTables = func() (sorted [256]bool) {
	for _, s := range schemas.Registry() {
		sorted[s.Table] = s.BulkSorted
	}
	return sorted
}()

// sortedChunkBytes is how many bytes of cells a chunk holds before it is
// sorted and spilled; two chunks at most are in memory (one filling, one
// spilling).
var sortedChunkBytes = 32 << 20

// sortedLoad gathers, sorts and finally ingests the cells of sortedTables.
type sortedLoad struct {
	db  *pebble.DB
	fs  vfs.FS // the store's: every file of the load is written and read through it
	dir string // scratch directory: runs and tables
	// chunkBytes is sortedChunkBytes, or a test's (hooks.ChunkBytes).
	chunkBytes int
	writer     sstable.WriterOptions

	mu     sync.Mutex
	cur    *extsort.Chunk
	runs   []runFile              // per full chunk, in the order they filled: its run file
	filled map[int]*extsort.Chunk // full chunks whose run file is not written yet, by run
	rows   rowSet                 // the row keys of the raw cells taken (mayHoldRow)
	spill  chan struct{}          // one spill at a time

	spiller   extsort.Spiller // the spill's sorted copy of a chunk's entries, reused
	free      *extsort.Chunk  // a spilled chunk, for reuse
	spills    sync.WaitGroup  // spills and merges under way
	merging   bool            // a merge of runs is under way (mergeRuns); mu held
	finishing bool            // Finish has begun: no merge starts; mu held
	merges    int             // merged runs written, for their names
	store     string          // the store's directory (MergeEarly's key)
	based     bool            // the base merge has begun (maybeMergeBase); mu held
	// The base, once merged (mergeBase; mu held): the runs it merged
	// (l.runs[:baseRuns]), the bounds of its parts and which of those it
	// wrote (the end cuts it short: cutBase), its tables (those parts')
	// and the cells written into them.
	baseRuns     int
	baseBounds   [][]byte
	baseDone     []bool
	baseTables   []string
	baseCells    int64
	baseIngested bool        // the end ingested the base (ingest)
	cutBase      atomic.Bool // the end has begun: the base starts no more parts
	// files is held (read) while a read (scan) reads run files, and
	// (write) while a merge removes the runs it replaced.
	files   sync.RWMutex
	failed  atomic.Pointer[error]
	done    atomic.Bool // Finish ingested the load: Take takes nothing more
	cells   int64       // taken in all
	intents intentLog   // the retractions of an earlier run's cells (retract.go)
	// beforeIngest, if not nil, is called by Finish once the memtable is
	// flushed, before the ingestion (FlushOpen's compaction).
	beforeIngest func(context.Context) error
	pending      atomic.Int64 // bytes of the tables about to be ingested, while beforeIngest runs
}

// pendingBytes returns the bytes of the load's tables written and not
// yet ingested while beforeIngest runs, 0 otherwise (and for no load).
func (l *sortedLoad) pendingBytes() int64 {
	if l == nil {
		return 0
	}
	return l.pending.Load()
}

// tablesBytes returns the bytes the files at paths on fs hold.
func tablesBytes(fs vfs.FS, paths []string) (n int64) {
	for _, p := range paths {
		if fi, err := fs.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// runFile is a spilled chunk, or a merge of spilled chunks: its cells in
// key order, in blocks of about extsort.RunBlockBytes (see
// extsort.WriteRun). The first key and the offset of each block (a
// restart) stay in memory: the end of the load cuts every run at the same
// keys into partitions of even size, and a read finds a key without
// reading the file from its start.
type runFile struct {
	extsort.Run      // Path "": not written yet, or gone
	level       int  // 0: a spilled chunk; n + 1: a merge of runFanIn runs of level n
	gone        bool // merged into a later run (mergeRuns): it holds nothing
}

// runsOf returns the run files of runs.
func runsOf(runs []runFile) []extsort.Run {
	out := make([]extsort.Run, len(runs))
	for i := range runs {
		out[i] = runs[i].Run
	}
	return out
}

// runFanIn is how many adjacent runs of one level the load merges into
// one run of the next, in the background, as soon as they are written
// (mergeRuns): the end of the load (Finish) then merges fewer than
// runFanIn runs a level, however large the load, so its memory (a read
// buffer and a block for each run, about 150 KB, on each core) stays
// bounded. A run is a chunk, about 7,500 tweets, so only loads of more
// than 3.8 M tweets merge: each merge rewrites its runs once more, which
// cost 3 M tweets over 72 h 54 s of CPU (314 s instead of 260) and 29 s
// of wall with a fan-in of 64, to save 3 s at the end. A load whose run
// says how much it has read (MergeEarly) merges its first runs into its
// base instead (maybeMergeBase, earlyBaseRuns), and only the runs after
// it into levels: 5 M tweets of a day took 119 s instead of 128, the end
// 11 s instead of 29.
var runFanIn = 512

func newSortedLoad(db *pebble.DB, o *pebble.Options, dir string) (*sortedLoad, error) {
	scratch := filepath.Join(dir, "bulk-load")
	if err := o.FS.RemoveAll(scratch); err != nil { // a dead run's leftovers
		return nil, err
	}
	defaults := o.Clone()
	defaults.EnsureDefaults()
	wo := defaults.MakeWriterOptions(0, db.TableFormat())
	wo.FilterPolicy = nil // term cells are read by range, never looked up
	chunk := sortedChunkBytes
	if n := hooks.ChunkBytes.Load(); n > 0 {
		chunk = int(n)
	}
	return &sortedLoad{db: db, fs: o.FS, dir: scratch, chunkBytes: chunk, store: dir, writer: wo, spill: make(chan struct{}, 1), filled: map[int]*extsort.Chunk{}, rows: rowSet{}}, nil
}

// newChunk returns an empty chunk, the spilled one if there is one; mu held.
func (l *sortedLoad) newChunk() *extsort.Chunk {
	if c := l.free; c != nil {
		l.free = nil
		c.Reset()
		return c
	}
	// A term cell takes about 45 bytes of the arena.
	return extsort.NewChunk(l.chunkBytes+l.chunkBytes/8, l.chunkBytes/40)
}

// Take copies the cells of sortedTables into the load and returns the
// others (cells itself when it takes none; cells is not modified). Once
// the load is finished it takes none.
func (l *sortedLoad) Take(cells []schemas.Cell) ([]schemas.Cell, error) {
	if l.done.Load() {
		// After the load (the run's recounts, scrubs, its record):
		// through the memtable.
		return cells, nil
	}
	if p := l.failed.Load(); p != nil {
		// The cells of the other tables still go through the memtable:
		// the run's record of its failure among them.
		for i := range cells {
			if sortedTables[cells[i].Table] {
				return nil, *p
			}
		}
		return cells, nil
	}
	taken, rest := 0, []schemas.Cell(nil)
	for i := range cells {
		if sortedTables[cells[i].Table] {
			taken++
		}
	}
	switch {
	case taken == 0:
		return cells, nil
	case taken < len(cells):
		rest = make([]schemas.Cell, 0, len(cells)-taken)
		for i := range cells {
			if !sortedTables[cells[i].Table] {
				rest = append(rest, cells[i])
			}
		}
	}
	l.mu.Lock()
	if l.cur == nil {
		l.cur = l.newChunk()
	}
	c := l.cur
	for i := range cells {
		t := &cells[i]
		if !sortedTables[t.Table] {
			continue
		}
		if t.Table == schemas.TableRaw && len(t.Key) >= schemas.RowKeyLen {
			l.rows.add(schemas.RowKey(t.Key[:schemas.RowKeyLen]))
		}
		c.Add(byte(t.Table), t.Key, t.Value, t.Delete)
	}
	l.cells += int64(taken)
	full, run := (*extsort.Chunk)(nil), 0
	if c.Bytes() >= l.chunkBytes {
		// The chunk's rank is fixed now, in the order chunks fill.
		full, l.cur, run = c, nil, len(l.runs)
		l.runs = append(l.runs, runFile{})
		l.filled[run] = full
	}
	l.mu.Unlock()
	if full != nil {
		l.spillChunk(full, run)
	}
	return rest, nil
}

// spillChunk sorts c and writes it as run file run, in the background; it
// waits while an earlier chunk is still being spilled (memory stays at two
// chunks, or a few when writers fill them faster than one spills).
func (l *sortedLoad) spillChunk(c *extsort.Chunk, run int) {
	l.spill <- struct{}{}
	l.spills.Add(1)
	go func() {
		defer l.spills.Done()
		defer func() { <-l.spill }()
		// Sorted apart from c's entries, which a read (scan) may look
		// through meanwhile in the order they were added.
		path := filepath.Join(l.dir, fmt.Sprintf("run-%05d", run))
		rf, err := l.spiller.Spill(l.fs, path, c)
		if err != nil {
			l.fail(fmt.Errorf("storeio: spilling sorted cells: %w", err))
			return
		}
		l.mu.Lock()
		l.runs[run] = runFile{Run: rf}
		delete(l.filled, run)
		l.free = c
		l.maybeMerge()
		l.maybeMergeBase()
		l.mu.Unlock()
	}()
}

// maybeMerge starts a merge of runFanIn adjacent written runs of the
// lowest level that has that many, unless one is under way; mu held.
func (l *sortedLoad) maybeMerge() {
	if l.merging || l.finishing || l.failed.Load() != nil || l.mergesEarly() {
		return
	}
	for level := 0; ; level++ {
		var group []int // adjacent live runs of level, written
		found := false
		for i := l.baseRuns; i < len(l.runs); i++ { // the base's runs are merged
			r := &l.runs[i]
			switch {
			case r.gone:
				continue
			case r.Path == "" || r.level != level:
				group = group[:0] // not written yet, or another level: not adjacent
				found = found || r.level > level
				continue
			}
			found = true
			if group = append(group, i); len(group) == runFanIn {
				l.merging = true
				l.spills.Add(1)
				go l.mergeRuns(group, level)
				return
			}
		}
		if !found {
			return // no run of this level or above
		}
	}
}

// mergeReadBuffer is the read buffer of each run a merge reads (the end's, mergeRuns).
const mergeReadBuffer = 64 << 10

// mergeRuns merges the runs of group (indexes of l.runs, in order) into
// one run of level+1, which takes the place of the last of them (the
// latest writes keep their rank), and removes them.
func (l *sortedLoad) mergeRuns(group []int, level int) {
	defer l.spills.Done()
	l.mu.Lock()
	runs := make([]runFile, len(group))
	for i, r := range group {
		runs[i] = l.runs[r]
	}
	l.merges++
	path := filepath.Join(l.dir, fmt.Sprintf("merged-%05d", l.merges))
	l.mu.Unlock()
	err := func() error {
		var srcs []extsort.Ranked
		defer func() { extsort.CloseSources(srcs) }()
		for i := range runs {
			fs, err := extsort.OpenRun(l.fs, &runs[i].Run, nil, nil, mergeReadBuffer)
			if err != nil {
				return err
			}
			srcs = append(srcs, extsort.Ranked{Source: fs, Rank: i})
		}
		merged, err := extsort.WriteRun(l.fs, path, srcs)
		if err != nil {
			return err
		}
		rf := runFile{Run: merged, level: level + 1}
		l.files.Lock() // no read is reading the runs replaced
		defer l.files.Unlock()
		l.mu.Lock()
		for _, r := range group {
			l.runs[r] = runFile{gone: true}
		}
		l.runs[group[len(group)-1]] = rf
		l.mu.Unlock()
		for _, r := range runs {
			l.fs.Remove(r.Path)
		}
		return nil
	}()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.merging = false
	if err != nil {
		l.fs.Remove(path)
		l.fail(fmt.Errorf("storeio: merging sorted runs: %w", err))
		return
	}
	l.maybeMerge()
	l.maybeMergeBase()
}

func (l *sortedLoad) fail(err error) { l.failed.CompareAndSwap(nil, &err) }

// Finish sorts what is left in memory, merges it with the spilled runs
// into tables and ingests them, one partition per core at once. It says
// every compactReportEvery how far it is (logLine). The load is empty
// after. If it fails (or ctx is done) it can be called again: it keeps
// what it holds until its tables are ingested.
func (l *sortedLoad) Finish(ctx context.Context) (err error) {
	if l.done.Load() {
		return nil // ingested, or abandoned
	}
	l.mu.Lock()
	last := l.cur
	l.cur = nil
	l.finishing = true // the runs are merged once more below
	l.mu.Unlock()
	defer func() {
		if err != nil && last != nil {
			l.mu.Lock()
			l.cur = last
			l.mu.Unlock()
		}
	}()
	if BeforeIngest == nil {
		l.cutBase.Store(true) // the base's parts not begun are merged below
	}
	l.spills.Wait()
	if p := l.failed.Load(); p != nil {
		return *p
	}
	if last == nil && len(l.runs) == 0 {
		l.done.Store(true)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.fs.MkdirAll(l.dir, 0o755); err != nil {
		return err
	}
	start := time.Now()
	var lastSorted *extsort.Sorted
	if last != nil {
		lastSorted = last.Sort(runtime.GOMAXPROCS(0))
	}
	bounds, first := l.endParts(lastSorted)
	job := mergeJob{name: "table", readBuf: mergeReadBuffer, runs: l.runs, bounds: bounds, first: first, last: lastSorted}
	var merged extsort.Count
	cells := l.cells - l.baseCells // what the base holds is written already
	progress := &finishProgress{count: &merged, cells: cells, work: job.work()}
	finishing.Store(l, progress)
	defer finishing.Delete(l)
	defer every(compactReportEvery, func() {
		p := progress.now()
		logLine(slog.LevelInfo, "store writing sorted tables", []any{"dir", l.dir, "cells", p.Cells, "of", p.CellsAll, "done", math.Round(1000*p.Done()) / 1000},
			fmt.Sprintf("storeio: writing the raw, term and authors tables: %.0f%% (%d of %d cells), %s", 100*p.Done(), p.Cells, p.CellsAll, time.Since(start).Round(time.Second)))
	})()
	// The memtable (identity, frequency and geo cells) is flushed while the
	// tables are written, not after them (ingest flushes it anyway): its
	// flush runs on one core, and the last parts of the merge leave one
	// idle. 200 K tweets, six runs each: the store's end 0.27-0.31 s
	// against 0.25-0.33 s over 1 h, 0.29-0.38 s against 0.32-0.36 s over
	// 30 days (medians 30 and 20 ms shorter).
	flushed := make(chan error, 1)
	go func() { flushed <- l.db.Flush() }()
	paths, _, err := l.writeParts(ctx, job, &merged)
	if ferr := <-flushed; err == nil && ferr != nil {
		return fmt.Errorf("storeio: flushing the memtable: %w", ferr)
	}
	if err != nil {
		return fmt.Errorf("storeio: writing the sorted tables: %w", err)
	}
	if l.beforeIngest != nil {
		l.pending.Store(tablesBytes(l.fs, paths) + tablesBytes(l.fs, l.baseTables))
		err := l.beforeIngest(ctx)
		l.pending.Store(0)
		if err != nil {
			return err
		}
	}
	if err := l.ingest(ctx, paths); err != nil {
		return fmt.Errorf("storeio: ingesting the sorted tables: %w", err)
	}
	if l.intents.written.Load() {
		if err := clearIntents(l.db); err != nil {
			return fmt.Errorf("storeio: clearing the load's intents: %w", err)
		}
	}
	l.runs, last = nil, nil
	l.mu.Lock()
	l.rows = rowSet{}
	l.mu.Unlock()
	l.baseRuns, l.baseBounds, l.baseDone, l.baseTables, l.baseCells = 0, nil, nil, nil, 0
	l.done.Store(true)
	return l.fs.RemoveAll(l.dir)
}

// scan calls fn with each key lo <= key < hi (whole keys, the table's byte
// first) the load holds, in order, with its last write: what a read of the
// database would find once the load is ingested. It finds nothing once the
// load is finished. Identify reads a few keys a batch at most (the raw
// rows of versions it replaces or deletes); each search is a binary
// search of every run file's restarts and a read from the restart found,
// plus a pass over the chunks in memory.
func (l *sortedLoad) scan(ctx context.Context, lo, hi []byte, fn func(k, v []byte, del bool) error) error {
	if l.done.Load() {
		return nil
	}
	if p := l.failed.Load(); p != nil {
		return *p
	}
	var srcs []extsort.Ranked
	defer func() { extsort.CloseSources(srcs) }()
	l.files.RLock() // the runs read stay until the read is done
	defer l.files.RUnlock()
	l.mu.Lock()
	if l.done.Load() {
		l.mu.Unlock()
		return nil
	}
	runs := slices.Clone(l.runs)
	// The keys in range of the chunks in memory, copied: the full ones
	// not written yet, by their run, and the one filling, after them.
	for run, c := range l.filled {
		srcs = c.AppendRange(srcs, lo, hi, run)
	}
	if l.cur != nil {
		srcs = l.cur.AppendRange(srcs, lo, hi, len(runs))
	}
	l.mu.Unlock()
	for r := range runs {
		if runs[r].Path == "" {
			continue // not written yet (among the chunks above), or merged into a later run
		}
		fs, err := extsort.OpenRun(l.fs, &runs[r].Run, lo, hi, 4<<10)
		if err != nil {
			return err
		}
		srcs = append(srcs, extsort.Ranked{Source: fs, Rank: r})
	}
	return extsort.Merge(ctx, srcs, nil, fn)
}

// mayHoldRow reports whether the load may hold raw cells under row key k:
// false says it holds none, and a read of them need not look through the
// load. A run into a store that is not fresh reads the raw row of every
// new tweet's row key (Identify looks for a collision with an earlier
// run's tweet), which the load almost never holds: one look in a set,
// whatever the number of runs the load has spilled.
func (l *sortedLoad) mayHoldRow(k schemas.RowKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rows.mayHold(k)
}

// rowSet is the set of row keys a load holds raw cells under (set or
// deleted), as eight bytes a key: the second (32 bits suffice until
// 2106) and the hash of a row key, exact for seconds in [0, 2^32). A row
// key outside them is kept as a 64-bit hash of its 12 bytes, which
// another may share: mayHold then says yes, and a read looks through the
// load for nothing; it never says no for a key it was given. About 13
// bytes a tweet of the load, whose cells take 3-4 KB until its end.
// (32-bit fingerprints would take 4-8 bytes, but a set that grows must
// know each key's slot from what it keeps, and 32 bits that give both
// slot and fingerprint are shared by another of a million keys once in
// 4,000 looks, each a read of every run file.)
type rowSet map[uint64]struct{}

var rowSetSeed = maphash.MakeSeed()

func rowSetKey(k schemas.RowKey) uint64 {
	sec := binary.BigEndian.Uint64(k[:8])
	if sec>>32 != 0 {
		return maphash.Bytes(rowSetSeed, k[:])
	}
	return sec<<32 | uint64(binary.BigEndian.Uint32(k[8:]))
}

func (s rowSet) add(k schemas.RowKey) { s[rowSetKey(k)] = struct{}{} }

func (s rowSet) mayHold(k schemas.RowKey) bool {
	_, ok := s[rowSetKey(k)]
	return ok
}

// abandon removes the files of a load that failed for good (a spill that
// could not be written: a full disk), unless its end saved a plan to
// complete (ingest): nothing can complete it, and on a full disk they
// keep it full. The load is then over (done). It reports whether it
// removed them.
func (l *sortedLoad) abandon() bool {
	if l.failed.Load() == nil {
		return false
	}
	if _, err := l.fs.Stat(filepath.Join(l.dir, ingestPlanFile)); err == nil {
		return false
	}
	l.spills.Wait()
	l.files.Lock()
	defer l.files.Unlock()
	if l.fs.RemoveAll(l.dir) != nil {
		return false
	}
	// Over: what is written from now on goes through the memtable, and
	// the next FlushOpen flushes it (the run's record of the failure).
	l.mu.Lock()
	l.runs, l.cur, l.rows = nil, nil, rowSet{}
	l.mu.Unlock()
	l.done.Store(true)
	return true
}
