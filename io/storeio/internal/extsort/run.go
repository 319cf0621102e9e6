package extsort

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/klauspost/compress/s2"
)

// WriteCategory is the category of the writes of run files, as Pebble's
// filesystem (vfs.FS) takes it.
const WriteCategory vfs.DiskWriteCategory = "tweetindex-bulk-load"

// Run is a run file, a spilled chunk or a merge of runs: its cells in key
// order, in blocks of about RunBlockBytes (see WriteRun). The first key
// and the offset of each block (a restart) stay in memory: the end of the
// load cuts every run at the same keys into partitions of even size
// (PartitionBounds), and a read finds a key without reading the file from
// its start (OpenRun).
type Run struct {
	Path     string
	Restarts []Restart
	Cells    int64 // the cells it holds
}

// Restart is a block of a run file: its first key, its offset in the
// file, and the work of merging it (CellWork).
type Restart struct {
	Key  []byte
	off  int64
	Work int64
}

// CellWork is the work of merging a cell into the load's tables: its
// bytes (a raw tweet's JSON is mostly compressing and writing them) and
// about 256 more for the cell itself (a term cell's 45 bytes cost about
// as much as 300 of JSON), so that the end's parts take about as long.
func CellWork(klen, vlen int) int64 { return int64(klen + vlen + 256) }

// RunBlockBytes is the size of a run file's blocks before compression.
// Tests make it smaller.
var RunBlockBytes = 64 << 10

// PartitionBounds returns the keys that cut the load (the run files and
// the sorted runs of the last chunk, if not nil) into parts of about even
// work (CellWork): the restarts of the run files, and as many points of
// the last chunk, weighed by the work up to the next one.
func PartitionBounds(files []Run, last *Sorted, parts int) [][]byte {
	var c *Chunk
	var runs [][]entry
	if last != nil {
		c, runs = last.c, last.runs
	}
	return partitionBounds(files, c, runs, parts)
}

func partitionBounds(files []Run, c *Chunk, runs [][]entry, parts int) [][]byte {
	type point struct {
		key    []byte
		weight int64
	}
	var points []point
	var total int64
	for _, f := range files {
		for _, r := range f.Restarts {
			points = append(points, point{r.Key, r.Work})
			total += r.Work
		}
	}
	for _, r := range runs {
		var w int64
		for i := range r {
			if w == 0 {
				points = append(points, point{c.key(&r[i]), 0})
			}
			w += CellWork(int(r[i].klen), int(r[i].vlen))
			if w >= int64(RunBlockBytes) || i == len(r)-1 {
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

// WriteRun merges srcs (Merge) into the run file at path on fs, and
// returns it.
//
// A run file is a sequence of blocks, each uvarint length and the S2
// encoding of about RunBlockBytes of records, whose keys are in order and
// prefix-compressed: uvarint shared, uvarint unshared, the key's unshared
// bytes, uvarint value length << 1 | deleted, the value. A block's first
// record shares nothing. Compressed, the files take about a third of the
// disk (raw JSON), and cost less CPU than writing them whole: the kernel
// took about 2.6 s a GB of CPU to write them on the 2-core machine.
func WriteRun(fs vfs.FS, path string, srcs []Ranked) (Run, error) {
	rf := Run{Path: path}
	if err := fs.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return rf, err
	}
	f, err := fs.Create(path, WriteCategory)
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
	err = Merge(context.Background(), srcs, nil, func(k, v []byte, del bool) error {
		shared := commonPrefix(prev, k)
		if len(blk) == 0 {
			rf.Restarts = append(rf.Restarts, Restart{Key: bytes.Clone(k), off: off})
			shared = 0
		}
		rf.Restarts[len(rf.Restarts)-1].Work += CellWork(len(k), len(v))
		rf.Cells++
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
		if len(blk) >= RunBlockBytes {
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

// fileSource reads the keys lo <= key < hi of a run file (nil: no bound).
type fileSource struct {
	r      *bufio.Reader
	f      vfs.File
	path   string
	lo, hi []byte
	enc    []byte // a block as read
	blk    []byte // the rest of the block being read
	buf    []byte // the block's records
	k, v   []byte
	del    bool
}

// OpenRun opens a source of the keys lo <= key < hi of run file rf on fs
// (nil: no bound), at the last block starting at or before lo; buf is the
// size of its read buffer. CloseSources closes it.
func OpenRun(fs vfs.FS, rf *Run, lo, hi []byte, buf int) (Source, error) {
	off := int64(0)
	if lo != nil {
		i, found := slices.BinarySearchFunc(rf.Restarts, lo, func(r Restart, k []byte) int { return bytes.Compare(r.Key, k) })
		switch {
		case found:
			off = rf.Restarts[i].off
		case i > 0:
			off = rf.Restarts[i-1].off
		}
	}
	f, err := fs.Open(rf.Path)
	if err != nil {
		return nil, err
	}
	// Read from off on (ReadAt: a vfs.File does not seek).
	r := io.NewSectionReader(f, off, math.MaxInt64-off)
	return &fileSource{f: f, path: rf.Path, r: bufio.NewReaderSize(r, buf), lo: lo, hi: hi}, nil
}

func (s *fileSource) next() (bool, error) {
	for {
		ok, err := s.read()
		if err != nil {
			return false, fmt.Errorf("run %s: %w", s.path, err)
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

// CloseSources closes the run files among srcs (OpenRun's).
func CloseSources(srcs []Ranked) {
	for _, s := range srcs {
		if fs, ok := s.Source.(*fileSource); ok {
			fs.f.Close()
		}
	}
}
