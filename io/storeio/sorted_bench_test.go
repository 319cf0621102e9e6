package storeio

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// benchChunk fills a chunk of about sortedChunkBytes with term cells shaped
// like the bench's: zipf-distributed words, created within an hour.
func benchChunk(seed uint64) *chunk {
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
	l := &sortedLoad{}
	c := l.newChunk()
	for len(c.arena) < sortedChunkBytes {
		var cells []schemas.Cell
		rk := schemas.NewRowKey(1700000000+r.Int64N(3600), []byte(fmt.Sprint(r.Int())))
		for range 22 {
			cells = append(cells, schemas.TermRow{Term: words[z.Uint64()], Field: "text", Key: rk, Freq: 1}.Cell())
		}
		for i := range cells {
			c.add(&cells[i])
		}
	}
	return c
}

// BenchmarkSortChunk sorts a chunk of term cells (sortChunk, one core).
func BenchmarkSortChunk(b *testing.B) {
	c := benchChunk(1)
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
	c := benchChunk(1)
	orig := append([]entry(nil), c.ents...)
	path := b.TempDir() + "/run"
	b.ResetTimer()
	for range b.N {
		copy(c.ents, orig)
		if _, err := writeRunFile(path, chunkSources(c, sortChunk(c, 1), nil, 0)[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeRuns merges 32 run files of term cells, as the end of a
// load does (reading, decoding, the loser tree), into nothing.
func BenchmarkMergeRuns(b *testing.B) {
	setChunkBytes(b, 2<<20)
	dir := b.TempDir()
	var runs []runFile
	cells := 0
	for i := range 32 {
		c := benchChunk(uint64(i))
		cells += len(c.ents)
		rf, err := writeRunFile(fmt.Sprintf("%s/run-%d", dir, i), chunkSources(c, sortChunk(c, 1), nil, 0)[0])
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, rf)
	}
	b.ResetTimer()
	for range b.N {
		var srcs []ranked
		for r := range runs {
			fs, err := openFileSource(&runs[r], nil, nil, 256<<10)
			if err != nil {
				b.Fatal(err)
			}
			srcs = append(srcs, ranked{fs, r})
		}
		if err := merge(context.Background(), srcs, nil, func(k, v []byte, del bool) error { return nil }); err != nil {
			b.Fatal(err)
		}
		closeSources(srcs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cells), "ns/cell")
}
