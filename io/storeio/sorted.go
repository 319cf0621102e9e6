package storeio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/schemas"
)

// A bulk load (OpenBulk) writes the term index, about 22 of the 25 cells
// a tweet adds, around the memtable: nothing reads that table while a
// bounded run writes it (deduplication reads the identity and raw tables),
// so its cells need not be in the database before the run ends. They are
// gathered in memory, sorted a chunk at a time, spilled to sorted run
// files, and merged at the end of the load (FlushOpen) into sorted tables
// that Pebble ingests as they are, at the bottom of the tree: each cell is
// written twice (run, table) instead of passing through a memtable, a
// flush and several compactions. The term table's prefix ('t') is above
// every table the memtable holds in a bulk load, so its tables overlap no
// other and land in the last level. The authors table ('u') goes the same
// way.
//
// Later writes of a key win, as in the memtable: within a chunk by the
// order of the cells (their offset), across chunks by the chunk's order.
//
// One exception goes to the memtable as well: the identity stage's
// writes of cells an earlier run left in the database (the deletes of a
// retracted version's cells, which must reach disk before its raw
// delete; writeDurably in identify.go). The ingestion, later than every
// memtable write, still leaves each key as the sorted load has it.

// sortedTables are the tables a bulk load sorts and ingests: the term
// index and the authors table (one small cell a tweet, 'u'), which nothing
// reads during a run either and whose byte is above the memtable's tables
// too.
var sortedTables = [256]bool{schemas.TableTerms: true, schemas.TableAuthors: true}

// sortedChunkBytes is how many bytes of cells a chunk holds before it is
// sorted and spilled; two chunks at most are in memory (one filling, one
// spilling).
var sortedChunkBytes = 32 << 20

// sortedTableBytes is the size of the tables the load's end writes.
const sortedTableBytes = 128 << 20

// sortedLoad gathers, sorts and finally ingests the cells of sortedTables.
type sortedLoad struct {
	db     *pebble.DB
	dir    string // scratch directory: runs and tables
	writer sstable.WriterOptions

	mu      sync.Mutex
	cur     *chunk
	bounds  [][]byte      // partition boundaries, from the first sorted chunk
	runs    [][]string    // per spilled chunk, in order: its file per partition
	spill   chan struct{} // one spill at a time
	free    *chunk        // a spilled chunk, for reuse
	spills  sync.WaitGroup
	failed  atomic.Pointer[error]
	done    atomic.Bool // Finish ingested the load: Take takes nothing more
	nextRun int
	cells   int64 // taken in all
}

// entry is a cell in a chunk's arena: key at off, value after it.
type entry struct {
	prefix uint64 // the key's first 8 bytes, big endian, for a quick compare
	off    uint32
	klen   uint32
	vlen   uint32
	del    bool
}

type chunk struct {
	arena []byte
	ents  []entry
}

func (c *chunk) key(e *entry) []byte { return c.arena[e.off : e.off+e.klen] }
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
	return &sortedLoad{db: db, dir: scratch, writer: wo, spill: make(chan struct{}, 1)}, nil
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
		off := len(c.arena)
		c.arena = append(c.arena, byte(t.Table))
		c.arena = append(c.arena, t.Key...)
		klen := len(c.arena) - off
		if !t.Delete {
			c.arena = append(c.arena, t.Value...)
		}
		c.ents = append(c.ents, entry{prefix: prefix8(c.arena[off : off+klen]), off: uint32(off), klen: uint32(klen),
			vlen: uint32(len(c.arena) - off - klen), del: t.Delete})
	}
	l.cells += int64(taken)
	var full *chunk
	if len(c.arena) >= sortedChunkBytes {
		full, l.cur = c, nil
	}
	l.mu.Unlock()
	if full != nil {
		l.spillChunk(full)
	}
	return rest, nil
}

// spillChunk sorts c and writes it as a run, in the background; it waits
// while an earlier chunk is still being spilled (memory stays at two
// chunks).
func (l *sortedLoad) spillChunk(c *chunk) {
	l.spill <- struct{}{}
	l.mu.Lock()
	run := l.nextRun
	l.nextRun++
	l.runs = append(l.runs, nil)
	l.mu.Unlock()
	l.spills.Add(1)
	go func() {
		defer l.spills.Done()
		defer func() { <-l.spill }()
		files, err := l.writeRun(c, sortChunk(c, 1), run)
		if err != nil {
			l.fail(fmt.Errorf("storeio: spilling sorted cells: %w", err))
			return
		}
		l.mu.Lock()
		l.runs[run] = files
		l.free = c
		l.mu.Unlock()
	}()
}

func (l *sortedLoad) fail(err error) { l.failed.CompareAndSwap(nil, &err) }

