package transforms

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/timers"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func init() {
	register.DoFn6x1[context.Context, state.Provider, timers.Provider, int64, TweetBatch, func(TweetBatch), error](&DedupFn{})
	register.Emitter1[TweetBatch]()
}

// DefaultHorizon is how long, in event time past the end of its day, a
// tweet id is remembered: a copy that arrives later than this is no longer
// recognized as a copy (its frequency count is dropped as too late).
const DefaultHorizon = 24 * time.Hour

// DedupBucket is the span of event time whose tweet ids are remembered and
// forgotten together: a day. A dedup key holds the ids of every day it has
// seen, each day with its own timer that forgets it Horizon after the day
// ends (or after the key's own day ends, if that is later: see DedupFn).
const DedupBucket = 24 * time.Hour

// MaxShards is the largest number of dedup shards: DedupKey keeps the shard
// in the key's low 16 bits.
const MaxShards = 1 << 16

// DedupKey is the key a tweet is deduplicated under: its created_at bucket
// (day: BucketOf) and its dedup shard (ShardOfSecond), in one int64.
//
// (Keys by shard alone, 16 whatever the span, were tried: prism v2.77 then
// stopped scheduling the dedup stage on a month of tweets once the reader
// paused for flow control — 1M tweets over 30 days never finished.)
func DedupKey(bucket int64, shard int) int64 { return bucket<<16 | int64(shard) }

// dedupBucketOf returns the bucket of a DedupKey.
func dedupBucketOf(key int64) int64 { return key >> 16 }

// BucketOf returns the dedup bucket (day) of a created_at in Unix seconds.
func BucketOf(sec int64) int64 { return floorDiv(sec, int64(DedupBucket/time.Second)) }

// ShardOfSecond returns the dedup shard of a tweet created at sec (Unix
// seconds), one of n. Every copy of a tweet has its created_at, and so
// does every tweet that shares its row key (row keys begin with the
// second): both meet under one key, the first to be deduplicated, the
// second to be counted as a row-key collision.
func ShardOfSecond(sec int64, n int) int { return ShardOf(uint64(sec), n) }

// Dedup keeps one tweet per tweet id. keyed is the ParseFn output: tweet
// batches keyed by IDKey (the day of the time in the id and the shard of
// its second).
//
// Every copy, version and delete of a tweet carries its id, so all of
// them land under one key, whatever their created_at. DedupFn keeps, per
// key, the ids it has let through, and lets a tweet through only if its
// id is new; an event-time timer clears
// them horizon after the day's end, so memory stays bounded on an endless
// stream. Keys and timers grow with the days a run covers (shards a day), not
// with its minutes.
//
// The state lives in the global window and its lifetime is the timers',
// not a window's: runners that collect a window's state at the window's
// end rather than after its allowed lateness (prism v2.77 does) would
// otherwise forget ids as soon as the watermark passes them. Nothing waits
// for a window to close, so tweets reach the tables as soon as they are
// read, in batch and streaming alike.
//
// The result holds batches of distinct tweets, in the global window;
// TweetFrequencyWith windows them for counting.
func Dedup(s beam.Scope, keyed beam.PCollection, horizon time.Duration) beam.PCollection {
	return dedup(s, keyed, horizon, false, false)
}

// DedupAcknowledging is Dedup for a run that acknowledges Kafka records
// (ParseFn.Ack): the units of every tweet it drops, and the acknowledgements
// its input batches carry, go on with its output (TweetBatch.Acks), which it
// emits even when it holds no tweet.
func DedupAcknowledging(s beam.Scope, keyed beam.PCollection, horizon time.Duration) beam.PCollection {
	return dedup(s, keyed, horizon, true, false)
}

// DedupInMemory is Dedup for a bounded run whose runner and workers are
// this process (prism started by the run): the ids live in this process's
// memory only, not in Beam state as well (DedupFn.InMemory).
func DedupInMemory(s beam.Scope, keyed beam.PCollection, horizon time.Duration) beam.PCollection {
	return dedup(s, keyed, horizon, false, true)
}

