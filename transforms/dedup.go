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
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn5x1[context.Context, state.Provider, int64, TweetBatch, func(TweetBatch), error](&DedupFn{})
	register.Emitter1[TweetBatch]()
}

// DefaultHorizon is how long, in event time past the end of its minute, a
// tweet id is remembered: a copy that arrives later than this is dropped by
// the runner as too late.
const DefaultHorizon = 24 * time.Hour

// Dedup keeps one tweet per tweet id. keyed is the ParseFn output: tweet
// batches keyed by dedup shard (a hash of the id) and stamped with their
// created_at minute.
//
// Every copy of a tweet carries the same created_at, so all copies land in
// one shard and one 1-minute event-time window. DedupFn keeps, per shard
// and window, the set of ids it has let through (Beam state is per key and
// window), and lets a tweet through only if its id is new. The runner drops
// that state when the window expires, horizon after its end: memory stays
// bounded on an endless stream, and nothing waits for a window to close, so
// tweets reach the tables as soon as they are read, in batch and streaming
// alike. The result holds batches of distinct tweets, in 1-minute windows.
func Dedup(s beam.Scope, keyed beam.PCollection, horizon time.Duration) beam.PCollection {
	s = s.Scope("Dedup")
	if horizon <= 0 {
		horizon = DefaultHorizon
	}
	windowed := beam.WindowInto(s, window.NewFixedWindows(Minute), keyed, beam.AllowedLateness(horizon))
	return beam.ParDo(s, &DedupFn{Seen: state.MakeValueState[[]byte]("seen")}, windowed)
}

// DedupFn lets through the first copy of each tweet id per shard and window.
// Within one batch, of two copies with different bytes it keeps the one
// with the smaller row key; across batches the first one read wins (a
// stream cannot take back what it has written). Byte-identical copies, the
// common case (re-delivery, an archive read twice), always give the same
// tables.
type DedupFn struct {
	// Seen holds the ids let through, as sorted big-endian uint64s.
	Seen state.Value[[]byte]
}

// ProcessElement filters one batch against the ids already seen.
func (f *DedupFn) ProcessElement(ctx context.Context, sp state.Provider, _ int64, b TweetBatch, emit func(TweetBatch)) error {
	defer backlogAdd(-len(b.Tweets))
	seen, _, err := f.Seen.Read(sp)
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
	if err := f.Seen.Write(sp, mergeIDs(seen, fresh)); err != nil {
		return err
	}
	indexedCount.Inc(ctx, int64(len(out)))
	emit(TweetBatch{Tweets: out})
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
