package extsort

import (
	"bytes"
	"context"
	"sync/atomic"
)

// Source is one sorted input of a merge: a sorted run of a chunk in
// memory (Sorted.Sources, Chunk.AppendRange), or a run file's partition
// (OpenRun).
type Source interface {
	next() (bool, error)
	key() []byte
	value() []byte
	deleted() bool
}

// Ranked is a source and its rank: of equal keys, the one of the higher
// rank was written later and wins.
type Ranked struct {
	Source
	Rank int
}

type chunkSource struct {
	c    *Chunk
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
// then by rank (later writes first). Advancing the winner replays its path
// to the root: log2(sources) comparisons, half of a heap's.
type loserTree struct {
	srcs   []Ranked
	chunks []*chunkSource // srcs[i] as a chunkSource, nil if it is not one
	cur    []head         // each source's key, read once per move
	node   []int          // node[i], i >= 1: the loser of match i; node[0]: the winner
}

// head is a source's current key and its first 8 bytes as a number
// (prefix8), which decide most matches without comparing the bytes.
type head struct {
	pre  uint64
	key  []byte
	rank int
	done bool // the source has ended: it loses every match
}

// beats reports whether source a comes before source b.
func (t *loserTree) beats(a, b int) bool {
	x, y := &t.cur[a], &t.cur[b]
	switch {
	case y.done:
		return true
	case x.done:
		return false
	case x.pre != y.pre:
		return x.pre < y.pre
	}
	if r := bytes.Compare(x.key, y.key); r != 0 {
		return r < 0
	}
	return x.rank > y.rank
}

// move moves source i to its next key.
func (t *loserTree) move(i int) error {
	ok, err := t.srcs[i].next()
	if err != nil {
		return err
	}
	h := &t.cur[i]
	if h.done = !ok; ok {
		h.key = t.srcs[i].key()
		if c := t.chunks[i]; c != nil {
			// The entry's copy: the key's bytes lie anywhere in the
			// chunk's arena, a cache miss each.
			h.pre = c.ents[c.i].prefix
		} else {
			h.pre = prefix8(h.key)
		}
	}
	return nil
}

// newLoserTree builds the tree over srcs, each moved to its first key.
func newLoserTree(srcs []Ranked) (*loserTree, error) {
	t := &loserTree{srcs: srcs, chunks: make([]*chunkSource, len(srcs)), cur: make([]head, len(srcs)), node: make([]int, len(srcs))}
	for i := range srcs {
		t.chunks[i], _ = srcs[i].Source.(*chunkSource)
		t.cur[i].rank = srcs[i].Rank
		if err := t.move(i); err != nil {
			return nil, err
		}
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
func (t *loserTree) ok() bool     { return len(t.srcs) > 0 && !t.cur[t.node[0]].done }
func (t *loserTree) top() *Ranked { return &t.srcs[t.node[0]] }

// advance moves the winner to its next key and replays its matches.
func (t *loserTree) advance() error {
	w := t.node[0]
	if err := t.move(w); err != nil {
		return err
	}
	for i := (w + len(t.srcs)) / 2; i >= 1; i /= 2 {
		if t.beats(t.node[i], w) {
			t.node[i], w = w, t.node[i]
		}
	}
	t.node[0] = w
	return nil
}

// Count counts what merges have written: keys, and their work
// (CellWork), which tracks the time they take better than keys do (a raw
// tweet is a key and 3 KB of JSON).
type Count struct {
	Keys, Work atomic.Int64
}

// mergeCountEvery is how much work a merge does between two additions to
// its count (and two looks at its context).
const mergeCountEvery = 8 << 20

// Merge calls emit with each key of srcs in order, once, with its last
// write (the highest rank's, which the loser tree puts first). k and v
// are emit's only for the call. counted, if not nil, counts the keys
// emitted and their work. It stops at the first error and when ctx is done.
func Merge(ctx context.Context, srcs []Ranked, counted *Count, emit func(k, v []byte, del bool) error) error {
	t, err := newLoserTree(srcs)
	if err != nil {
		return err
	}
	var last []byte      // the key emitted last
	var keys, work int64 // emitted, not yet counted
	for emitted := false; t.ok(); {
		s := t.top()
		if k := s.key(); !emitted || !bytes.Equal(k, last) {
			v := s.value()
			if err := emit(k, v, s.deleted()); err != nil {
				return err
			}
			last, emitted = append(last[:0], k...), true
			keys, work = keys+1, work+CellWork(len(k), len(v))
			if work >= mergeCountEvery {
				if counted != nil {
					counted.Keys.Add(keys)
					counted.Work.Add(work)
				}
				keys, work = 0, 0
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		if err := t.advance(); err != nil {
			return err
		}
	}
	if counted != nil {
		counted.Keys.Add(keys)
		counted.Work.Add(work)
	}
	return nil
}
