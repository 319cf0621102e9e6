package transforms

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/timers"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn6x1[context.Context, state.Provider, timers.Provider, int64, TweetBatch, func(TweetBatch), error](&DedupFn{})
	register.Emitter1[TweetBatch]()
}

// DefaultHorizon is how long, in event time past the end of its day, a
// tweet id is remembered: a copy that arrives later than this is no longer
// recognized as a copy (its frequency count is dropped as too late).
const DefaultHorizon = 24 * time.Hour

// DedupBucket is the span of event time whose tweet ids share one set of
// dedup keys (one per shard). A day: the number of keys, and of the timers
// that expire them, grows with the days a run covers (16 shards x 30 keys
// for a month), not with its minutes, while a process keeps each key's ids
// in memory (see DedupFn) so that a large key costs no more per batch than
// a small one.
const DedupBucket = 24 * time.Hour

// MaxShards is the largest number of dedup shards: DedupKey keeps the shard
// in the key's low 16 bits.
const MaxShards = 1 << 16

// DedupKey is the key a tweet is deduplicated under: its created_at bucket
// (Unix seconds / DedupBucket) and its dedup shard (ShardOf its id), in one
// int64.
func DedupKey(bucket int64, shard int) int64 { return bucket<<16 | int64(shard) }

// dedupBucketOf returns the bucket of a DedupKey.
func dedupBucketOf(key int64) int64 { return key >> 16 }

// BucketOf returns the dedup bucket of a created_at in Unix seconds.
func BucketOf(sec int64) int64 { return floorDiv(sec, int64(DedupBucket/time.Second)) }

// Dedup keeps one tweet per tweet id. keyed is the ParseFn output: tweet
// batches keyed by DedupKey (created_at day and a hash of the id).
//
// Every copy of a tweet carries the same created_at, so all copies land
// under one key. DedupFn keeps, per key, the ids it has let through and
// lets a tweet through only if its id is new; an event-time timer clears
// them horizon after the end of the key's day, so memory stays bounded on
// an endless stream. The state lives in the global window and its lifetime
// is the timer's, not a window's: runners that collect a window's state at
// the window's end rather than after its allowed lateness (prism v2.77
// does) would otherwise forget ids as soon as the watermark passes them.
// Nothing waits for a window to close, so tweets reach the tables as soon
// as they are read, in batch and streaming alike.
//
// The result holds batches of distinct tweets (in the global window,
// stamped with the start of their day); TweetFrequencyWith windows them
// for counting.
func Dedup(s beam.Scope, keyed beam.PCollection, horizon time.Duration) beam.PCollection {
	s = s.Scope("Dedup")
	if horizon <= 0 {
		horizon = DefaultHorizon
	}
	return beam.ParDo(s, &DedupFn{
		Seen:     state.MakeBagState[[]byte]("seen"),
		Version:  state.MakeValueState[uint64]("version"),
		Expire:   timers.InEventTime("expire"),
		Horizon:  horizon,
		Instance: newInstanceID(),
	}, keyed)
}

// DedupFn lets through the first copy of each tweet id per key (day and
// shard). Within one batch, of two copies with different bytes it keeps the
// one with the smaller row key; across batches the first one read wins (a
// stream cannot take back what it has written). Byte-identical copies, the
// common case (re-delivery, an archive read twice), always give the same
// tables.
//
// The ids of a key are Beam state: a bag to which each batch appends the
// ids it let through, and a version, a random number rewritten with every
// append. Reading a whole bag for every batch would cost as much as the
// key's ids (a day of a dense stream: megabytes), so the process also
// keeps each key's ids in memory, tagged with the version they correspond
// to; a batch reads only the version and uses the memory copy when the
// versions agree. When they do not (the key was last written by another
// worker, or a failed bundle's writes were rolled back, or the process is
// new) it reads the bag. The state stays the truth: the copy in memory is
// a cache that any runner may invalidate.
type DedupFn struct {
	// Seen holds the ids let through (big-endian uint64s), one entry per
	// batch, rewritten as one entry once there are maxSeenEntries.
	Seen state.Bag[[]byte]
	// Version changes with every write to Seen.
	Version state.Value[uint64]
	// Expire fires Horizon after the end of the key's bucket and clears
	// the state.
	Expire timers.EventTime
	// Horizon is how long past the end of its bucket an id is remembered.
	Horizon time.Duration
	// Instance names this transform in the process's cache of ids: two
	// pipelines in one process never share ids.
	Instance string
}

