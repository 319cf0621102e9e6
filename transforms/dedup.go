package transforms

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/timers"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn7x1[context.Context, beam.EventTime, state.Provider, timers.Provider, int64, TweetBatch, func(TweetBatch), error](&DedupFn{})
	register.Emitter1[TweetBatch]()
}

// DefaultHorizon is how long, in event time past the end of its minute, a
// tweet id is remembered: a copy that arrives later than this is dropped by
// the runner as too late.
const DefaultHorizon = 24 * time.Hour

// MaxShards is the largest number of dedup shards: DedupKey keeps the shard
// in the key's low 16 bits.
const MaxShards = 1 << 16

// DedupKey is the key a tweet is deduplicated under: its created_at minute
// (Unix minutes) and its dedup shard (ShardOf its id), in one int64.
func DedupKey(minute int64, shard int) int64 { return minute<<16 | int64(shard) }

// Dedup keeps one tweet per tweet id. keyed is the ParseFn output: tweet
// batches keyed by DedupKey (created_at minute and a hash of the id) and
// stamped with their minute.
//
// Every copy of a tweet carries the same created_at, so all copies land
// under one key. DedupFn keeps, per key, the set of ids it has let through
// and lets a tweet through only if its id is new; an event-time timer
// clears the set horizon after the end of the minute, so memory stays
// bounded on an endless stream. The state lives in the global window and
// its lifetime is the timer's, not a window's: runners that collect a
// window's state at the window's end rather than after its allowed
// lateness (prism v2.77 does) would otherwise forget a minute's ids as soon
// as the watermark passes it, and let a late copy through. Nothing waits
// for a window to close, so tweets reach the tables as soon as they are
// read, in batch and streaming alike.
//
// The result holds batches of distinct tweets in 1-minute event-time
// windows whose allowed lateness is the horizon: a copy that arrives after
// its minute's ids were cleared is dropped downstream as too late by the
// frequency windows (its raw, term and geo cells are the same ones again).
func Dedup(s beam.Scope, keyed beam.PCollection, horizon time.Duration) beam.PCollection {
	s = s.Scope("Dedup")
	if horizon <= 0 {
		horizon = DefaultHorizon
	}
	global := beam.WindowInto(s, window.NewGlobalWindows(), keyed)
	distinct := beam.ParDo(s, &DedupFn{
		Seen:    state.MakeValueState[[]byte]("seen"),
		Expire:  timers.InEventTime("expire"),
		Horizon: horizon,
	}, global)
	return beam.WindowInto(s, window.NewFixedWindows(Minute), distinct, beam.AllowedLateness(horizon))
}

// DedupFn lets through the first copy of each tweet id per key (minute and
// shard). Within one batch, of two copies with different bytes it keeps the
// one with the smaller row key; across batches the first one read wins (a
// stream cannot take back what it has written). Byte-identical copies, the
// common case (re-delivery, an archive read twice), always give the same
// tables.
type DedupFn struct {
	// Seen holds the ids let through, as sorted big-endian uint64s.
	Seen state.Value[[]byte]
	// Expire fires Horizon after the end of the key's minute and clears Seen.
	Expire timers.EventTime
	// Horizon is how long past the end of its minute an id is remembered.
	Horizon time.Duration
}

// ProcessElement filters one batch, stamped with its minute, against the
// ids already seen.
func (f *DedupFn) ProcessElement(ctx context.Context, minute beam.EventTime, sp state.Provider, tp timers.Provider, _ int64, b TweetBatch, emit func(TweetBatch)) error {
	defer backlogAdd(-len(b.Tweets))
	seen, known, err := f.Seen.Read(sp)
	if err != nil {
		return err
	}
	in := slices.Clone(b.Tweets) // elements are immutable; sort a copy
	slices.SortFunc(in, func(a, b schemas.Tweet) int {
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
	})
	out := in[:0]
	var fresh []uint64
	var dups int64
	for i := range in {
		id := in[i].ID
		if (i > 0 && in[i-1].ID == id) || containsID(seen, id) {
			dups++
			continue
		}
		out = append(out, in[i])
		fresh = append(fresh, id)
	}
	if dups > 0 {
		duplicateCount.Inc(ctx, dups)
	}
	if len(out) == 0 {
		return nil
	}
	if !known {
		// The first batch of this minute and shard: forget its ids once
		// the watermark is Horizon past the minute. No output timestamp:
		// the timer emits nothing and must not hold the watermark back.
		f.Expire.Set(tp, minute.ToTime().Add(Minute+f.Horizon), timers.WithNoOutputTimestamp())
	}
	if err := f.Seen.Write(sp, mergeIDs(seen, fresh)); err != nil {
		return err
	}
	indexedCount.Inc(ctx, int64(len(out)))
	localIndexed.Add(int64(len(out)))
	emit(TweetBatch{Tweets: out})
	return nil
}

// OnTimer clears the ids of a minute and shard whose horizon has passed.
func (f *DedupFn) OnTimer(sp state.Provider, _ timers.Provider, _ int64, timer timers.Context, _ func(TweetBatch)) error {
	if timer.Family == f.Expire.Family {
		return f.Seen.Clear(sp)
	}
	return nil
}

// containsID reports whether the sorted id set holds id.
func containsID(set []byte, id uint64) bool {
	lo, hi := 0, len(set)/8
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		v := binary.BigEndian.Uint64(set[m*8:])
		switch {
		case v == id:
			return true
		case v < id:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}

// mergeIDs merges sorted new ids (none in set) into the sorted set.
func mergeIDs(set []byte, ids []uint64) []byte {
	out := make([]byte, 0, len(set)+8*len(ids))
	i := 0
	for off := 0; off < len(set); off += 8 {
		v := binary.BigEndian.Uint64(set[off:])
		for i < len(ids) && ids[i] < v {
			out = binary.BigEndian.AppendUint64(out, ids[i])
			i++
		}
		out = binary.BigEndian.AppendUint64(out, v)
	}
	for ; i < len(ids); i++ {
		out = binary.BigEndian.AppendUint64(out, ids[i])
	}
	return out
}
