package transforms

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/timers"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/reflectx"

	"github.com/tweetindex/tweetindex/schemas"
)

// fakeState is a runner's state of one key: value and bag states in maps,
// which a test copies to roll the runner back.
type fakeState struct {
	values    map[string]any
	bags      map[string][]any
	bagWrites int
}

func newFakeState() *fakeState {
	return &fakeState{values: map[string]any{}, bags: map[string][]any{}}
}

func (s *fakeState) clone() *fakeState {
	c := newFakeState()
	c.values = maps.Clone(s.values)
	for k, v := range s.bags {
		c.bags[k] = slices.Clone(v)
	}
	return c
}

func (s *fakeState) ReadValueState(id string) (any, []state.Transaction, error) {
	return s.values[id], nil, nil
}
func (s *fakeState) WriteValueState(t state.Transaction) error { s.values[t.Key] = t.Val; return nil }
func (s *fakeState) ClearValueState(t state.Transaction) error { delete(s.values, t.Key); return nil }
func (s *fakeState) ReadBagState(id string) ([]any, []state.Transaction, error) {
	return slices.Clone(s.bags[id]), nil, nil
}
func (s *fakeState) WriteBagState(t state.Transaction) error {
	s.bags[t.Key] = append(s.bags[t.Key], t.Val)
	s.bagWrites++
	return nil
}
func (s *fakeState) ClearBagState(t state.Transaction) error { delete(s.bags, t.Key); return nil }

var errNoSuchState = errors.New("fakeState: DedupFn uses value and bag states only")

func (s *fakeState) CreateAccumulatorFn(string) reflectx.Func      { return nil }
func (s *fakeState) AddInputFn(string) reflectx.Func               { return nil }
func (s *fakeState) MergeAccumulatorsFn(string) reflectx.Func      { return nil }
func (s *fakeState) ExtractOutputFn(string) reflectx.Func          { return nil }
func (s *fakeState) WriteMapState(state.Transaction) error         { return errNoSuchState }
func (s *fakeState) ClearMapStateKey(state.Transaction) error      { return errNoSuchState }
func (s *fakeState) ClearMapState(state.Transaction) error         { return errNoSuchState }
func (s *fakeState) WriteOrderedListState(state.Transaction) error { return errNoSuchState }
func (s *fakeState) ClearOrderedListState(state.Transaction) error { return errNoSuchState }
func (s *fakeState) ReadMapStateValue(string, any) (any, []state.Transaction, error) {
	return nil, nil, errNoSuchState
}
func (s *fakeState) ReadMapStateKeys(string) ([]any, []state.Transaction, error) {
	return nil, nil, errNoSuchState
}
func (s *fakeState) ReadOrderedListState(string) ([]any, []state.Transaction, error) {
	return nil, nil, errNoSuchState
}

type fakeTimers struct{ set int }

func (t *fakeTimers) Set(timers.TimerMap) { t.set++ }

// TestDedupInMemory runs DedupFn's batches against a runner's state that
// the test rolls back between them, as a runner that retries a bundle
// does. With the ids in state (Dedup) the rolled-back ids are read back
// from the bag and a copy of one of them is new again; with the ids in
// memory only (DedupInMemory) the bag is never written, and the rollback,
// or a state lost altogether, fails the bundle with ErrDedupStateLost
// instead of deduplicating against ids the runner no longer has.
func TestDedupInMemory(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Unix()
	key := DedupKey(BucketOf(at), 0)
	batch := func(ids ...uint64) TweetBatch {
		var b TweetBatch
		for _, id := range ids {
			json := []byte{byte(id)}
			b.Tweets = append(b.Tweets, schemas.Tweet{ID: id, CreatedAt: at, JSON: json, RowKey: schemas.NewRowKey(at, json)})
		}
		return b
	}
	process := func(f *DedupFn, sp *fakeState, b TweetBatch) (let []uint64, err error) {
		err = f.ProcessElement(context.Background(), sp, &fakeTimers{}, key, b, func(out TweetBatch) {
			for _, t := range out.Tweets {
				let = append(let, t.ID)
			}
		})
		return let, err
	}
	for _, inMemory := range []bool{false, true} {
		f := newDedupFn(0, false, inMemory)
		sp := newFakeState()
		if let, err := process(f, sp, batch(1, 2)); err != nil || !slices.Equal(let, []uint64{1, 2}) {
			t.Fatalf("in memory %v: first batch let %v through (err %v); want [1 2]", inMemory, let, err)
		}
		before := sp.clone()
		if let, err := process(f, sp, batch(1, 3)); err != nil || !slices.Equal(let, []uint64{3}) {
			t.Fatalf("in memory %v: second batch let %v through (err %v); want [3]", inMemory, let, err)
		}
		if inMemory && sp.bagWrites != 0 {
			t.Errorf("in memory: %d writes to the bag of ids; want none", sp.bagWrites)
		}
		if !inMemory && sp.bagWrites == 0 {
			t.Errorf("in state: the bag of ids was never written")
		}
		// The runner rolls the second batch back (a retried bundle).
		let, err := process(f, before, batch(3, 4))
		switch {
		case inMemory && !errors.Is(err, ErrDedupStateLost):
			t.Errorf("in memory, state rolled back: let %v through, err %v; want ErrDedupStateLost", let, err)
		case !inMemory && (err != nil || !slices.Equal(let, []uint64{3, 4})):
			t.Errorf("in state, state rolled back: let %v through (err %v); want [3 4]: 3's batch was rolled back", let, err)
		}
		// The runner lost the key's state altogether.
		let, err = process(f, newFakeState(), batch(5))
		switch {
		case inMemory && !errors.Is(err, ErrDedupStateLost):
			t.Errorf("in memory, state lost: let %v through, err %v; want ErrDedupStateLost", let, err)
		case !inMemory && (err != nil || !slices.Equal(let, []uint64{5})):
			t.Errorf("in state, state lost: let %v through (err %v); want [5]", let, err)
		}
	}
}