// ProcessElement filters one batch against the ids already seen.
func (f *DedupFn) ProcessElement(ctx context.Context, sp state.Provider, tp timers.Provider, key int64, b TweetBatch, emit func(TweetBatch)) error {
	defer backlogAdd(-len(b.Tweets))
	version, known, err := f.Version.Read(sp)
	if err != nil {
		return err
	}
	ids := seenCache.get(f.Instance, key)
	ids.mu.Lock()
	defer ids.mu.Unlock()
	switch {
	case !known:
		ids.reset(0)
	case ids.version != version:
		entries, _, err := f.Seen.Read(sp)
		if err != nil {
			return err
		}
		ids.reset(version)
		ids.entries = len(entries)
		for _, e := range entries {
			for off := 0; off+8 <= len(e); off += 8 {
				ids.set[binary.BigEndian.Uint64(e[off:])] = struct{}{}
			}
		}
	}

	in := slices.Clone(b.Tweets) // elements are immutable; sort a copy
	slices.SortFunc(in, compareCopies)
	out := in[:0]
	var fresh []byte
	var dups int64
	for i := range in {
		id := in[i].ID
		if i > 0 && in[i-1].ID == id {
			dups++
			continue
		}
		if _, ok := ids.set[id]; ok {
			dups++
			continue
		}
		out = append(out, in[i])
		fresh = binary.BigEndian.AppendUint64(fresh, id)
	}
	if dups > 0 {
		duplicateCount.Inc(ctx, dups)
	}
	if len(out) == 0 {
		return nil
	}
	if !known {
		// The first batch of this key: forget its ids once the watermark
		// is Horizon past the bucket. No output timestamp: the timer emits
		// nothing and must not hold the watermark back.
		end := time.Unix((dedupBucketOf(key)+1)*int64(DedupBucket/time.Second), 0).Add(f.Horizon)
		f.Expire.Set(tp, end, timers.WithNoOutputTimestamp())
	}
	next := newVersion(version)
	for off := 0; off < len(fresh); off += 8 {
		ids.set[binary.BigEndian.Uint64(fresh[off:])] = struct{}{}
	}
	if ids.entries < maxSeenEntries {
		if err := f.Seen.Add(sp, fresh); err != nil {
			return err
		}
		ids.entries++
	} else {
		// Rewrite the bag as one entry: runners copy a bag's list of
		// entries for every bundle of its key (prism does), so it is
		// kept short.
		if err := f.Seen.Clear(sp); err != nil {
			return err
		}
		all := make([]byte, 0, 8*len(ids.set))
		for id := range ids.set {
			all = binary.BigEndian.AppendUint64(all, id)
		}
		if err := f.Seen.Add(sp, all); err != nil {
			return err
		}
		ids.entries = 1
	}
	if err := f.Version.Write(sp, next); err != nil {
		return err
	}
	ids.version = next
	indexedCount.Inc(ctx, int64(len(out)))
	localIndexed.Add(int64(len(out)))
	emit(TweetBatch{Tweets: out})
	return nil
}

// OnTimer clears the ids of a key whose horizon has passed.
func (f *DedupFn) OnTimer(sp state.Provider, _ timers.Provider, key int64, timer timers.Context, _ func(TweetBatch)) error {
	if timer.Family != f.Expire.Family {
		return nil
	}
	seenCache.drop(f.Instance, key)
	if err := f.Seen.Clear(sp); err != nil {
		return err
	}
	return f.Version.Clear(sp)
}

// compareCopies orders tweets by id, then row key, then bytes: of several
// copies of an id in one batch, the first is the one kept.
func compareCopies(a, b schemas.Tweet) int {
	if a.ID != b.ID {
		if a.ID < b.ID {
			return -1
		}
		return 1
	}
	if c := bytes.Compare(a.RowKey[:], b.RowKey[:]); c != 0 {
		return c
	}
	return bytes.Compare(a.JSON, b.JSON)
}

// newVersion returns a random version other than 0 (no state) and prev.
func newVersion(prev uint64) uint64 {
	for {
		if v := mrand.Uint64(); v != 0 && v != prev {
			return v
		}
	}
}

// newInstanceID returns a random name for one Dedup transform.
func newInstanceID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// seenCache is the process's copy of the dedup state, by transform
// instance and key.
var seenCache = &idCache{keys: map[idCacheKey]*idSet{}}

type idCache struct {
	mu   sync.Mutex
	keys map[idCacheKey]*idSet
}

type idCacheKey struct {
	instance string
	key      int64
}

// maxSeenEntries is how many entries DedupFn lets a key's bag of ids
// grow to before it rewrites them as one.
const maxSeenEntries = 32

// idSet is the set of ids of one key as of state version version, whose
// bag has entries entries.
type idSet struct {
	mu      sync.Mutex
	version uint64
	entries int
	set     map[uint64]struct{}
}

func (s *idSet) reset(version uint64) {
	s.version, s.entries = version, 0
	if len(s.set) > 0 || s.set == nil {
		s.set = make(map[uint64]struct{})
	}
}

func (c *idCache) get(instance string, key int64) *idSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := idCacheKey{instance, key}
	s, ok := c.keys[k]
	if !ok {
		s = &idSet{}
		c.keys[k] = s
	}
	return s
}

func (c *idCache) drop(instance string, key int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.keys, idCacheKey{instance, key})
}
