package extsort

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sync/errgroup"
)

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

// Chunk is cells in memory, in the order they were added: their keys and
// values in one arena, and an entry for each (where it is in the arena,
// and its key's first bytes, which decide most compares). It is not safe
// for concurrent use, but for reads (AppendRange, Spiller.Spill) while
// nothing adds to it.
type Chunk struct {
	arena []byte
	ents  []entry
}

// NewChunk returns an empty chunk with room for arenaBytes of keys and
// values and for entries cells.
func NewChunk(arenaBytes, entries int) *Chunk {
	return &Chunk{arena: make([]byte, 0, arenaBytes), ents: make([]entry, 0, entries)}
}

// Reset empties c, keeping its memory.
func (c *Chunk) Reset() { c.arena, c.ents = c.arena[:0], c.ents[:0] }

// Bytes returns how many bytes of keys and values c holds.
func (c *Chunk) Bytes() int { return len(c.arena) }

func (c *Chunk) key(e *entry) []byte { return c.arena[e.off : e.off+e.klen] }

// Add appends a cell to c: its key (table, the key's first byte, then
// key), then its value unless it is a delete (del), in the arena, and its
// entry.
func (c *Chunk) Add(table byte, key, value []byte, del bool) {
	off := len(c.arena)
	c.arena = append(c.arena, table)
	c.arena = append(c.arena, key...)
	klen := len(c.arena) - off
	if !del {
		c.arena = append(c.arena, value...)
	}
	c.ents = append(c.ents, newEntry(c.arena[off:off+klen], off, klen, len(c.arena)-off-klen, del))
}
func (c *Chunk) value(e *entry) []byte {
	return c.arena[e.off+e.klen : e.off+e.klen+e.vlen]
}

// compare orders entries of c by key, then latest added first (merge
// keeps the first of equal keys).
func (c *Chunk) compare(a, b entry) int {
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

// SortRun is how many entries are sorted at once: a run of a chunk whose
// keys (about 6 MB of the arena) stay in the processor's cache while they
// are compared. A chunk is sorted as such runs, merged when it is written.
// Tests make it smaller.
var SortRun = 1 << 17

// Sorted is a chunk whose entries are sorted in runs of SortRun
// (Chunk.Sort): the sources of a merge, one a run (Sources).
type Sorted struct {
	c    *Chunk
	runs [][]entry
}

// Sort sorts c's entries, in place, in runs of SortRun, by key and then
// by the order they were added (the latest first), on up to workers
// cores, and returns them; nothing may read or add to c meanwhile.
// Sorting a sorted chunk again leaves it as it is.
func (c *Chunk) Sort(workers int) *Sorted {
	return &Sorted{c: c, runs: sortChunk(c, workers)}
}

// sortChunk sorts c's entries in runs of SortRun, by key and then by the
// order they were added, on up to workers cores, and returns the runs.
func sortChunk(c *Chunk, workers int) [][]entry {
	var runs [][]entry
	for i := 0; i < len(c.ents); i += SortRun {
		runs = append(runs, c.ents[i:min(i+SortRun, len(c.ents))])
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

// Work returns the merge work (CellWork) of the cells of s.
func (s *Sorted) Work() int64 {
	var w int64
	for _, run := range s.runs {
		for i := range run {
			w += CellWork(int(run[i].klen), int(run[i].vlen))
		}
	}
	return w
}

// Sources returns, per partition (the keys between bounds, as
// PartitionBounds returns them; nil: one partition), a source for each
// sorted run of s (ranked from rank on, in the order they were added).
func (s *Sorted) Sources(bounds [][]byte, rank int) [][]Ranked {
	return chunkSources(s.c, s.runs, bounds, rank)
}

// chunkSources returns, per partition, a source for each sorted run of c
// (ranked from rank on, in the order they were added).
func chunkSources(c *Chunk, runs [][]entry, bounds [][]byte, rank int) [][]Ranked {
	parts := make([][]Ranked, len(bounds)+1)
	for i, r := range runs {
		from := 0
		for p := range parts {
			to := len(r)
			if p < len(bounds) {
				n, _ := slices.BinarySearchFunc(r[from:], bounds[p], func(e entry, k []byte) int { return bytes.Compare(c.key(&e), k) })
				to = from + n
			}
			if to > from {
				parts[p] = append(parts[p], Ranked{&chunkSource{c: c, ents: r[from:to], i: -1}, rank + i})
			}
			from = to
		}
	}
	return parts
}

// AppendRange appends to srcs a source of the cells of c with lo <= key <
// hi, copied (c may go on filling) and sorted, ranked rank, unless it
// holds none, and returns srcs. c is not modified: a read of a chunk that
// another goroutine spills (Spiller) meanwhile, under the caller's lock.
func (c *Chunk) AppendRange(srcs []Ranked, lo, hi []byte, rank int) []Ranked {
	var m Chunk
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
		srcs = append(srcs, Ranked{&chunkSource{c: &m, ents: m.ents, i: -1}, rank})
	}
	return srcs
}

// Spiller writes chunks as run files (Spill), one at a time: it keeps the
// memory of its sorted copy of a chunk's entries for the next.
type Spiller struct {
	ents []entry // the sorted copy of a chunk's entries, reused
}

// Spill sorts c (on one core) and writes it as the run file at path on fs. It
// sorts a copy of c's entries: c's own stay in the order they were added,
// and a read (AppendRange) may look through them meanwhile.
func (s *Spiller) Spill(fs vfs.FS, path string, c *Chunk) (Run, error) {
	sorted := &Chunk{arena: c.arena, ents: append(s.ents[:0], c.ents...)}
	rf, err := WriteRun(fs, path, chunkSources(sorted, sortChunk(sorted, 1), nil, 0)[0])
	s.ents = sorted.ents
	return rf, err
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
func (c *Chunk) radixSort(ents []entry, depth int) {
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
