package storeio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/klauspost/compress/s2"
	"golang.org/x/sync/errgroup"

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
// One exception goes to the memtable as well: the identity stage's
// writes of cells an earlier run left in the database (the deletes of a
// retracted version's cells, which must reach disk before its raw
// delete; writeDurably in identify.go). The ingestion, later than every
// memtable write, still leaves each key as the sorted load has it: the
// base holds the first chunks, in the order they filled, and the end's
// tables, ingested after it, every later chunk.

// sortedTables are the tables a bulk load sorts and ingests.
var sortedTables = [256]bool{schemas.TableRaw: true, schemas.TableTerms: true, schemas.TableAuthors: true}

// sortedChunkBytes is how many bytes of cells a chunk holds before it is
// sorted and spilled; two chunks at most are in memory (one filling, one
// spilling).
var sortedChunkBytes = 32 << 20

// sortedTableBytes is the size of the tables the load's end writes.
const sortedTableBytes = 128 << 20

// rawBlockBytes is the size of the raw table's blocks in the tables the
// load's end writes (the other tables' are Pebble's default, 4 KB): a
// tweet's JSON is 2-4 KB, and snappy finds more to share between several
// (the 100K bench's store: 164 MB with 4 KB blocks, 125 MB with 16 KB;
// its end 1.5 -> 1.2 s; the ten questions of query bench as fast).
const rawBlockBytes = 16 << 10

// sortedLoad gathers, sorts and finally ingests the cells of sortedTables.
type sortedLoad struct {
	db     *pebble.DB
	dir    string // scratch directory: runs and tables
	writer sstable.WriterOptions

	mu     sync.Mutex
	cur    *chunk
	runs   []runFile      // per full chunk, in the order they filled: its run file
	filled map[int]*chunk // full chunks whose run file is not written yet, by run
	rows   rowSet         // the row keys of the raw cells taken (mayHoldRow)
	spill  chan struct{}  // one spill at a time

	spillEnts []entry        // the spill's sorted copy of a chunk's entries, reused
	free      *chunk         // a spilled chunk, for reuse
	spills    sync.WaitGroup // spills and merges under way
	merging   bool           // a merge of runs is under way (mergeRuns); mu held
	finishing bool           // Finish has begun: no merge starts; mu held
	merges    int            // merged runs written, for their names
	store     string         // the store's directory (MergeEarly's key)
	based     bool           // the base merge has begun (maybeMergeBase); mu held
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
	files  sync.RWMutex
	failed atomic.Pointer[error]
	done   atomic.Bool // Finish ingested the load: Take takes nothing more
	cells  int64       // taken in all
}

// runFile is a spilled chunk: its cells in key order, in blocks of about
// runBlockBytes (see writeRunFile). The first key and the offset of each
// block (a restart) stay in memory: the end of the load cuts every run at
// the same keys into partitions of even size, and a read finds a key
// without reading the file from its start.
type runFile struct {
	path     string
	restarts []restart
	level    int   // 0: a spilled chunk; n + 1: a merge of runFanIn runs of level n
	cells    int64 // the cells it holds
	gone     bool  // merged into a later run (mergeRuns): it holds nothing
}

// runFanIn is how many adjacent runs of one level the load merges into
// one run of the next, in the background, as soon as they are written
// (mergeRuns): the end of the load (Finish) then merges fewer than
// runFanIn runs a level, however large the load, so its memory (a read
// buffer and a block for each run, about 150 KB, on each core) stays
// bounded. A run is a chunk, about 7,500 tweets, so only loads of more
// than 3.8 M tweets merge: each merge rewrites its runs once more, which
// cost 3 M tweets over 72 h 54 s of CPU (314 s instead of 260) and 29 s
// of wall with a fan-in of 64, to save 3 s at the end.
var runFanIn = 512

// restart is a block of a run file: its first key, its offset in the
// file, and the work of merging it (cellWork).
type restart struct {
	key  []byte
	off  int64
	work int64
}

// cellWork is the work of merging a cell into the load's tables: its
// bytes (a raw tweet's JSON is mostly compressing and writing them) and
// about 256 more for the cell itself (a term cell's 45 bytes cost about
// as much as 300 of JSON), so that the end's parts take about as long.
func cellWork(klen, vlen int) int64 { return int64(klen + vlen + 256) }

// runBlockBytes is the size of a run file's blocks before compression.
var runBlockBytes = 64 << 10

// entry is a cell in a chunk's arena: key at off, value after it.
type entry struct {
	prefix  uint64 // the key's first 8 bytes, big endian, for a quick compare
	prefix2 uint64 // its next 8 bytes
	prefix3 uint64 // and the 8 after: a term cell's key is mostly told apart by its first 24
	off     uint32
	klen    uint32
	vlen    uint32
	del     bool
}

type chunk struct {
	arena []byte
	ents  []entry
}

func (c *chunk) key(e *entry) []byte { return c.arena[e.off : e.off+e.klen] }

// add appends cell t to c: its table byte and key, then its value unless
// it is a delete, in the arena, and its entry.
func (c *chunk) add(t *schemas.Cell) {
	off := len(c.arena)
	c.arena = append(c.arena, byte(t.Table))
	c.arena = append(c.arena, t.Key...)
	klen := len(c.arena) - off
	if !t.Delete {
		c.arena = append(c.arena, t.Value...)
	}
	c.ents = append(c.ents, newEntry(c.arena[off:off+klen], off, klen, len(c.arena)-off-klen, t.Delete))
}
func (c *chunk) value(e *entry) []byte {
	return c.arena[e.off+e.klen : e.off+e.klen+e.vlen]
}