// TestSpilledDedupMatchesState runs one sequence of batches through a
// DedupFn that keeps its ids in state and one that keeps them in memory
// with a budget so small that it spills days again and again (spill), and
// wants the same tweets, replacements, deletes and row-key collisions let
// through, batch by batch, and the same collisions counted when the days
// end. The batches hold copies, later versions with a smaller or larger
// hash, deletes of ids seen and not seen, and tweets that share a row key
// (the same second and hash), over two days of two shards.
func TestSpilledDedupMatchesState(t *testing.T) {
	defer func(budget int64, least int) { spillBudget, minSpill = budget, least }(spillBudget, minSpill)
	spillBudget, minSpill = 300, 40
	before := inMemoryIDs.Load() // other tests' days that never ended

	rng := rand.New(rand.NewPCG(1, 2))
	day0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Unix()
	const ids = 2000
	created := func(n uint64) int64 { return day0 + int64(n%2)*86400 + int64(n%50) } // the same for every copy
	var keys []int64
	for d := range 2 {
		for shard := range 2 {
			keys = append(keys, DedupKey(BucketOf(day0)+int64(d), shard))
		}
	}
	keyOf := func(n uint64) int64 { return keys[int(n%2)*2+int(n/2%2)] }
	type step struct {
		key int64
		b   TweetBatch
	}
	var steps []step
	for range 400 {
		key := keys[rng.IntN(len(keys))]
		var b TweetBatch
		for range 20 {
			n := uint64(1 + rng.IntN(ids))
			if keyOf(n) != key {
				continue
			}
			id := snowflakeAt(created(n), n)
			if rng.IntN(40) == 0 {
				b.Deletes = append(b.Deletes, id)
				continue
			}
			var rk schemas.RowKey
			binary.BigEndian.PutUint64(rk[:8], uint64(created(n)))
			binary.BigEndian.PutUint32(rk[8:], uint32(rng.IntN(400))) // versions, and row keys shared by chance
			b.Tweets = append(b.Tweets, schemas.Tweet{ID: id, CreatedAt: created(n), RowKey: rk, JSON: rk[:]})
		}
		steps = append(steps, step{key, b})
	}

	inState, inMemory := newDedupFn(0, false, false), newDedupFn(0, false, true)
	states := map[*DedupFn]map[int64]*fakeState{inState: {}, inMemory: {}}
	run := func(f *DedupFn, st step) (TweetBatch, error) {
		sp := states[f][st.key]
		if sp == nil {
			sp = newFakeState()
			states[f][st.key] = sp
		}
		var out TweetBatch
		err := f.ProcessElement(context.Background(), sp, &fakeTimers{}, st.key, st.b, func(b TweetBatch) { out = b })
		return out, err
	}
	spills := 0
	for i, st := range steps {
		want, err := run(inState, st)
		if err != nil {
			t.Fatal(err)
		}
		got, err := run(inMemory, st)
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("batch %d, spilled %d times: in memory let through\n%+v\nin state\n%+v", i, spills, got, want)
		}
		spills = 0
		for _, key := range keys {
			for _, d := range seenCache.get(inMemory.Instance, key).days {
				if d.spilled != nil {
					spills++
				}
			}
		}
	}
	if spills == 0 {
		t.Fatal("no day was spilled: the test tests nothing")
	}
	for _, key := range keys {
		day := dedupBucketOf(key)
		want, err := seenCache.get(inState.Instance, key).days[day].collisions(day)
		if err != nil {
			t.Fatal(err)
		}
		got, err := seenCache.get(inMemory.Instance, key).days[day].collisions(day)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || want == 0 {
			t.Errorf("key %x: %d row-key collisions in memory, %d in state (want equal, and some)", key, got, want)
		}
		timer := timers.Context{Family: inMemory.Expire.Family, Tag: strconv.FormatInt(day, 10)}
		if err := inMemory.OnTimer(context.Background(), states[inMemory][key], &fakeTimers{}, key, timer, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := inMemoryIDs.Load() - before; n != 0 {
		t.Errorf("%d ids counted in memory after every day ended; want 0", n)
	}
}

// snowflakeAt returns a tweet id of the second sec (SnowflakeSecond), told
// apart by n.
func snowflakeAt(sec int64, n uint64) uint64 {
	return uint64(sec*1000-1288834974657)<<22 | n&(1<<22-1)
}
