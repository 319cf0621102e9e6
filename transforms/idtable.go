package transforms

import (
	"slices"
)

// idTable maps uint64 keys to values of V in little more than the bytes of
// a key and a value: DedupFn keeps one entry for every tweet id of a run
// (and one for every row key), and a bounded run forgets none until its
// end. A Go map takes 27-38 bytes an entry of map[uint64]seenTweet (its
// slots are at most 7/8 full and half that after a growth); an idTable
// keeps its keys sorted in one slice and its values in another (8 + 8
// bytes), with the entries added since the last merge in a small map, and
// merges that map in when it reaches a sixteenth of the sorted entries.
// A lookup is a map lookup and a binary search.
//
// The zero value is an empty table. An idTable is not safe for concurrent
// use.
type idTable[V any] struct {
	keys   []uint64 // sorted, distinct
	vals   []V      // vals[i] is keys[i]'s
	recent map[uint64]V
	// at[b] is the position of the first key of part b (find); the
	// part of a key is (key - keys[0]) * scale.
	at    []int32
	scale float64
}

// minRecent is how many entries an idTable's map takes before its first
// merge.
const minRecent = 256

// get returns k's value, if k is in the table.
func (t *idTable[V]) get(k uint64) (V, bool) {
	if v, ok := t.recent[k]; ok {
		return v, true
	}
	if i, ok := t.find(k); ok {
		return t.vals[i], true
	}
	var zero V
	return zero, false
}

// has reports whether k is in the table.
func (t *idTable[V]) has(k uint64) bool {
	_, ok := t.get(k)
	return ok
}

// set makes v the value of k.
func (t *idTable[V]) set(k uint64, v V) {
	if _, ok := t.recent[k]; !ok {
		if i, ok := t.find(k); ok {
			t.vals[i] = v
			return
		}
	}
	t.insert(k, v)
}

// insert adds k with value v, or makes v its value if it is one of the
// recent entries; k must not be among the sorted entries.
func (t *idTable[V]) insert(k uint64, v V) {
	if t.recent == nil {
		t.recent = make(map[uint64]V)
	}
	t.recent[k] = v
	if len(t.recent) >= max(minRecent, len(t.keys)/16) {
		t.merge()
	}
}

// len returns the number of entries.
func (t *idTable[V]) len() int { return len(t.keys) + len(t.recent) }

// all yields every entry, in no particular order.
func (t *idTable[V]) all(yield func(uint64, V) bool) {
	for i, k := range t.keys {
		if !yield(k, t.vals[i]) {
			return
		}
	}
	for k, v := range t.recent {
		if !yield(k, v) {
			return
		}
	}
}

// find returns the position of k in the sorted keys, or where it would
// be inserted, and whether it is there. Tweet ids of a day, and row keys,
// are spread about evenly between the smallest and the largest, so the
// table cuts that span into equal parts of about bucketKeys keys each and
// keeps where each part begins (at): a lookup binary-searches one part,
// a few cache lines, not the whole slice. Uneven keys make some parts
// long, which costs no more than a binary search of the whole.
func (t *idTable[V]) find(k uint64) (int, bool) {
	n := len(t.keys)
	if n == 0 || k < t.keys[0] {
		return 0, false
	}
	if k > t.keys[n-1] {
		return n, false
	}
	b := t.bucket(k)
	lo, hi := int(t.at[b]), int(t.at[b+1])
	i, ok := slices.BinarySearch(t.keys[lo:hi], k)
	return lo + i, ok
}

// bucketKeys is about how many keys an idTable's part holds.
const bucketKeys = 32

// bucket returns the part of k, one of len(t.at)-1, for keys[0] <= k <=
// keys[len-1]. It never decreases as k grows, so every key of a part lies
// between the keys of the parts before it and the keys of those after.
func (t *idTable[V]) bucket(k uint64) int {
	return min(int(float64(k-t.keys[0])*t.scale), len(t.at)-2)
}

// index rebuilds the parts of the sorted keys (find).
func (t *idTable[V]) index() {
	n := len(t.keys)
	parts := max(1, n/bucketKeys)
	t.scale = float64(parts) / (float64(t.keys[n-1]-t.keys[0]) + 1)
	t.at = slices.Grow(t.at[:0], parts+1)[:parts+1]
	b := 0
	t.at[0] = 0
	for i, k := range t.keys {
		for kb := t.bucket(k); b < kb; {
			b++
			t.at[b] = int32(i)
		}
	}
	for b < parts {
		b++
		t.at[b] = int32(n)
	}
}

// merge moves the entries of recent into the sorted slices, in place from
// their ends (no second copy of the table).
func (t *idTable[V]) merge() {
	add := make([]uint64, 0, len(t.recent))
	for k := range t.recent {
		add = append(add, k)
	}
	slices.Sort(add)
	n, m := len(t.keys), len(add)
	t.keys = slices.Grow(t.keys, m)[:n+m]
	t.vals = slices.Grow(t.vals, m)[:n+m]
	i, j := n-1, m-1
	for w := n + m - 1; j >= 0; w-- {
		if i >= 0 && t.keys[i] > add[j] {
			t.keys[w], t.vals[w] = t.keys[i], t.vals[i]
			i--
			continue
		}
		t.keys[w], t.vals[w] = add[j], t.recent[add[j]]
		j--
	}
	clear(t.recent)
	t.index()
}