func dedup(s beam.Scope, keyed beam.PCollection, horizon time.Duration, ack, inMemory bool) beam.PCollection {
	return beam.ParDo(s.Scope("Dedup"), newDedupFn(horizon, ack, inMemory), keyed)
}

func newDedupFn(horizon time.Duration, ack, inMemory bool) *DedupFn {
	if horizon <= 0 {
		horizon = DefaultHorizon
	}
	return &DedupFn{
		Seen:     state.MakeBagState[[]byte]("seen"),
		Version:  state.MakeValueState[uint64]("version"),
		Expire:   timers.InEventTime("expire"),
		Horizon:  horizon,
		Instance: newInstanceID(),
		Ack:      ack,
		InMemory: inMemory,
	}
}

// DedupFn lets through one version of each tweet id, chosen by the
// version rule: of the copies of an id a run reads, the one with the
// smallest row key (its created_at second, then the hash of its bytes;
// then the smallest bytes) is stored, whatever order they come in and
// whatever their created_at. The first copy read is let through at once
// (a stream cannot wait); a later copy with a smaller row key is let through as a
// replacement (TweetBatch.Replacements), and Identify removes the version
// it replaces. Byte-identical copies, the common case (re-delivery, an
// archive read twice), are duplicates. (Two versions of one id whose
// 32-bit hashes are equal are told apart by arrival: the first stays.)
//
// Deletes (compliance) travel under the key of the tweet they delete (the
// id's: IDKey): an id deleted is remembered as deleted, and copies of it
// read later in the run are skipped (counted as skipped, kind deleted).
// Within a batch, deletes are applied first. A key remembers a delete
// under its own day, a version under its created_at's day (whose second
// and hash make its row key), and finds an id under either (idSet.lookup).
//
// When a day's ids are forgotten, the tweets of that day that share their
// row key with another (same second, same 32-bit hash) are counted as
// collisions (CounterCollisions).
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
	// Seen holds the ids let through, one entry per batch (see
	// appendSeenGroup), rewritten as one entry once there are
	// maxSeenEntries.
	Seen state.Bag[[]byte]
	// Version changes with every write to Seen.
	Version state.Value[uint64]
	// Expire has one timer per day (tagged with the day's number), which
	// fires Horizon after the end of the day, or of the key's day if that
	// is later, and forgets its ids.
	Expire timers.EventTime
	// Horizon is how long past the end of its day an id is remembered.
	Horizon time.Duration
	// Instance names this transform in the process's cache of ids: two
	// pipelines in one process never share ids.
	Instance string
	// Ack passes on the acknowledgements of the batches and adds the
	// units of the tweets dropped (see DedupAcknowledging).
	Ack bool
	// InMemory keeps the ids in this process's memory only: Seen is never
	// written, and Version only tells whether the runner's state is still
	// the state this process last wrote. When it is not (a bundle retried
	// or moved, state lost), the bundle fails with ErrDedupStateLost
	// rather than deduplicating against ids the runner rolled back. For
	// bounded runs on a runner in this process (prism fails a job at its
	// first failed bundle, and never moves a key to another worker), which
	// are re-run whole: a bounded run's writes are idempotent. The bag
	// would cost the runner 16 bytes an id, for the whole run.
	InMemory bool
}

// ErrDedupStateLost is the error of a DedupFn.InMemory bundle whose key's
// state is not the state this process last wrote.
var ErrDedupStateLost = errors.New("the runner's dedup state is not what this process last wrote (a bundle retried or moved to another worker); this run keeps its tweet ids in memory only, so run it again: its writes are idempotent")

// A seen entry of the bag is a sequence of day groups: the day (8 bytes,
// big-endian), the number of records (4), and one 16-byte record per id:
// the id (8 bytes), the 32-bit hash of the row key kept (4) and the second
// of the day (4). A batch appends one entry, whatever the days it spans.
const (
	seenGroupLen  = 12
	seenRecordLen = 16
)

