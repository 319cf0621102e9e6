package transforms

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync/atomic"
)

// A bounded run that keeps its dedup ids in memory only (DedupFn.InMemory)
// forgets none of them until its end. So that its memory does not grow
// with its input, the ids beyond a budget (spillBudget, for the process)
// are moved out of memory: a day's ids, with their records, and its row
// keys are written sorted to a file (spilledIDs), and only a Bloom filter
// of each and the first key of every block stay in memory, 2.5 bytes an
// id instead of about 24. A lookup of an id the filter has not seen, most
// of them, costs no read; a copy, or one id in 100 that the filter takes
// for one, reads a block of 4 KB (from the page cache, as a rule).

// spillBudget is how many ids the dedup days of the process hold in
// memory (idTable: about 24 bytes an id with the row key) before the
// largest are spilled; spilling goes on until half as many are left.
var spillBudget int64 = 1 << 20

// minSpill is the fewest ids a day holds in memory to be spilled: a file,
// two filters and a rewrite of what the day spilled before are not worth
// it for fewer.
var minSpill = 1 << 14

// inMemoryIDs counts the ids the InMemory dedup days hold in memory.
var inMemoryIDs atomic.Int64

// spillBlock is how many entries of a spilled file a lookup reads: 4 KB
// of records.
const spillBlock = 256

// spilledIDs is what a day spilled: in f, its records (id, hash, second:
// 16 bytes, seenTweet.append) sorted by id, then its row keys (8 bytes)
// sorted. The file is removed as soon as it is created: the open file
// keeps its bytes, and a run that dies leaves nothing behind.
type spilledIDs struct {
	f       *os.File
	ids     int // records, from offset 0
	rowKeys int // row keys, after the records
	// The first id and the first row key of every block of spillBlock
	// entries, and a filter of each.
	idIndex, rowIndex   []uint64
	idFilter, rowFilter bloom
	buf                 []byte // a block read
}

// get returns the record of id, if it was spilled.
func (s *spilledIDs) get(id uint64) (seenTweet, bool, error) {
	if s == nil || !s.idFilter.mayHold(id) {
		return seenTweet{}, false, nil
	}
	blk, err := s.block(s.idIndex, id, 0, s.ids, seenRecordLen)
	if err != nil {
		return seenTweet{}, false, err
	}
	i, ok := findEntry(blk, seenRecordLen, id)
	if !ok {
		return seenTweet{}, false, nil
	}
	_, rec := readSeen(blk[i*seenRecordLen:])
	return rec, true, nil
}

// hasRowKey reports whether row key k was spilled.
func (s *spilledIDs) hasRowKey(k uint64) (bool, error) {
	if s == nil || !s.rowFilter.mayHold(k) {
		return false, nil
	}
	blk, err := s.block(s.rowIndex, k, int64(s.ids)*seenRecordLen, s.rowKeys, 8)
	if err != nil {
		return false, err
	}
	_, ok := findEntry(blk, 8, k)
	return ok, nil
}

// block reads the block of the section at base (n entries of size bytes,
// whose blocks begin with index) that may hold k.
func (s *spilledIDs) block(index []uint64, k uint64, base int64, n, size int) ([]byte, error) {
	b := sort.Search(len(index), func(i int) bool { return index[i] > k }) // the first block beginning after k
	if b == 0 {
		return nil, nil
	}
	b--
	count := min(spillBlock, n-b*spillBlock)
	s.buf = slices.Grow(s.buf[:0], count*size)[:count*size]
	if _, err := s.f.ReadAt(s.buf, base+int64(b*spillBlock*size)); err != nil {
		return nil, fmt.Errorf("dedup: reading spilled ids: %w", err)
	}
	return s.buf, nil
}

// findEntry returns the position of key k among the entries of blk
// (size bytes each, beginning with their key, big endian, in order), or
// where it would be, and whether it is there.
func findEntry(blk []byte, size int, k uint64) (int, bool) {
	n := len(blk) / size
	i := sort.Search(n, func(i int) bool { return binary.BigEndian.Uint64(blk[i*size:]) >= k })
	return i, i < n && binary.BigEndian.Uint64(blk[i*size:]) == k
}

// records returns every spilled record, by id.
func (s *spilledIDs) records() ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	b := make([]byte, s.ids*seenRecordLen)
	if _, err := s.f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("dedup: reading spilled ids: %w", err)
	}
	return b, nil
}

