package extsort

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/tweetindex/tweetindex/schemas"
)

// benchChunk fills a chunk of about size bytes with term cells shaped like
// the bench's: zipf-distributed words, created within an hour. The cells
// are byte for byte the store's (schemas.TermRow{Term, Field: "text",
// Key: schemas.NewRowKey(...), Freq: 1}.Cell(), table 't'): the term, 0,
// the field, 0, and the row key; no value.
func benchChunk(seed uint64, size int) *Chunk {
	r := rand.New(rand.NewPCG(seed, 2))
	words := make([]string, 50000)
	for i := range words {
		n := 2 + r.IntN(10)
		w := make([]byte, n)
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(w)
	}
	z := rand.NewZipf(r, 1.1, 1, uint64(len(words)-1))
	// As the store's bulk load makes them (storeio's newChunk).
	c := NewChunk(size+size/8, size/40)
	var key []byte
	for c.Bytes() < size {
		var rk [12]byte // schemas.NewRowKey: seconds, then the Murmur2 of the JSON
		binary.BigEndian.PutUint64(rk[:8], uint64(1700000000+r.Int64N(3600)))
		binary.BigEndian.PutUint32(rk[8:], schemas.Murmur2([]byte(fmt.Sprint(r.Int()))))
		for range 22 {
			key = append(append(append(key[:0], words[z.Uint64()]...), 0), "text\x00"...)
			key = append(key, rk[:]...)
			c.Add('t', key, nil, false)
		}
	}
	return c
}

// benchChunkBytes is the size of the store's chunks (storeio's
// sortedChunkBytes).
const benchChunkBytes = 32 << 20

// BenchmarkSortChunk sorts a chunk of term cells (sortChunk, one core).
func BenchmarkSortChunk(b *testing.B) {
	c := benchChunk(1, benchChunkBytes)
	orig := append([]entry(nil), c.ents...)
	b.ResetTimer()
	for range b.N {
		copy(c.ents, orig)
		sortChunk(c, 1)
	}
	b.ReportMetric(float64(len(c.ents)), "entries")
}

// BenchmarkSpill sorts such a chunk and writes it as a run file.
func BenchmarkSpill(b *testing.B) {
	c := benchChunk(1, benchChunkBytes)
	orig := append([]entry(nil), c.ents...)
	path := b.TempDir() + "/run"
	b.ResetTimer()
	for range b.N {
		copy(c.ents, orig)
		if _, err := WriteRun(vfs.Default, path, chunkSources(c, sortChunk(c, 1), nil, 0)[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeRuns merges 32 run files of term cells, as the end of a
// load does (reading, decoding, the loser tree), into nothing.
func BenchmarkMergeRuns(b *testing.B) {
	dir := b.TempDir()
	var runs []Run
	cells := 0
	for i := range 32 {
		c := benchChunk(uint64(i), 2<<20)
		cells += len(c.ents)
		rf, err := WriteRun(vfs.Default, fmt.Sprintf("%s/run-%d", dir, i), chunkSources(c, sortChunk(c, 1), nil, 0)[0])
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, rf)
	}
	b.ResetTimer()
	for range b.N {
		var srcs []Ranked
		for r := range runs {
			fs, err := OpenRun(vfs.Default, &runs[r], nil, nil, 256<<10)
			if err != nil {
				b.Fatal(err)
			}
			srcs = append(srcs, Ranked{fs, r})
		}
		if err := Merge(context.Background(), srcs, nil, func(k, v []byte, del bool) error { return nil }); err != nil {
			b.Fatal(err)
		}
		CloseSources(srcs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cells), "ns/cell")
}