// appendSeenGroup appends the group of day's records (recs, a multiple of
// seenRecordLen bytes) to entry.
func appendSeenGroup(entry []byte, day int64, recs []byte) []byte {
	entry = binary.BigEndian.AppendUint64(entry, uint64(day))
	entry = binary.BigEndian.AppendUint32(entry, uint32(len(recs)/seenRecordLen))
	return append(entry, recs...)
}

// ProcessElement filters one batch against the ids already seen.
func (f *DedupFn) ProcessElement(ctx context.Context, sp state.Provider, tp timers.Provider, key int64, b TweetBatch, emit func(TweetBatch)) error {
	defer flow.AddBacklog(-len(b.Tweets))
	ids, err := f.load(sp, key)
	if err != nil {
		return err
	}
	defer ids.mu.Unlock()

	// Every record of an id comes under one key, the id's (IDKey), whatever
	// its created_at: a delete is remembered under the key's day (home),
	// a version under its created_at's day, and lookup finds it in either.
	home := dedupBucketOf(key)
	fresh := map[int64][]byte{} // day -> records to append
	// remember keeps s for id (unseen: nothing is remembered for id yet)
	// and reports whether another tweet of this run holds s's row key (a
	// row-key collision).
	dayOf := func(day int64) *dayIDs {
		d := ids.days[day]
		if d == nil {
			d = &dayIDs{}
			ids.days[day] = d
			// The first id of this day under this key: forget the day's
			// ids once the watermark is Horizon past its end, or past the
			// end of the key's own day if that is later. A runner hands a
			// key its elements and timers in event-time order, and this
			// key's elements carry its day's start (ParseFn): a timer
			// before them would hold them back until the watermark passes
			// it, which a bounded read paused by flow control never lets
			// happen (tweets whose ids' time is days after created_at).
			// No output timestamp: the timer emits nothing and must not
			// hold the watermark back.
			end := time.Unix((max(day, home)+1)*int64(DedupBucket/time.Second), 0).Add(f.Horizon)
			f.Expire.Set(tp, end, timers.WithTag(strconv.FormatInt(day, 10)), timers.WithNoOutputTimestamp())
		}
		return d
	}
	remember := func(tp timers.Provider, day int64, id uint64, s seenTweet, unseen bool) (collided bool) {
		d := dayOf(day)
		if day != home {
			ids.addForeign(id, day)
		}
		if !f.InMemory {
			fresh[day] = s.append(fresh[day], id)
			return d.keep(id, s, unseen, day)
		}
		fresh[day] = nil // the day changed: the version moves on
		n := d.seen.len()
		collided = d.keep(id, s, unseen, day)
		inMemoryIDs.Add(int64(d.seen.len() - n))
		return collided
	}

	var out TweetBatch
	if f.Ack {
		out.Acks = b.Acks
	}
	drop := func(t *schemas.Tweet) {
		if f.Ack {
			out.Acks = append(out.Acks, schemas.Ack{Source: t.Origin.Source, Offset: t.Origin.Line, Done: 1})
		}
	}
	for _, id := range slices.Compact(slices.Sorted(slices.Values(b.Deletes))) {
		s, _, had := ids.lookup(home, id)
		if had && s.deleted() {
			continue // deleted already in this run
		}
		_, inHome := ids.days[home].get(id)
		remember(tp, home, id, deletedSeen, !inHome)
		out.Deletes = append(out.Deletes, id)
	}

	for _, p := range b.Probes {
		sec := p.Key.Seconds()
		day := BucketOf(sec)
		d := dayOf(day)
		s := seenTweet{hash: p.Key.Hash(), second: uint32(sec - day*int64(DedupBucket/time.Second))}
		collided, kept := d.probe(p.ID, s)
		if collided {
			out.Collided = append(out.Collided, p.Key)
		}
		if kept {
			if f.InMemory {
				fresh[day] = nil
			} else {
				fresh[day] = s.asProbe().append(fresh[day], p.ID)
			}
		}
	}

	in := slices.Clone(b.Tweets) // elements are immutable; sort a copy
	slices.SortFunc(in, compareCopies)
	var dups, deleted int64
	for i := range in {
		t := &in[i]
		if i > 0 && in[i-1].ID == t.ID {
			dups++ // a later copy in this batch: compareCopies put the kept one first
			drop(t)
			continue
		}
		day := BucketOf(t.CreatedAt)
		s := seenTweet{hash: t.RowKey.Hash(), second: uint32(t.CreatedAt - day*int64(DedupBucket/time.Second))}
		kept, keptDay, ok := ids.lookup(home, t.ID)
		switch {
		case ok && kept.deleted():
			deleted++
			drop(t)
		case ok && s.before(day, kept, keptDay):
			dups++ // the earlier version is now the copy
			_, inDay := ids.days[day].get(t.ID)
			if remember(tp, day, t.ID, s, !inDay) {
				out.Collided = append(out.Collided, t.RowKey)
			}
			if m := schemas.Minute(t.CreatedAt); m != schemas.Minute(kept.unix(keptDay)) {
				// Counted in the minute of the version it replaces, which
				// is recounted when that version goes (RawFn): this
				// minute is recounted too.
				out.Recount = append(out.Recount, t.CreatedAt)
			}
			out.Replacements = append(out.Replacements, *t)
		case ok:
			dups++
			drop(t)
		default:
			if remember(tp, day, t.ID, s, true) {
				out.Collided = append(out.Collided, t.RowKey)
			}
			out.Tweets = append(out.Tweets, *t)
		}
	}
	if dups > 0 {
		duplicateCount.Inc(ctx, dups)
	}
	if deleted > 0 {
		countSkippedDeleted(ctx, deleted)
	}
	for day := range fresh {
		if err := ids.days[day].err; err != nil {
			return err
		}
	}
	if len(fresh) > 0 {
		if err := f.appendSeen(sp, ids, fresh); err != nil {
			return err
		}
	}
	if f.InMemory && inMemoryIDs.Load() > spillBudget {
		if err := f.spillSome(ids); err != nil {
			return err
		}
	}
	if n := int64(len(out.Tweets)); n > 0 {
		indexedCount.Inc(ctx, n)
		flow.AddIndexed(n)
	}
	if len(out.Tweets)+len(out.Replacements)+len(out.Deletes)+len(out.Acks)+len(out.Collided) > 0 {
		emit(out)
	}
	return nil
}

