package transforms

import (
	"bytes"
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn4x0[context.Context, int64, func(*TweetBatch) bool, func(TweetBatch)](&DedupFn{})
	register.Iter1[TweetBatch]()
	register.Emitter1[TweetBatch]()
}

// Dedup keeps one tweet per tweet id. keyed is the ParseFn output: tweet
// batches keyed by dedup shard and stamped with their minute. Every copy of
// a tweet carries the same created_at, so all copies meet in one shard and
// one 1-minute event-time window: a windowed GroupByKey deduplicates
// exactly, in batch and in streaming, and the runner drops the window's
// state once it expires. The result holds batches of distinct tweets, in
// 1-minute windows.
func Dedup(s beam.Scope, keyed beam.PCollection) beam.PCollection {
	s = s.Scope("Dedup")
	windowed := beam.WindowInto(s, window.NewFixedWindows(Minute), keyed)
	grouped := beam.GroupByKey(s, windowed)
	return beam.ParDo(s, &DedupFn{}, grouped)
}

// DedupFn keeps one tweet of each id among the batches of one shard and
// window. Of two copies with different bytes it keeps the one with the
// smaller row key (then the smaller JSON), so the choice does not depend on
// the order in which files or messages were read.
type DedupFn struct{}

// ProcessElement deduplicates one shard of one window.
func (f *DedupFn) ProcessElement(ctx context.Context, _ int64, batches func(*TweetBatch) bool, emit func(TweetBatch)) {
	var (
		out   []schemas.Tweet
		index = make(map[uint64]int)
		b     TweetBatch
		dups  int64
	)
	for batches(&b) {
		for _, t := range b.Tweets {
			i, seen := index[t.ID]
			if !seen {
				index[t.ID] = len(out)
				out = append(out, t)
				continue
			}
			dups++
			if preferred(&t, &out[i]) {
				out[i] = t
			}
		}
	}
	if dups > 0 {
		duplicateCount.Inc(ctx, dups)
	}
	indexedCount.Inc(ctx, int64(len(out)))
	if len(out) > 0 {
		emit(TweetBatch{Tweets: out})
	}
}

// preferred reports whether a should be kept over b, two copies of one id.
func preferred(a, b *schemas.Tweet) bool {
	if c := bytes.Compare(a.RowKey[:], b.RowKey[:]); c != 0 {
		return c < 0
	}
	return bytes.Compare(a.JSON, b.JSON) < 0
}
