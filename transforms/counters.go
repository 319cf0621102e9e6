package transforms

import (
	"context"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// The counters the transforms count (names and meaning: package flow).
var (
	readCount       = flow.NewCounter(flow.CounterRead)
	indexedCount    = flow.NewCounter(flow.CounterIndexed)
	duplicateCount  = flow.NewCounter(flow.CounterDuplicates)
	skippedCount    = flow.NewCounter(flow.CounterSkipped)
	deadLetterCount = flow.NewCounter(flow.CounterDeadLettered)
	outOfRangeCount = flow.NewCounter(flow.CounterOutOfRange)
	collisionCount  = flow.NewCounter(flow.CounterCollisions)
	retractedCount  = flow.NewCounter(flow.CounterRetracted)
	noticeCount     = flow.NewCounter(flow.CounterNotices)
	skippedByKind   = func() [schemas.NumSkipKinds]flow.Counter {
		var c [schemas.NumSkipKinds]flow.Counter
		for k := range c {
			c[k] = flow.NewCounter(flow.SkippedCounterName(schemas.SkipKind(k)))
		}
		return c
	}()
	// frequencyRows counts the frequency table's rows once each
	// (GrowingTotalFn; flow.CountTableRows leaves them out).
	frequencyRows = flow.NewCounter(flow.RowCounterName(schemas.TableFrequency))
)

// countSkippedDeleted counts n tweets read and skipped because a
// compliance message deleted them.
func countSkippedDeleted(ctx context.Context, n int64) {
	skippedCount.Inc(ctx, n)
	skippedByKind[schemas.SkipDeleted].Inc(ctx, n)
}
