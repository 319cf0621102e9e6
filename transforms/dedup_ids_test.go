package transforms

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMergeIDsKeepsSetSortedAndSearchable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var set []byte
	all := map[uint64]bool{}
	for round := 0; round < 50; round++ {
		var ids []uint64
		for len(ids) < 20 {
			id := r.Uint64N(1 << 20)
			if !all[id] && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		set = mergeIDs(set, ids)
		for _, id := range ids {
			all[id] = true
		}
	}
	if len(set) != 8*len(all) {
		t.Fatalf("set holds %d ids, want %d", len(set)/8, len(all))
	}
	for id := uint64(0); id < 1<<20; id += 997 {
		if containsID(set, id) != all[id] {
			t.Fatalf("containsID(%d) = %v, want %v", id, !all[id], all[id])
		}
	}
	for id := range all {
		if !containsID(set, id) {
			t.Fatalf("containsID(%d) = false for a member", id)
		}
	}
}
