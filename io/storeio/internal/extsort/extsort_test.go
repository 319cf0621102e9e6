package extsort

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/klauspost/compress/s2"
)

// TestRadixSortOrdersAsCompare sorts keys chosen to meet radixSort's edge
// cases (keys shorter than its prefix bytes, keys that begin others, zero
// bytes, keys equal in their first 24 bytes and after, the same key added
// several times) and checks the order is compare's: by key, then by the
// order added.
func TestRadixSortOrdersAsCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 1, 'a', 'b', 0xff}
	for _, n := range []int{0, 1, 2, 31, 33, 200, 5000} {
		c := &Chunk{}
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

// setSizes sets SortRun and RunBlockBytes until tb ends.
func setSizes(tb testing.TB, sortRun, blockBytes int) {
	oldRun, oldBlock := SortRun, RunBlockBytes
	SortRun, RunBlockBytes = sortRun, blockBytes
	tb.Cleanup(func() { SortRun, RunBlockBytes = oldRun, oldBlock })
}

// TestMergeKeepsLastWrite adds cells to chunks, overwriting and deleting
// keys across and within them, spills all but the last as run files
// (Spiller) and merges them with the last, sorted in memory, a part at a
// time (PartitionBounds, OpenRun's bounds, Sorted.Sources): the merge
// emits each key once, in order, with its last write, and counts them
// and their work. A read of a chunk's key range (AppendRange) finds the
// last write within the chunk. Small sort runs and blocks take every path
// (chunks sorted as several runs, runs of many blocks, parts that begin
// inside blocks).
func TestMergeKeepsLastWrite(t *testing.T) {
	for _, tc := range []struct {
		name              string
		sortRun, blockLen int
		parts             int
	}{
		{"defaults", 1 << 17, 64 << 10, 1},
		{"sort runs and blocks", 7, 100, 5},
		{"many parts", 3, 64 << 10, 40},
		{"many parts of many blocks", 1 << 17, 50, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setSizes(t, tc.sortRun, tc.blockLen)
			type cell struct {
				v   string
				del bool
			}
			emitted := func(k, v string, del bool) string { return fmt.Sprintf("%q=%q/%v", k, v, del) }
			r := rand.New(rand.NewPCG(1, uint64(tc.parts)))
			model := map[string]cell{}
			dir := t.TempDir()
			var runs []Run
			var sp Spiller
			var last *Chunk
			lastModel := map[string]cell{} // the last chunk's cells alone
			for i := range 6 {
				c := NewChunk(0, 0)
				keys := map[string]bool{}
				for range 700 {
					table := byte('a' + r.IntN(3))
					k := fmt.Sprintf("key%03d", r.IntN(300))
					if r.IntN(4) == 0 {
						k += strings.Repeat("x", r.IntN(40)) // beyond the entries' 24 prefix bytes
					}
					v, del := fmt.Sprint(r.Int()), r.IntN(5) == 0
					c.Add(table, []byte(k), []byte(v), del)
					if del {
						v = "" // a delete has no value
					}
					model[string(table)+k], keys[string(table)+k] = cell{v, del}, true
					if i == 5 {
						lastModel[string(table)+k] = cell{v, del}
					}
				}
				if i == 5 {
					last = c
					break
				}
				rf, err := sp.Spill(vfs.Default, filepath.Join(dir, fmt.Sprint("run-", i)), c)
				if err != nil {
					t.Fatal(err)
				}
				if rf.Cells != int64(len(keys)) || len(rf.Restarts) == 0 {
					t.Fatalf("run %d: %d cells, %d blocks; want %d cells", i, rf.Cells, len(rf.Restarts), len(keys))
				}
				runs = append(runs, rf)
			}

			// A read of a key range of the last chunk, as added.
			lo, hi := []byte("bkey100"), []byte("ckey200")
			var want, got []string
			for _, k := range slices.Sorted(maps.Keys(lastModel)) {
				if k >= string(lo) && k < string(hi) {
					want = append(want, emitted(k, lastModel[k].v, lastModel[k].del))
				}
			}
			srcs := last.AppendRange(nil, lo, hi, 0)
			if err := Merge(context.Background(), srcs, nil, func(k, v []byte, del bool) error {
				got = append(got, emitted(string(k), string(v), del))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("AppendRange [%s, %s): got %d cells, want %d\ngot  %q\nwant %q", lo, hi, len(got), len(want), got, want)
			}

			// The merge of the runs and the last chunk, a part at a time.
			sorted := last.Sort(2)
			bounds := PartitionBounds(runs, sorted, tc.parts)
			if len(bounds) > tc.parts-1 || !slices.IsSortedFunc(bounds, bytes.Compare) || len(slices.CompactFunc(slices.Clone(bounds), bytes.Equal)) != len(bounds) {
				t.Fatalf("%d bounds for %d parts, or not strictly increasing: %q", len(bounds), tc.parts, bounds)
			}
			if tc.parts > 1 && len(bounds) == 0 {
				t.Fatalf("no bounds for %d parts", tc.parts)
			}
			lastParts := sorted.Sources(bounds, len(runs))
			var count Count
			got, want = nil, nil
			for p := range len(bounds) + 1 {
				var lo, hi []byte
				if p > 0 {
					lo = bounds[p-1]
				}
				if p < len(bounds) {
					hi = bounds[p]
				}
				var srcs []Ranked
				for i := range runs {
					fs, err := OpenRun(vfs.Default, &runs[i], lo, hi, 4<<10)
					if err != nil {
						t.Fatal(err)
					}
					srcs = append(srcs, Ranked{fs, i})
				}
				srcs = append(srcs, lastParts[p]...)
				err := Merge(context.Background(), srcs, &count, func(k, v []byte, del bool) error {
					if lo != nil && bytes.Compare(k, lo) < 0 || hi != nil && bytes.Compare(k, hi) >= 0 {
						return fmt.Errorf("part %d [%q, %q) emits %q", p, lo, hi, k)
					}
					got = append(got, emitted(string(k), string(v), del))
					return nil
				})
				CloseSources(srcs)
				if err != nil {
					t.Fatal(err)
				}
			}
			var work int64
			for _, k := range slices.Sorted(maps.Keys(model)) {
				want = append(want, emitted(k, model[k].v, model[k].del))
				work += CellWork(len(k), len(model[k].v))
			}
			if !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("merge: cell %d is %s, want %s", i, got[i], want[i])
					}
				}
				t.Fatalf("merge: %d cells, want %d", len(got), len(want))
			}
			if count.Keys.Load() != int64(len(model)) || count.Work.Load() != work {
				t.Errorf("merge counted %d keys, %d of work; want %d, %d", count.Keys.Load(), count.Work.Load(), len(model), work)
			}
		})
	}
}