// load returns the key's ids as of its state's version, locked: from the
// process's cache if it holds that version, read from the bag if not.
func (f *DedupFn) load(sp state.Provider, key int64) (*idSet, error) {
	home := dedupBucketOf(key)
	version, known, err := f.Version.Read(sp)
	if err != nil {
		return nil, err
	}
	ids := seenCache.get(f.Instance, key)
	ids.mu.Lock()
	switch {
	case f.InMemory && (ids.version != version || !known && len(ids.days) > 0):
		ids.mu.Unlock()
		return nil, fmt.Errorf("dedup key %d: %w", key, ErrDedupStateLost)
	case !known:
		ids.reset(0)
	case ids.version != version:
		entries, _, err := f.Seen.Read(sp)
		if err != nil {
			ids.mu.Unlock()
			return nil, err
		}
		ids.reset(version)
		ids.entries = len(entries)
		for _, e := range entries {
			for len(e) >= seenGroupLen {
				day := int64(binary.BigEndian.Uint64(e))
				n := int(binary.BigEndian.Uint32(e[8:]))
				e = e[seenGroupLen:]
				if n*seenRecordLen > len(e) {
					break // a torn entry: never written so
				}
				d := ids.days[day]
				if d == nil {
					d = &dayIDs{}
					ids.days[day] = d
				}
				for ; n > 0; n-- {
					id, s := readSeen(e)
					if s.probe() {
						d.probe(id, s.asTweet())
						e = e[seenRecordLen:]
						continue
					}
					old, had := d.seen.get(id)
					d.seen.set(id, s.merge(old, had))
					if day != home {
						ids.addForeign(id, day)
					}
					e = e[seenRecordLen:]
				}
			}
		}
		for day, d := range ids.days {
			for id, s := range d.seen.all {
				if keyedHere(id, s, day) {
					d.addRowKey(s)
				}
			}
		}
	}
	return ids, nil
}