// rowKeyList returns every spilled row key, in order.
func (s *spilledIDs) rowKeyList() ([]uint64, error) {
	if s == nil {
		return nil, nil
	}
	b := make([]byte, s.rowKeys*8)
	if _, err := s.f.ReadAt(b, int64(s.ids)*seenRecordLen); err != nil && err != io.EOF {
		return nil, fmt.Errorf("dedup: reading spilled row keys: %w", err)
	}
	keys := make([]uint64, s.rowKeys)
	for i := range keys {
		keys[i] = binary.BigEndian.Uint64(b[i*8:])
	}
	return keys, nil
}

func (s *spilledIDs) close() {
	if s != nil {
		s.f.Close()
	}
}

// spill moves d's ids and row keys out of memory, with what it spilled
// before, into one new file.
func (d *dayIDs) spill() error {
	old, err := d.spilled.records()
	if err != nil {
		return err
	}
	oldRows, err := d.spilled.rowKeyList()
	if err != nil {
		return err
	}
	// The records: those in memory, newer, replace the spilled ones of
	// their id.
	type rec struct {
		id uint64
		s  seenTweet
	}
	mem := make([]rec, 0, d.seen.len())
	for id, s := range d.seen.all {
		mem = append(mem, rec{id, s})
	}
	slices.SortFunc(mem, func(a, b rec) int { return cmp.Compare(a.id, b.id) })
	recs := make([]byte, 0, len(old)+len(mem)*seenRecordLen)
	for len(old) > 0 || len(mem) > 0 {
		switch {
		case len(mem) == 0 || len(old) > 0 && binary.BigEndian.Uint64(old) < mem[0].id:
			recs = append(recs, old[:seenRecordLen]...)
			old = old[seenRecordLen:]
		default:
			if len(old) > 0 && binary.BigEndian.Uint64(old) == mem[0].id {
				old = old[seenRecordLen:]
			}
			recs = mem[0].s.append(recs, mem[0].id)
			mem = mem[1:]
		}
	}
	rows := oldRows
	for k := range d.rowKeys.all {
		rows = append(rows, k)
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)

	f, err := os.CreateTemp("", "tweetindex-dedup-*")
	if err != nil {
		return fmt.Errorf("dedup: spilling ids: %w", err)
	}
	os.Remove(f.Name())
	s := &spilledIDs{f: f, ids: len(recs) / seenRecordLen, rowKeys: len(rows)}
	s.idFilter, s.rowFilter = newBloom(s.ids), newBloom(s.rowKeys)
	for i := 0; i < len(recs); i += seenRecordLen {
		id := binary.BigEndian.Uint64(recs[i:])
		s.idFilter.add(id)
		if (i/seenRecordLen)%spillBlock == 0 {
			s.idIndex = append(s.idIndex, id)
		}
	}
	out := recs
	for i, k := range rows {
		s.rowFilter.add(k)
		if i%spillBlock == 0 {
			s.rowIndex = append(s.rowIndex, k)
		}
		out = binary.BigEndian.AppendUint64(out, k)
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return fmt.Errorf("dedup: spilling ids: %w", err)
	}
	d.spilled.close()
	d.spilled = s
	inMemoryIDs.Add(-int64(d.seen.len()))
	d.seen, d.rowKeys = idTable[seenTweet]{}, idTable[struct{}]{}
	return nil
}

// bloom is a Bloom filter of uint64 keys: 10 bits and 7 probes a key,
// about 1 % false positives.
type bloom struct{ bits []uint64 }

func newBloom(n int) bloom { return bloom{bits: make([]uint64, (n*10+63)/64+1)} }

// probes returns the two hashes whose combinations are k's probes.
func (b bloom) probes(k uint64) (uint32, uint32) {
	// splitmix64's finalizer: ids and row keys share their high bits.
	k ^= k >> 30
	k *= 0xbf58476d1ce4e5b9
	k ^= k >> 27
	k *= 0x94d049bb133111eb
	k ^= k >> 31
	return uint32(k), uint32(k>>32) | 1
}

func (b bloom) add(k uint64) {
	h1, h2 := b.probes(k)
	m := uint32(len(b.bits) * 64)
	for i := range uint32(7) {
		bit := (h1 + i*h2) % m
		b.bits[bit/64] |= 1 << (bit % 64)
	}
}

func (b bloom) mayHold(k uint64) bool {
	if b.bits == nil {
		return false
	}
	h1, h2 := b.probes(k)
	m := uint32(len(b.bits) * 64)
	for i := range uint32(7) {
		bit := (h1 + i*h2) % m
		if b.bits[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}