// TestRunCorrupt reads run files that WriteRun did not write: a record
// that shares more bytes than the key before it, and a block cut short.
// The merge fails, naming the run, rather than emit garbage or panic.
func TestRunCorrupt(t *testing.T) {
	block := func(records []byte) []byte {
		enc := s2.Encode(nil, records)
		return append(binary.AppendUvarint(nil, uint64(len(enc))), enc...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"shared beyond the key before", block([]byte{5, 1, 'a', 0}), errCorruptRun},
		{"value beyond the block", block([]byte{0, 1, 'a', 10 << 1, 'v'}), errCorruptRun},
		{"block cut short", append(binary.AppendUvarint(nil, 100), 1, 2, 3), io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rf := Run{Path: filepath.Join(t.TempDir(), "run")}
			if err := os.WriteFile(rf.Path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := OpenRun(vfs.Default, &rf, nil, nil, 4<<10)
			if err != nil {
				t.Fatal(err)
			}
			srcs := []Ranked{{src, 0}}
			defer CloseSources(srcs)
			err = Merge(context.Background(), srcs, nil, func(k, v []byte, del bool) error { return nil })
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), rf.Path) {
				t.Fatalf("merge of a corrupt run: %v, want %v naming %s", err, tc.want, rf.Path)
			}
		})
	}
}