// appendSeen adds the records of fresh (day -> records) to the bag as one
// entry and moves the version on.
func (f *DedupFn) appendSeen(sp state.Provider, ids *idSet, fresh map[int64][]byte) error {
	if f.InMemory {
		return f.bumpVersion(sp, ids)
	}
	if ids.entries < maxSeenEntries {
		var e []byte
		for day, recs := range fresh {
			e = appendSeenGroup(e, day, recs)
		}
		if err := f.Seen.Add(sp, e); err != nil {
			return err
		}
		ids.entries++
	} else if err := f.rewriteSeen(sp, ids); err != nil {
		return err
	}
	return f.bumpVersion(sp, ids)
}

// rewriteSeen replaces the bag with one entry holding every id: runners
// copy a bag's list of entries for every bundle of its key (prism does),
// so it is kept short.
func (f *DedupFn) rewriteSeen(sp state.Provider, ids *idSet) error {
	if err := f.Seen.Clear(sp); err != nil {
		return err
	}
	n := 0
	for _, d := range ids.days {
		n += seenGroupLen + seenRecordLen*(d.seen.len()+len(d.probes))
	}
	e := make([]byte, 0, n)
	var recs []byte
	for day, d := range ids.days {
		recs = recs[:0]
		for id, s := range d.seen.all {
			recs = s.append(recs, id)
		}
		for id, k := range d.probes {
			recs = seenTweet{hash: uint32(k), second: uint32(k >> 32)}.asProbe().append(recs, id)
		}
		e = appendSeenGroup(e, day, recs)
	}
	ids.entries = 0
	if len(e) == 0 {
		return nil
	}
	ids.entries = 1
	return f.Seen.Add(sp, e)
}

func (f *DedupFn) bumpVersion(sp state.Provider, ids *idSet) error {
	next := newVersion(ids.version)
	if err := f.Version.Write(sp, next); err != nil {
		return err
	}
	ids.version = next
	return nil
}

// OnTimer forgets the ids of the day the timer is tagged with, counting
// the row-key collisions among them first.
func (f *DedupFn) OnTimer(ctx context.Context, sp state.Provider, _ timers.Provider, key int64, timer timers.Context, _ func(TweetBatch)) error {
	if timer.Family != f.Expire.Family {
		return nil
	}
	day, err := strconv.ParseInt(timer.Tag, 10, 64)
	if err != nil {
		return nil // not a day's timer
	}
	ids, err := f.load(sp, key)
	if err != nil {
		return err
	}
	defer ids.mu.Unlock()
	d := ids.days[day]
	n, err := d.collisions(day)
	if err != nil {
		return err
	}
	if n > 0 {
		collisionCount.Inc(ctx, n)
	}
	if d != nil && f.InMemory {
		inMemoryIDs.Add(-int64(d.seen.len()))
		d.spilled.close()
	}
	delete(ids.days, day)
	ids.dropForeign(day)
	if len(ids.days) == 0 {
		seenCache.drop(f.Instance, key)
		if !f.InMemory {
			if err := f.Seen.Clear(sp); err != nil {
				return err
			}
		}
		ids.reset(0)
		return f.Version.Clear(sp)
	}
	if !f.InMemory {
		if err := f.rewriteSeen(sp, ids); err != nil {
			return err
		}
	}
	return f.bumpVersion(sp, ids)
}