func newSortedLoad(db *pebble.DB, o *pebble.Options, dir string) (*sortedLoad, error) {
	scratch := filepath.Join(dir, "bulk-load")
	if err := os.RemoveAll(scratch); err != nil { // a dead run's leftovers
		return nil, err
	}
	defaults := o.Clone()
	defaults.EnsureDefaults()
	wo := defaults.MakeWriterOptions(0, db.TableFormat())
	wo.FilterPolicy = nil // term cells are read by range, never looked up
	return &sortedLoad{db: db, dir: scratch, store: dir, writer: wo, spill: make(chan struct{}, 1), filled: map[int]*chunk{}, rows: rowSet{}}, nil
}

// newChunk returns an empty chunk, the spilled one if there is one; mu held.
func (l *sortedLoad) newChunk() *chunk {
	if c := l.free; c != nil {
		l.free = nil
		c.arena, c.ents = c.arena[:0], c.ents[:0]
		return c
	}
	// A term cell takes about 45 bytes of the arena.
	return &chunk{arena: make([]byte, 0, sortedChunkBytes+sortedChunkBytes/8), ents: make([]entry, 0, sortedChunkBytes/40)}
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
		return nil, *p
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
		c.add(t)
	}
	l.cells += int64(taken)
	full, run := (*chunk)(nil), 0
	if len(c.arena) >= sortedChunkBytes {
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
func (l *sortedLoad) spillChunk(c *chunk, run int) {
	l.spill <- struct{}{}
	l.spills.Add(1)
	go func() {
		defer l.spills.Done()
		defer func() { <-l.spill }()
		// Sorted apart from c's entries, which a read (scan) may look
		// through meanwhile in the order they were added.
		sorted := &chunk{arena: c.arena, ents: append(l.spillEnts[:0], c.ents...)}
		path := filepath.Join(l.dir, fmt.Sprintf("run-%05d", run))
		rf, err := writeRunFile(path, chunkSources(sorted, sortChunk(sorted, 1), nil, 0)[0])
		l.spillEnts = sorted.ents
		if err != nil {
			l.fail(fmt.Errorf("storeio: spilling sorted cells: %w", err))
			return
		}
		l.mu.Lock()
		l.runs[run] = rf
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
	if l.merging || l.finishing || l.failed.Load() != nil {
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
			case r.path == "" || r.level != level:
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
		var srcs []ranked
		defer func() { closeSources(srcs) }()
		for i := range runs {
			fs, err := openFileSource(&runs[i], nil, nil, mergeReadBuffer)
			if err != nil {
				return err
			}
			srcs = append(srcs, ranked{fs, i})
		}
		rf, err := writeRunFile(path, srcs)
		if err != nil {
			return err
		}
		rf.level = level + 1
		l.files.Lock() // no read is reading the runs replaced
		defer l.files.Unlock()
		l.mu.Lock()
		for _, r := range group {
			l.runs[r] = runFile{gone: true}
		}
		l.runs[group[len(group)-1]] = rf
		l.mu.Unlock()
		for _, r := range runs {
			os.Remove(r.path)
		}
		return nil
	}()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.merging = false
	if err != nil {
		os.Remove(path)
		l.fail(fmt.Errorf("storeio: merging sorted runs: %w", err))
		return
	}
	l.maybeMerge()
	l.maybeMergeBase()
}

func (l *sortedLoad) fail(err error) { l.failed.CompareAndSwap(nil, &err) }

// compare orders entries of c by key, then latest added first (merge
// keeps the first of equal keys).
func (c *chunk) compare(a, b entry) int {
	if a.prefix != b.prefix {
		if a.prefix < b.prefix {
			return -1
		}
		return 1
	}
	if a.prefix2 != b.prefix2 {
		if a.prefix2 < b.prefix2 {
			return -1
		}
		return 1
	}
	if a.prefix3 != b.prefix3 {
		if a.prefix3 < b.prefix3 {
			return -1
		}
		return 1
	}
	if r := bytes.Compare(c.key(&a), c.key(&b)); r != 0 {
		return r
	}
	return int(b.off) - int(a.off)
}

// newEntry returns the entry of a cell whose key k is at off in its
// chunk's arena.
func newEntry(k []byte, off, klen, vlen int, del bool) entry {
	return entry{prefix: prefix8(k), prefix2: prefix8(k[min(8, len(k)):]), prefix3: prefix8(k[min(16, len(k)):]), off: uint32(off), klen: uint32(klen), vlen: uint32(vlen), del: del}
}

func prefix8(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var p uint64
	for i, c := range k {
		p |= uint64(c) << (56 - 8*i)
	}
	return p
}

// sortRun is how many entries are sorted at once: a run of a chunk whose
// keys (about 6 MB of the arena) stay in the processor's cache while they
// are compared. A chunk is sorted as such runs, merged when it is written.
var sortRun = 1 << 17

// sortChunk sorts c's entries in runs of sortRun, by key and then by the
// order they were added, on up to workers cores, and returns the runs.
func sortChunk(c *chunk, workers int) [][]entry {
	var runs [][]entry
	for i := 0; i < len(c.ents); i += sortRun {
		runs = append(runs, c.ents[i:min(i+sortRun, len(c.ents))])
	}
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for _, r := range runs {
		g.Go(func() error {
			c.radixSort(r, 0)
			return nil
		})
	}
	g.Wait()
	return runs
}

// prefixBytes is how many of a key's bytes an entry holds (prefix,
// prefix2, prefix3).
const prefixBytes = 24

// byteAt returns byte d < prefixBytes of e's key (0 past its end).
func (e *entry) byteAt(d int) byte {
	var p uint64
	switch d >> 3 {
	case 0:
		p = e.prefix
	case 1:
		p = e.prefix2
	default:
		p = e.prefix3
	}
	return byte(p >> (56 - 8*(d&7)))
}

// radixSort sorts ents, whose keys share their first depth bytes, as
// compare does: it distributes them by their byte at depth (in place, an
// American flag sort) and sorts each bucket from the next byte on; small
// buckets, and keys that share all their prefix bytes, by compare. Keys
// shorter than depth read as zeros, which orders them before the keys
// they begin, as compare does.
func (c *chunk) radixSort(ents []entry, depth int) {
	for {
		if len(ents) <= 32 {
			for i := 1; i < len(ents); i++ {
				for j := i; j > 0 && c.compare(ents[j-1], ents[j]) > 0; j-- {
					ents[j-1], ents[j] = ents[j], ents[j-1]
				}
			}
			return
		}
		if depth >= prefixBytes {
			slices.SortFunc(ents, c.compare)
			return
		}
		var count [256]int
		for i := range ents {
			count[ents[i].byteAt(depth)]++
		}
		if count[ents[0].byteAt(depth)] == len(ents) {
			depth++ // one bucket: nothing to move
			continue
		}
		var start, next [256]int
		sum := 0
		for b := range 256 {
			start[b], next[b] = sum, sum
			sum += count[b]
		}
		for b := range 256 {
			end := start[b] + count[b]
			for next[b] < end {
				e := ents[next[b]]
				for {
					d := e.byteAt(depth)
					if int(d) == b {
						break
					}
					ents[next[d]], e = e, ents[next[d]]
					next[d]++
				}
				ents[next[b]] = e
				next[b]++
			}
		}
		for b := range 256 {
			if count[b] > 1 {
				c.radixSort(ents[start[b]:start[b]+count[b]], depth+1)
			}
		}
		return
	}
}

// partitionBounds returns the keys that cut the load (the run files and
// the sorted runs of the last chunk c, if any) into parts of about even
// work (cellWork): the restarts of the run files, and as many points of
// the last chunk, weighed by the work up to the next one.
func partitionBounds(files []runFile, c *chunk, runs [][]entry, parts int) [][]byte {
	type point struct {
		key    []byte
		weight int64
	}
	var points []point
	var total int64
	for _, f := range files {
		for _, r := range f.restarts {
			points = append(points, point{r.key, r.work})
			total += r.work
		}
	}
	for _, r := range runs {
		var w int64
		for i := range r {
			if w == 0 {
				points = append(points, point{c.key(&r[i]), 0})
			}
			w += cellWork(int(r[i].klen), int(r[i].vlen))
			if w >= int64(runBlockBytes) || i == len(r)-1 {
				points[len(points)-1].weight = w
				total += w
				w = 0
			}
		}
	}
	slices.SortFunc(points, func(a, b point) int { return bytes.Compare(a.key, b.key) })
	var bounds [][]byte
	var sum int64
	for _, p := range points {
		if len(bounds)+1 < parts && sum >= total*int64(len(bounds)+1)/int64(parts) &&
			(len(bounds) == 0 || bytes.Compare(bounds[len(bounds)-1], p.key) < 0) {
			bounds = append(bounds, bytes.Clone(p.key))
		}
		sum += p.weight
	}
	return bounds
}

// chunkSources returns, per partition, a source for each sorted run of c
// (ranked from rank on, in the order they were added).
func chunkSources(c *chunk, runs [][]entry, bounds [][]byte, rank int) [][]ranked {
	parts := make([][]ranked, len(bounds)+1)
	for i, r := range runs {
		from := 0
		for p := range parts {
			to := len(r)
			if p < len(bounds) {
				n, _ := slices.BinarySearchFunc(r[from:], bounds[p], func(e entry, k []byte) int { return bytes.Compare(c.key(&e), k) })
				to = from + n
			}
			if to > from {
				parts[p] = append(parts[p], ranked{&chunkSource{c: c, ents: r[from:to], i: -1}, rank + i})
			}
			from = to
		}
	}
	return parts
}

// A run file is a sequence of blocks, each uvarint length and the S2
// encoding of about runBlockBytes of records, whose keys are in order and
// prefix-compressed: uvarint shared, uvarint unshared, the key's unshared
// bytes, uvarint value length << 1 | deleted, the value. A block's first
// record shares nothing. Compressed, the files take about a third of the
// disk (raw JSON), and cost less CPU than writing them whole: the kernel
// took about 2.6 s a GB of CPU to write them on the 2-core machine.
func writeRunFile(path string, srcs []ranked) (runFile, error) {
	rf := runFile{path: path}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return rf, err
	}
	f, err := os.Create(path)
	if err != nil {
		return rf, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var prev, blk, enc []byte
	var off int64
	var hdr [binary.MaxVarintLen64]byte
	flush := func() error {
		if len(blk) == 0 {
			return nil
		}
		enc = s2.Encode(enc[:cap(enc)], blk)
		n := binary.PutUvarint(hdr[:], uint64(len(enc)))
		w.Write(hdr[:n])
		_, err := w.Write(enc)
		off += int64(n + len(enc))
		blk = blk[:0]
		return err
	}
	err = merge(context.Background(), srcs, nil, func(k, v []byte, del bool) error {
		shared := commonPrefix(prev, k)
		if len(blk) == 0 {
			rf.restarts = append(rf.restarts, restart{key: bytes.Clone(k), off: off})
			shared = 0
		}
		rf.restarts[len(rf.restarts)-1].work += cellWork(len(k), len(v))
		rf.cells++
		blk = binary.AppendUvarint(blk, uint64(shared))
		blk = binary.AppendUvarint(blk, uint64(len(k)-shared))
		blk = append(blk, k[shared:]...)
		flag := uint64(len(v)) << 1
		if del {
			flag |= 1
		}
		blk = binary.AppendUvarint(blk, flag)
		blk = append(blk, v...)
		prev = append(prev[:0], k...)
		if len(blk) >= runBlockBytes {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		return rf, err
	}
	return rf, f.Close()
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// source is one sorted input of a merge: a sorted run of a chunk in
// memory, or a run file's partition.
type source interface {
	next() (bool, error)
	key() []byte
	value() []byte
	deleted() bool
}

// ranked is a source and its rank: of equal keys, the one of the higher
// rank was written later and wins.
type ranked struct {
	source
	rank int
}

// fileSource reads the keys lo <= key < hi of a run file (nil: no bound).
type fileSource struct {
	r      *bufio.Reader
	f      *os.File
	lo, hi []byte
	enc    []byte // a block as read
	blk    []byte // the rest of the block being read
	buf    []byte // the block's records
	k, v   []byte
	del    bool
}

// openFileSource opens run file rf at the last block starting at or before
// lo; buf is the size of its read buffer.
func openFileSource(rf *runFile, lo, hi []byte, buf int) (*fileSource, error) {
	off := int64(0)
	if lo != nil {
		i, found := slices.BinarySearchFunc(rf.restarts, lo, func(r restart, k []byte) int { return bytes.Compare(r.key, k) })
		switch {
		case found:
			off = rf.restarts[i].off
		case i > 0:
			off = rf.restarts[i-1].off
		}
	}
	f, err := os.Open(rf.path)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &fileSource{f: f, r: bufio.NewReaderSize(f, buf), lo: lo, hi: hi}, nil
}

func (s *fileSource) next() (bool, error) {
	for {
		ok, err := s.read()
		if err != nil {
			return false, fmt.Errorf("run %s: %w", s.f.Name(), err)
		}
		if !ok {
			return false, nil
		}
		if s.hi != nil && bytes.Compare(s.k, s.hi) >= 0 {
			return false, nil
		}
		if s.lo == nil || bytes.Compare(s.k, s.lo) >= 0 {
			return true, nil
		}
	}
}

var errCorruptRun = errors.New("corrupt record")

// read reads the next record; key and value point into the block.
func (s *fileSource) read() (bool, error) {
	if len(s.blk) == 0 {
		n, err := binary.ReadUvarint(s.r)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		s.enc = slices.Grow(s.enc[:0], int(n))[:n]
		if _, err := io.ReadFull(s.r, s.enc); err != nil {
			return false, err
		}
		if s.buf, err = s2.Decode(s.buf[:cap(s.buf)], s.enc); err != nil {
			return false, err
		}
		s.blk = s.buf
	}
	shared, n := binary.Uvarint(s.blk)
	unshared, m := binary.Uvarint(s.blk[max(n, 0):])
	if n <= 0 || m <= 0 || shared > uint64(len(s.k)) || uint64(len(s.blk)-n-m) < unshared {
		return false, errCorruptRun
	}
	s.blk = s.blk[n+m:]
	s.k = append(s.k[:shared], s.blk[:unshared]...)
	s.blk = s.blk[unshared:]
	flag, n := binary.Uvarint(s.blk)
	if n <= 0 || uint64(len(s.blk)-n) < flag>>1 {
		return false, errCorruptRun
	}
	s.del = flag&1 == 1
	s.v = s.blk[n : n+int(flag>>1)]
	s.blk = s.blk[n+int(flag>>1):]
	return true, nil
}

func (s *fileSource) key() []byte   { return s.k }
func (s *fileSource) value() []byte { return s.v }
func (s *fileSource) deleted() bool { return s.del }

type chunkSource struct {
	c    *chunk
	ents []entry
	i    int
}

func (s *chunkSource) next() (bool, error) {
	s.i++
	return s.i < len(s.ents), nil
}
func (s *chunkSource) key() []byte   { return s.c.key(&s.ents[s.i]) }
func (s *chunkSource) value() []byte { return s.c.value(&s.ents[s.i]) }
func (s *chunkSource) deleted() bool { return s.ents[s.i].del }

// loserTree merges sources: a tournament whose inner nodes hold the
// loser of their match and whose root is the smallest source, by key and
// then by rank (later writes first). Advancing the winner replays its path
// to the root: log2(sources) comparisons, half of a heap's.
type loserTree struct {
	srcs   []ranked
	chunks []*chunkSource // srcs[i] as a chunkSource, nil if it is not one
	cur    []head         // each source's key, read once per move
	node   []int          // node[i], i >= 1: the loser of match i; node[0]: the winner
}

// head is a source's current key and its first 8 bytes as a number
// (prefix8), which decide most matches without comparing the bytes.
type head struct {
	pre  uint64
	key  []byte
	rank int
	done bool // the source has ended: it loses every match
}

// beats reports whether source a comes before source b.
func (t *loserTree) beats(a, b int) bool {
	x, y := &t.cur[a], &t.cur[b]
	switch {
	case y.done:
		return true
	case x.done:
		return false
	case x.pre != y.pre:
		return x.pre < y.pre
	}
	if r := bytes.Compare(x.key, y.key); r != 0 {
		return r < 0
	}
	return x.rank > y.rank
}

// move moves source i to its next key.
func (t *loserTree) move(i int) error {
	ok, err := t.srcs[i].next()
	if err != nil {
		return err
	}
	h := &t.cur[i]
	if h.done = !ok; ok {
		h.key = t.srcs[i].key()
		if c := t.chunks[i]; c != nil {
			// The entry's copy: the key's bytes lie anywhere in the
			// chunk's arena, a cache miss each.
			h.pre = c.ents[c.i].prefix
		} else {
			h.pre = prefix8(h.key)
		}
	}
	return nil
}

// newLoserTree builds the tree over srcs, each moved to its first key.
func newLoserTree(srcs []ranked) (*loserTree, error) {
	t := &loserTree{srcs: srcs, chunks: make([]*chunkSource, len(srcs)), cur: make([]head, len(srcs)), node: make([]int, len(srcs))}
	for i := range srcs {
		t.chunks[i], _ = srcs[i].source.(*chunkSource)
		t.cur[i].rank = srcs[i].rank
		if err := t.move(i); err != nil {
			return nil, err
		}
	}
	if len(srcs) > 0 {
		t.node[0] = t.build(1)
	}
	return t, nil
}

// build plays the matches of the subtree at node i (leaves are nodes
// len(srcs) .. 2*len(srcs)-1, source = node - len(srcs)) and returns its
// winner.
func (t *loserTree) build(i int) int {
	k := len(t.srcs)
	if i >= k {
		return i - k
	}
	a, b := t.build(2*i), t.build(2*i+1)
	if t.beats(b, a) {
		a, b = b, a
	}
	t.node[i] = b
	return a
}

// ok reports whether a source has a key left; top returns it.
func (t *loserTree) ok() bool     { return len(t.srcs) > 0 && !t.cur[t.node[0]].done }
func (t *loserTree) top() *ranked { return &t.srcs[t.node[0]] }

// advance moves the winner to its next key and replays its matches.
func (t *loserTree) advance() error {
	w := t.node[0]
	if err := t.move(w); err != nil {
		return err
	}
	for i := (w + len(t.srcs)) / 2; i >= 1; i /= 2 {
		if t.beats(t.node[i], w) {
			t.node[i], w = w, t.node[i]
		}
	}
	t.node[0] = w
	return nil
}

// mergeCount counts what merges have written: keys, and their work
// (cellWork), which tracks the time they take better than keys do (a raw
// tweet is a key and 3 KB of JSON).
type mergeCount struct {
	keys, work atomic.Int64
}

// mergeCountEvery is how much work a merge does between two additions to
// its count (and two looks at its context).
const mergeCountEvery = 8 << 20

// merge calls emit with each key of srcs in order, once, with its last
// write (the highest rank's, which the loser tree puts first). k and v
// are emit's only for the call. counted, if not nil, counts the keys
// emitted and their work. It stops at the first error and when ctx is done.
func merge(ctx context.Context, srcs []ranked, counted *mergeCount, emit func(k, v []byte, del bool) error) error {
	t, err := newLoserTree(srcs)
	if err != nil {
		return err
	}
	var last []byte      // the key emitted last
	var keys, work int64 // emitted, not yet counted
	for emitted := false; t.ok(); {
		s := t.top()
		if k := s.key(); !emitted || !bytes.Equal(k, last) {
			v := s.value()
			if err := emit(k, v, s.deleted()); err != nil {
				return err
			}
			last, emitted = append(last[:0], k...), true
			keys, work = keys+1, work+cellWork(len(k), len(v))
			if work >= mergeCountEvery {
				if counted != nil {
					counted.keys.Add(keys)
					counted.work.Add(work)
				}
				keys, work = 0, 0
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		if err := t.advance(); err != nil {
			return err
		}
	}
	if counted != nil {
		counted.keys.Add(keys)
		counted.work.Add(work)
	}
	return nil
}

// Finish sorts what is left in memory, merges it with the spilled runs
// into tables and ingests them, one partition per core at once. It says
// every compactReportEvery how far it is (logLine). The load is empty
// after. If it fails (or ctx is done) it can be called again: it keeps
// what it holds until its tables are ingested.
func (l *sortedLoad) Finish(ctx context.Context) (err error) {
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
	if CrashBeforeIngest == "" {
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
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return err
	}
	start := time.Now()
	var lastRuns [][]entry
	if last != nil {
		lastRuns = sortChunk(last, runtime.GOMAXPROCS(0))
	}
	bounds, first := l.endParts(last, lastRuns)
	job := mergeJob{name: "table", readBuf: mergeReadBuffer, runs: l.runs, bounds: bounds, first: first, last: last, lastRuns: lastRuns}
	var merged mergeCount
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
	if err := l.ingest(ctx, paths); err != nil {
		return fmt.Errorf("storeio: ingesting the sorted tables: %w", err)
	}
	l.runs, last = nil, nil
	l.mu.Lock()
	l.rows = rowSet{}
	l.mu.Unlock()
	l.baseRuns, l.baseBounds, l.baseDone, l.baseTables, l.baseCells = 0, nil, nil, nil, 0
	l.done.Store(true)
	return os.RemoveAll(l.dir)
}

// mergeJob is a merge of runs into tables (writeParts).
type mergeJob struct {
	name    string    // of its tables: name-PART-N.sst
	readBuf int       // the read buffer of each run file, bytes
	runs    []runFile // the runs it merges (but the gone ones), ranked by index
	// The bounds of its parts (partitionBounds: about even work), and per
	// part the first of runs it merges (nil: the first run).
	bounds [][]byte
	first  []int
	// A chunk in memory, sorted in lastRuns, merged over runs (ranked
	// after them), if not nil.
	last     *chunk
	lastRuns [][]entry
	// Once true, no part starts (nil: never true).
	stop *atomic.Bool
}

// work returns the merge work (cellWork) of j: of each block of its runs
// that a part reads (a block counts in the part its first key is in), and
// of its last chunk. A key written over is merged once, so the work done
// may end short of it.
func (j mergeJob) work() int64 {
	var w int64
	for r := range j.runs {
		if j.runs[r].gone {
			continue
		}
		for _, rs := range j.runs[r].restarts {
			p, found := slices.BinarySearchFunc(j.bounds, rs.key, bytes.Compare)
			if found {
				p++
			}
			if j.first == nil || r >= j.first[p] {
				w += rs.work
			}
		}
	}
	for _, run := range j.lastRuns {
		for i := range run {
			w += cellWork(int(run[i].klen), int(run[i].vlen))
		}
	}
	return w
}

// cutBasePart, if not nil, tells the base's merge which parts to leave
// to the end, as the end's cutBase does (tests).
var cutBasePart func(p int) bool

// writeParts merges j's parts into tables, a part a core at a time, and
// returns their paths and which parts it wrote (all of them, unless j.stop
// came true). merged, if not nil, counts the keys written and their work.
func (l *sortedLoad) writeParts(ctx context.Context, j mergeJob, merged *mergeCount) ([]string, []bool, error) {
	var lastParts [][]ranked
	if j.last != nil {
		lastParts = chunkSources(j.last, j.lastRuns, j.bounds, len(j.runs))
	}
	tables := make([][]string, len(j.bounds)+1)
	done := make([]bool, len(tables))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for p := range tables {
		var lo, hi []byte
		if p > 0 {
			lo = j.bounds[p-1]
		}
		if p < len(j.bounds) {
			hi = j.bounds[p]
		}
		first := 0
		if j.first != nil {
			first = j.first[p]
		}
		g.Go(func() error {
			if j.stop != nil && (j.stop.Load() || cutBasePart != nil && cutBasePart(p)) {
				return nil
			}
			var srcs []ranked
			defer func() { closeSources(srcs) }()
			for r := first; r < len(j.runs); r++ {
				if j.runs[r].gone {
					continue
				}
				fs, err := openFileSource(&j.runs[r], lo, hi, j.readBuf)
				if err != nil {
					return err
				}
				srcs = append(srcs, ranked{fs, r})
			}
			if lastParts != nil {
				srcs = append(srcs, lastParts[p]...)
			}
			paths, err := l.writeTables(gctx, j.name, p, srcs, merged)
			tables[p], done[p] = paths, err == nil
			return err
		})
	}
	err := g.Wait()
	var paths []string
	for _, t := range tables {
		paths = append(paths, t...)
	}
	return paths, done, err
}

// endParts returns the parts of the end's merge (Finish), and per part the
// first run it merges. Without a base: every run and the last chunk,
// cut into parts of about even work. With one, the runs after the base,
// the last chunk, and the base's runs where the base did not write its
// part (cut short by the end: cutBase), again cut by work, and at the
// edges of those parts of the base as well, so that each part of the end
// lies in parts of the base that were all written (it merges the runs
// after the base) or in one that was not (it merges every run).
func (l *sortedLoad) endParts(last *chunk, lastRuns [][]entry) (bounds [][]byte, first []int) {
	parts := 8 * runtime.GOMAXPROCS(0) // more than cores: they stay busy to the end however the keys compare in cost
	if l.baseRuns == 0 {
		return partitionBounds(l.runs, last, lastRuns, parts), nil
	}
	basePart := func(k []byte) int { // the part of the base that holds k
		if k == nil {
			return 0
		}
		i, found := slices.BinarySearchFunc(l.baseBounds, k, bytes.Compare)
		if found {
			i++
		}
		return i
	}
	// The work: the base's runs, where it did not write them, and the rest.
	work := slices.Clone(l.runs)
	for i := range l.baseRuns {
		work[i].restarts = slices.DeleteFunc(slices.Clone(work[i].restarts), func(r restart) bool { return l.baseDone[basePart(r.key)] })
	}
	bounds = partitionBounds(work, last, lastRuns, parts)
	for p, done := range l.baseDone {
		if !done {
			if p > 0 {
				bounds = append(bounds, l.baseBounds[p-1])
			}
			if p < len(l.baseBounds) {
				bounds = append(bounds, l.baseBounds[p])
			}
		}
	}
	slices.SortFunc(bounds, bytes.Compare)
	bounds = slices.CompactFunc(bounds, bytes.Equal)
	first = make([]int, len(bounds)+1)
	for p := range first {
		var lo []byte
		if p > 0 {
			lo = bounds[p-1]
		}
		if l.baseDone[basePart(lo)] {
			first[p] = l.baseRuns
		}
	}
	return bounds, first
}

// MergeEarlyAt is how much of its input a run has read (MergeEarly) when
// its bulk load merges the runs spilled so far into tables. Earlier, the
// end has more to merge; later, the merge is still under way when the
// input is read, and the end takes over the parts it has not begun. Both
// ways the run's work is the same: each cell is merged once. On 2 cores, 1 M generated tweets
// over 1 hour: at 0.9 the merge took 108 of 133 runs, ended about half a
// second before the input did, and left the end 0.7-0.8 s of merging
// instead of 6; at 0.85, 1.0-1.1 s; at 0.8, 1.3 s. 3 M over 72 h: 2.6 s
// at 0.9, 3.3 s at 0.85, 20 s without.
const MergeEarlyAt = 0.9

// inputRead holds, by the absolute directory of a store, how much of its
// input the run bulk loading it has read (MergeEarly).
var inputRead sync.Map // string -> *func() float64

// MergeEarly tells the bulk load of the store in dir, in this process,
// how much of its input the run has read: read returns a fraction, 0 to 1
// (bytes read of the input's, say). Once it reaches MergeEarlyAt, the load
// merges what it has spilled into tables while the run reads on, so that
// the end of the run (FlushOpen) merges only the cells that came after
// (see the top of sorted.go). A load that is never told merges everything
// at the end. Call stop when the run is over.
func MergeEarly(dir string, read func() float64) (stop func()) {
	abs, r := absDir(dir), &read // a pointer: funcs do not compare
	inputRead.Store(abs, r)
	return func() { inputRead.CompareAndDelete(abs, r) }
}

// maybeMergeBase starts the base merge (mergeBase) once the run has read
// MergeEarlyAt of its input, unless it has begun or a merge is under way;
// mu held. The base is every run written so far, up to the first one not
// written yet: the runs spill in the background, and the base must hold
// the first chunks in the order they filled (the end's tables, ingested
// after it, hold every later one).
func (l *sortedLoad) maybeMergeBase() {
	if l.based || l.merging || l.finishing || l.failed.Load() != nil {
		return
	}
	read, ok := inputRead.Load(l.store)
	if !ok || (*read.(*func() float64))() < MergeEarlyAt {
		return
	}
	n := 0
	for n < len(l.runs) && (l.runs[n].path != "" || l.runs[n].gone) {
		n++
	}
	if n == 0 {
		return
	}
	l.based, l.merging = true, true
	l.spills.Add(1)
	go l.mergeBase(n, slices.Clone(l.runs[:n]))
}

// baseReadBuffer is the read buffer of each run the base merge reads: it
// shares the memory with the run, which goes on reading (the end's,
// mergeReadBuffer, is 4 times larger; 3 M tweets: 312 runs, 2 parts at a
// time, 30 MB less).
const baseReadBuffer = 16 << 10

// mergeBase merges runs, the first n of the load, into the base's tables,
// which the end ingests before its own (ingest), a part at a time: once
// the end has begun (cutBase), no part starts, and the end merges the
// parts not written with its own. Until then the runs stay: reads find
// the base's cells there.
func (l *sortedLoad) mergeBase(n int, runs []runFile) {
	defer l.spills.Done()
	job := mergeJob{name: "base", readBuf: baseReadBuffer, runs: runs, bounds: partitionBounds(runs, nil, nil, 8*runtime.GOMAXPROCS(0)), stop: &l.cutBase}
	var merged mergeCount
	var cells int64
	for _, r := range runs {
		cells += r.cells
	}
	mergingEarly.Store(l, &finishProgress{count: &merged, cells: cells, work: job.work()})
	defer mergingEarly.Delete(l)
	paths, done, err := l.writeParts(context.Background(), job, &merged)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.merging = false
	if err != nil {
		l.fail(fmt.Errorf("storeio: writing the first sorted tables: %w", err))
		return
	}
	l.baseRuns, l.baseBounds, l.baseDone, l.baseTables, l.baseCells = n, job.bounds, done, paths, merged.keys.Load()
	l.maybeMerge()
}

// ingestPlan is what the end of a load with a base ingests, saved in its
// scratch directory (ingestPlanFile) while it does: the base's tables,
// then the end's. Two ingestions, which a crash may separate; the plan
// lets the next opener complete them (recoverIngest). Names are of files
// in the scratch directory.
type ingestPlan struct {
	Base         []string `json:"base"`
	BaseIngested bool     `json:"base_ingested"`
	Tables       []string `json:"tables"`
}

const ingestPlanFile = "INGEST"

// ingest ingests the base's tables, if there is a base, then tables (the
// end's), saving the plan first, so that a crash between the two
// ingestions leaves a store that recoverIngest completes: either way, the
// database gets the whole load or, before the plan is saved, none of it.
//
// Without a log (a bulk load), an ingestion whose tables overlap what the
// memtable holds is not on disk until the memtable is flushed: Pebble
// queues it above the memtable. A load without a base relies on that (its
// one ingestion reaches disk with the memtable, in one flush, at the end
// of FlushOpen). With a base, the memtable is flushed before the plan is
// saved (what the load completes must not reach disk without what the
// memtable holds: the identity rows that lead to its cells, the deletes
// of the geo cells of the versions it retracts), and the base before the
// plan says it is ingested.
func (l *sortedLoad) ingest(ctx context.Context, tables []string) error {
	if len(l.baseTables) > 0 {
		plan := ingestPlan{Base: names(l.baseTables), BaseIngested: l.baseIngested, Tables: names(tables)}
		if !l.baseIngested {
			if err := l.db.Flush(); err != nil {
				return err
			}
			if err := savePlan(l.dir, plan); err != nil {
				return err
			}
			if err := cutIngest("base"); err != nil {
				return err
			}
			if err := l.db.Ingest(ctx, l.baseTables); err != nil {
				return err
			}
			if err := l.db.Flush(); err != nil { // the base, if it went above a memtable written meanwhile
				return err
			}
			l.baseIngested, plan.BaseIngested = true, true
		}
		// Saved again when Finish runs again after a failure: its tables
		// are written anew.
		if err := savePlan(l.dir, plan); err != nil {
			return err
		}
		if err := cutIngest("tables"); err != nil {
			return err
		}
	}
	if len(tables) == 0 {
		return nil
	}
	return l.db.Ingest(ctx, tables)
}

// cutIngest is called by ingest before each of the two ingestions of a
// load with a base ("base", then "tables"); a test makes it fail, to stop
// the end there as an error would. It exits the process there when
// CrashBeforeIngest names the stage.
var cutIngest = func(stage string) error {
	if CrashBeforeIngest == stage {
		os.Exit(9)
	}
	return nil
}

// CrashBeforeIngest is for crash tests (TestKilledBoundedRunRunAgain):
// set to "base" or "tables", the end of a load with a base exits the
// process (status 9) right before that ingestion, as a crash would. Set,
// the end lets the base's merge write all its parts rather than cut it
// short, so that a base under way still has tables to ingest.
var CrashBeforeIngest string

// names returns the file names of paths.
func names(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// savePlan writes plan to dir's ingestPlanFile, durably: written aside,
// synced and renamed, the directory synced.
func savePlan(dir string, plan ingestPlan) error {
	data, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ingestPlanFile)
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// recoverIngest completes the ingestion that the end of a bulk load into
// dir was making when its process died (ingestPlan, in the load's scratch
// directory): the base's tables unless they were ingested, then the
// end's. It reports whether there was one to complete. A base ingested
// again (a crash after its ingestion, before the plan said so) adds the
// same cells again, above themselves.
func recoverIngest(db *pebble.DB, dir string) (bool, error) {
	scratch := filepath.Join(dir, "bulk-load")
	data, err := os.ReadFile(filepath.Join(scratch, ingestPlanFile))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var plan ingestPlan
	if err := json.Unmarshal(data, &plan); err != nil {
		return false, fmt.Errorf("%s: %w", ingestPlanFile, err)
	}
	paths := func(names []string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(scratch, n)
		}
		return out
	}
	if !plan.BaseIngested && len(plan.Base) > 0 {
		if err := db.Ingest(context.Background(), paths(plan.Base)); err != nil {
			return false, err
		}
	}
	if len(plan.Tables) > 0 {
		if err := db.Ingest(context.Background(), paths(plan.Tables)); err != nil {
			return false, err
		}
	}
	return true, os.RemoveAll(scratch)
}

// finishing holds the progress of each load whose end (Finish) is under
// way in this process, by load (SortedTablesProgress); mergingEarly that
// of each load's base merge under way (EarlyTablesProgress).
var finishing, mergingEarly sync.Map // *sortedLoad -> *finishProgress

type finishProgress struct {
	count *mergeCount // written to tables so far
	cells int64       // cells the merge reads
	work  int64       // their work (mergeJob.work)
}

// TablesProgress is how far merges of bulk loads into the raw, term and
// authors tables are.
type TablesProgress struct {
	// Cells of CellsAll cells are written. A cell written again over an
	// earlier one is written once, so Cells may end short of CellsAll.
	Cells, CellsAll int64
	// Work of WorkAll is done: the same in merge work, a cell's bytes and
	// a fixed cost, which follows the time a merge takes more closely (a
	// raw tweet is one cell of 2-4 KB, a term one of 40 bytes).
	Work, WorkAll int64
}

// Done returns the part of the work done, 0 to 1.
func (p TablesProgress) Done() float64 {
	if p.WorkAll <= 0 {
		return 0
	}
	return min(1, float64(p.Work)/float64(p.WorkAll))
}

// SortedTablesProgress reports how far the ends of the bulk loads under
// way in this process (FlushOpen writing the raw, term and authors
// tables) are. ok is false when no load is ending.
func SortedTablesProgress() (p TablesProgress, ok bool) {
	return sumProgress(&finishing)
}

// EarlyTablesProgress reports how far the base merges under way in this
// process are: the raw, term and authors tables a bulk load writes while
// its run reads on, once told by MergeEarly, from the runs spilled so
// far. ok is false when none is under way. The run's pipeline slows while
// one is (both take the cores).
func EarlyTablesProgress() (p TablesProgress, ok bool) {
	return sumProgress(&mergingEarly)
}

// now returns how far the merge is.
func (p *finishProgress) now() TablesProgress {
	return TablesProgress{Cells: p.count.keys.Load(), CellsAll: p.cells, Work: p.count.work.Load(), WorkAll: p.work}
}

// sumProgress adds up the progress of the merges in m.
func sumProgress(m *sync.Map) (sum TablesProgress, ok bool) {
	m.Range(func(_, v any) bool {
		p := v.(*finishProgress).now()
		sum.Cells, sum.CellsAll = sum.Cells+p.Cells, sum.CellsAll+p.CellsAll
		sum.Work, sum.WorkAll = sum.Work+p.Work, sum.WorkAll+p.WorkAll
		ok = true
		return true
	})
	return sum, ok
}

// writeTables merges srcs (a partition's runs) into tables of about
// sortedTableBytes, named name-PART-N.sst, and returns their paths.
func (l *sortedLoad) writeTables(ctx context.Context, name string, part int, srcs []ranked, merged *mergeCount) ([]string, error) {
	var paths []string
	var w *sstable.Writer
	var table byte // of w's keys
	err := merge(ctx, srcs, merged, func(k, v []byte, del bool) error {
		if w != nil && k[0] != table {
			// A table of its own for each table's keys, written with
			// that table's options.
			if err := w.Close(); err != nil {
				return err
			}
			w = nil
		}
		if w == nil {
			path := filepath.Join(l.dir, fmt.Sprintf("%s-%02d-%04d.sst", name, part, len(paths)))
			f, err := createDirect(path, true)
			if err != nil {
				return err
			}
			paths = append(paths, path)
			o := l.writer
			if table = k[0]; table == byte(schemas.TableRaw) {
				o.BlockSize = rawBlockBytes
			}
			w = sstable.NewWriter(directWritable{f}, o)
		}
		var err error
		if del {
			err = w.Delete(k)
		} else {
			err = w.Set(k, v)
		}
		if err != nil {
			return err
		}
		if w.Raw().EstimatedSize() >= sortedTableBytes {
			err, w = w.Close(), nil
		}
		return err
	})
	if w != nil {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	return paths, err
}

// closeSources closes the run files among srcs.
func closeSources(srcs []ranked) {
	for _, s := range srcs {
		if fs, ok := s.source.(*fileSource); ok {
			fs.f.Close()
		}
	}
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
	var srcs []ranked
	defer func() { closeSources(srcs) }()
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
	inRange := func(c *chunk, rank int) {
		var m chunk
		for i := range c.ents {
			e := &c.ents[i]
			if k := c.key(e); bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) < 0 {
				off := len(m.arena)
				m.arena = append(m.arena, c.arena[e.off:e.off+e.klen+e.vlen]...)
				moved := *e
				moved.off = uint32(off)
				m.ents = append(m.ents, moved)
			}
		}
		if len(m.ents) > 0 {
			slices.SortFunc(m.ents, m.compare)
			srcs = append(srcs, ranked{&chunkSource{c: &m, ents: m.ents, i: -1}, rank})
		}
	}
	for run, c := range l.filled {
		inRange(c, run)
	}
	if l.cur != nil {
		inRange(l.cur, len(runs))
	}
	l.mu.Unlock()
	for r := range runs {
		if runs[r].path == "" {
			continue // not written yet (among the chunks above), or merged into a later run
		}
		fs, err := openFileSource(&runs[r], lo, hi, 4<<10)
		if err != nil {
			return err
		}
		srcs = append(srcs, ranked{fs, r})
	}
	return merge(ctx, srcs, nil, fn)
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