func prefix8(k []byte) uint64 {
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
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
			slices.SortFunc(r, func(a, b entry) int {
				if a.prefix != b.prefix {
					if a.prefix < b.prefix {
						return -1
					}
					return 1
				}
				if r := bytes.Compare(c.key(&a), c.key(&b)); r != 0 {
					return r
				}
				return int(a.off) - int(b.off)
			})
			return nil
		})
	}
	g.Wait()
	return runs
}

// partitionBounds sets the partition boundaries, once, from a sorted
// chunk: keys that cut it into as many parts as there are cores, so that
// the end of the load merges the parts at once.
func (l *sortedLoad) partitionBounds(c *chunk, runs [][]entry) [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bounds == nil {
		parts := max(1, runtime.GOMAXPROCS(0))
		l.bounds = [][]byte{}
		// The first run's quantiles: a sample of the chunk's keys.
		r := runs[0]
		for i := 1; i < parts && len(r) > 0; i++ {
			k := bytes.Clone(c.key(&r[len(r)*i/parts]))
			if len(l.bounds) == 0 || bytes.Compare(l.bounds[len(l.bounds)-1], k) < 0 {
				l.bounds = append(l.bounds, k)
			}
		}
	}
	return l.bounds
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

// writeRun writes sorted chunk c as run files, one per partition, and
// returns their paths.
func (l *sortedLoad) writeRun(c *chunk, runs [][]entry, run int) ([]string, error) {
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return nil, err
	}
	parts := chunkSources(c, runs, l.partitionBounds(c, runs), 0)
	files := make([]string, len(parts))
	for p, srcs := range parts {
		files[p] = filepath.Join(l.dir, fmt.Sprintf("run-%05d-%02d", run, p))
		if err := writeRunFile(files[p], srcs); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// A run file is a sequence of records, keys in order and prefix-compressed:
// uvarint shared, uvarint unshared, the key's unshared bytes, uvarint
// value length << 1 | deleted, the value.
func writeRunFile(path string, srcs []ranked) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var prev []byte
	var hdr [3 * binary.MaxVarintLen64]byte
	err = merge(context.Background(), srcs, nil, func(k, v []byte, del bool) error {
		shared := commonPrefix(prev, k)
		n := binary.PutUvarint(hdr[:], uint64(shared))
		n += binary.PutUvarint(hdr[n:], uint64(len(k)-shared))
		w.Write(hdr[:n])
		w.Write(k[shared:])
		flag := uint64(len(v)) << 1
		if del {
			flag |= 1
		}
		n = binary.PutUvarint(hdr[:], flag)
		w.Write(hdr[:n])
		_, err := w.Write(v)
		prev = append(prev[:0], k...)
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

type fileSource struct {
	r    *bufio.Reader
	f    *os.File
	k, v []byte
	del  bool
}

func openFileSource(path string) (*fileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &fileSource{f: f, r: bufio.NewReaderSize(f, 256<<10)}, nil
}

func (s *fileSource) next() (bool, error) {
	shared, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("run %s: %w", s.f.Name(), err)
	}
	unshared, err := binary.ReadUvarint(s.r)
	if err != nil {
		return false, fmt.Errorf("run %s: %w", s.f.Name(), err)
	}
	if shared > uint64(len(s.k)) {
		return false, fmt.Errorf("run %s: corrupt record", s.f.Name())
	}
	s.k = slices.Grow(s.k[:shared], int(unshared))[:shared+unshared]
	if _, err := io.ReadFull(s.r, s.k[shared:]); err != nil {
		return false, fmt.Errorf("run %s: %w", s.f.Name(), err)
	}
	flag, err := binary.ReadUvarint(s.r)
	if err != nil {
		return false, fmt.Errorf("run %s: %w", s.f.Name(), err)
	}
	s.del = flag&1 == 1
	s.v = slices.Grow(s.v[:0], int(flag>>1))[:flag>>1]
	if _, err := io.ReadFull(s.r, s.v); err != nil {
		return false, fmt.Errorf("run %s: %w", s.f.Name(), err)
	}
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
// then by rank (later writes last). Advancing the winner replays its path
// to the root: log2(sources) comparisons, half of a heap's.
type loserTree struct {
	srcs []ranked
	done []bool // the source has ended: it loses every match
	node []int  // node[i], i >= 1: the loser of match i; node[0]: the winner
}

// beats reports whether source a comes before source b.
func (t *loserTree) beats(a, b int) bool {
	switch {
	case t.done[b]:
		return true
	case t.done[a]:
		return false
	}
	if r := bytes.Compare(t.srcs[a].key(), t.srcs[b].key()); r != 0 {
		return r < 0
	}
	return t.srcs[a].rank < t.srcs[b].rank
}

// newLoserTree builds the tree over srcs, each moved to its first key.
func newLoserTree(srcs []ranked) (*loserTree, error) {
	t := &loserTree{srcs: srcs, done: make([]bool, len(srcs)), node: make([]int, len(srcs))}
	for i, s := range srcs {
		ok, err := s.next()
		if err != nil {
			return nil, err
		}
		t.done[i] = !ok
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
func (t *loserTree) ok() bool     { return len(t.srcs) > 0 && !t.done[t.node[0]] }
func (t *loserTree) top() *ranked { return &t.srcs[t.node[0]] }

// advance moves the winner to its next key and replays its matches.
func (t *loserTree) advance() error {
	w := t.node[0]
	ok, err := t.srcs[w].next()
	if err != nil {
		return err
	}
	t.done[w] = !ok
	for i := (w + len(t.srcs)) / 2; i >= 1; i /= 2 {
		if t.beats(t.node[i], w) {
			t.node[i], w = w, t.node[i]
		}
	}
	t.node[0] = w
	return nil
}

// merge calls emit with each key of srcs in order, once, with its last
// write (the highest rank's). counted, if not nil, counts the keys
// emitted. It stops at the first error and when ctx is done.
func merge(ctx context.Context, srcs []ranked, counted *atomic.Int64, emit func(k, v []byte, del bool) error) error {
	t, err := newLoserTree(srcs)
	if err != nil {
		return err
	}
	var pk, pv []byte
	pdel, have, n := false, false, 0
	for t.ok() {
		s := t.top()
		k := s.key()
		if have && !bytes.Equal(k, pk) {
			if err := emit(pk, pv, pdel); err != nil {
				return err
			}
			if n++; n%65536 == 0 && counted != nil {
				counted.Add(65536)
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		pk, pv, pdel, have = append(pk[:0], k...), append(pv[:0], s.value()...), s.deleted(), true
		if err := t.advance(); err != nil {
			return err
		}
	}
	if have {
		if err := emit(pk, pv, pdel); err != nil {
			return err
		}
		n++
	}
	if counted != nil {
		counted.Add(int64(n % 65536))
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
	l.mu.Unlock()
	defer func() {
		if err != nil && last != nil {
			l.mu.Lock()
			l.cur = last
			l.mu.Unlock()
		}
	}()
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
	var merged atomic.Int64
	defer every(compactReportEvery, func() {
		logLine(slog.LevelInfo, "store writing terms", []any{"dir", l.dir, "cells", merged.Load(), "of", l.cells},
			fmt.Sprintf("storeio: writing the term index: %d of %d cells, %s", merged.Load(), l.cells, time.Since(start).Round(time.Second)))
	})()
	var lastParts [][]ranked
	bounds := l.bounds
	if last != nil {
		runs := sortChunk(last, runtime.GOMAXPROCS(0))
		bounds = l.partitionBounds(last, runs)
		lastParts = chunkSources(last, runs, bounds, len(l.runs))
	}
	tables := make([][]string, len(bounds)+1)
	g, gctx := errgroup.WithContext(ctx)
	for p := range tables {
		g.Go(func() error {
			var srcs []ranked
			defer func() {
				for _, s := range srcs {
					if fs, ok := s.source.(*fileSource); ok {
						fs.f.Close()
					}
				}
			}()
			for r, files := range l.runs {
				fs, err := openFileSource(files[p])
				if err != nil {
					return err
				}
				srcs = append(srcs, ranked{fs, r})
			}
			if lastParts != nil {
				srcs = append(srcs, lastParts[p]...)
			}
			paths, err := l.writeTables(gctx, p, srcs, &merged)
			tables[p] = paths
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("storeio: writing the sorted term index: %w", err)
	}
	var paths []string
	for _, t := range tables {
		paths = append(paths, t...)
	}
	if len(paths) > 0 {
		if err := l.db.Ingest(ctx, paths); err != nil {
			return fmt.Errorf("storeio: ingesting the sorted term index: %w", err)
		}
	}
	l.runs, l.bounds, last = nil, nil, nil
	l.done.Store(true)
	return os.RemoveAll(l.dir)
}

// writeTables merges srcs (a partition's runs) into tables of about
// sortedTableBytes and returns their paths.
func (l *sortedLoad) writeTables(ctx context.Context, part int, srcs []ranked, merged *atomic.Int64) ([]string, error) {
	var paths []string
	var w *sstable.Writer
	err := merge(ctx, srcs, merged, func(k, v []byte, del bool) error {
		if w == nil {
			path := filepath.Join(l.dir, fmt.Sprintf("table-%02d-%04d.sst", part, len(paths)))
			f, err := vfs.Default.Create(path, vfs.WriteCategoryUnspecified)
			if err != nil {
				return err
			}
			paths = append(paths, path)
			w = sstable.NewWriter(objstorageprovider.NewFileWritable(f), l.writer)
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
