package transforms

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestIDTableMatchesMap sets and gets random keys in an idTable and a Go
// map side by side, through many merges (the keys drawn from a range small
// enough that most sets after the first thousands update a key already
// merged): every get, every length and the entries all yields agree.
func TestIDTableMatchesMap(t *testing.T) {
	for _, keyRange := range []uint64{10, 3000, 1 << 20, 1 << 63} {
		rng := rand.New(rand.NewPCG(1, keyRange))
		var tab idTable[seenTweet]
		want := map[uint64]seenTweet{}
		for i := range 200_000 {
			k := rng.Uint64N(keyRange)
			if rng.IntN(3) == 0 { // a get
				got, ok := tab.get(k)
				w, wok := want[k]
				if got != w || ok != wok {
					t.Fatalf("range %d, step %d: get(%d) = %v, %v; want %v, %v", keyRange, i, k, got, ok, w, wok)
				}
				continue
			}
			v := seenTweet{hash: rng.Uint32(), second: uint32(i)}
			tab.set(k, v)
			want[k] = v
			if tab.len() != len(want) {
				t.Fatalf("range %d, step %d: len %d, want %d", keyRange, i, tab.len(), len(want))
			}
		}
		seen := map[uint64]bool{}
		for k, v := range tab.all {
			if seen[k] {
				t.Fatalf("range %d: all yields %d twice", keyRange, k)
			}
			seen[k] = true
			if want[k] != v {
				t.Fatalf("range %d: all yields %d: %v, want %v", keyRange, k, v, want[k])
			}
		}
		if len(seen) != len(want) {
			t.Fatalf("range %d: all yields %d entries, want %d", keyRange, len(seen), len(want))
		}
		for i := 1; i < len(tab.keys); i++ {
			if tab.keys[i-1] >= tab.keys[i] {
				t.Fatalf("range %d: keys out of order at %d: %d, %d", keyRange, i, tab.keys[i-1], tab.keys[i])
			}
		}
	}
}

// BenchmarkDayIDs adds b.N ids of one day to a dayIDs, as DedupFn does for
// each tweet let through, and reports the heap it holds after, per id:
// go test -run XXX -bench DayIDs -benchtime 700000x ./transforms/
func BenchmarkDayIDs(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d := &dayIDs{}
	const day = 20393 // 2025-11-01
	b.ResetTimer()
	for range b.N {
		// An id that holds its tweet's created_at, as Twitter's do.
		second := rng.Uint32N(86400)
		ms := (day*86400+int64(second))*1000 + rng.Int64N(1000) - 1288834974657
		id := uint64(ms)<<22 | rng.Uint64N(1<<22)
		if _, ok := d.get(id); ok {
			continue
		}
		d.keep(id, seenTweet{hash: rng.Uint32(), second: second}, true, day)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "heap-B/id")
	runtime.KeepAlive(d)
}

// TestFindMatchesBinarySearch: an idTable's find finds what slices.BinarySearch
// finds, on keys spread evenly, bunched (powers of two, a run of
// neighbours among far ones) and at the ends of uint64, for keys present
// and absent.
func TestFindMatchesBinarySearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := map[string][]uint64{
		"empty": nil,
		"one":   {7},
		"ends":  {0, 1, 2, math.MaxUint64 - 1, math.MaxUint64},
	}
	var even, pow, bunched []uint64
	for i := range 5000 {
		even = append(even, rng.Uint64())
		pow = append(pow, 1<<(i%64)+uint64(i/64))
		bunched = append(bunched, uint64(i))
	}
	for range 20 {
		bunched = append(bunched, rng.Uint64())
	}
	sets["even"], sets["powers"], sets["bunched"] = even, pow, bunched
	for name, keys := range sets {
		slices.Sort(keys)
		keys = slices.Compact(keys)
		probes := []uint64{0, 1, math.MaxUint64}
		for _, k := range keys {
			probes = append(probes, k, k-1, k+1)
		}
		for range 1000 {
			probes = append(probes, rng.Uint64())
		}
		tab := idTable[struct{}]{keys: keys, vals: make([]struct{}, len(keys))}
		if len(keys) > 0 {
			tab.index()
		}
		for _, k := range probes {
			i, ok := tab.find(k)
			wi, wok := slices.BinarySearch(keys, k)
			if i != wi || ok != wok {
				t.Fatalf("%s: search(%d) = %d, %v; want %d, %v", name, k, i, ok, wi, wok)
			}
		}
	}
}
