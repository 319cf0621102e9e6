package transforms

import (
	"context"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window/trigger"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x0[TweetBatch, func(string, int64)](&CountLangFn{})
	register.Emitter2[string, int64]()
	register.Function2x1(sum)
	register.DoFn5x1[context.Context, state.Provider, string, int64, func(string, int64), error](&GrowingTotalFn{})
	register.DoFn3x0[string, int64, func([]schemas.Cell)](&FrequencyCellFn{})
	beam.RegisterType(reflectTypeOf[FrequencyBase]())
}

// FiringDelay is how long after the first tweet of a pane the count of a
// minute is written: the delay of late panes, and the early-firing delay a
// streaming run uses (FrequencyOptions.EarlyFiring).
const FiringDelay = 2 * time.Second

// FrequencyOptions tune TweetFrequencyWith.
type FrequencyOptions struct {
	// EarlyFiring, when positive, makes a minute's window fire with its
	// running total this long after the first tweet of each pane before
	// the end of the minute (early panes; FiringDelay is a good value), so
	// that counts are visible while the minute is still going on. Zero
	// means no early panes, which suits a batch run: its windows close
	// when the input ends, and early panes would only write counts that
	// the on-time pane overwrites.
	EarlyFiring time.Duration
	// Base holds counts already in the table that this run continues
	// instead of recounting: a run that resumes a stream from committed
	// offsets reads only the tweets its predecessor did not, so a minute
	// that straddles the restart is the sum of both. Empty for every other
	// run (files, backfills, a stream read from a given position), whose
	// counts are absolute.
	Base FrequencyBase
}

// FrequencyBase is a set of TweetFrequency counts, by key (YYYYMMDDhhmm
// followed by the language tag, as CountLangFn keys them).
type FrequencyBase struct {
	Keys   []string
	Counts []int64
}

// Len returns the number of counts in b.
func (b FrequencyBase) Len() int { return len(b.Keys) }

// Add appends the count of one minute and language.
func (b *FrequencyBase) Add(row schemas.FrequencyRow) {
	b.Keys = append(b.Keys, row.Minute+row.Lang)
	b.Counts = append(b.Counts, row.Count)
}

// TweetFrequency returns the TweetFrequency cells of deduplicated tweets
// (TweetFrequencyWith with the default options: no early panes).
func TweetFrequency(s beam.Scope, tweets beam.PCollection) beam.PCollection {
	return TweetFrequencyWith(s, tweets, FrequencyOptions{})
}

// TweetFrequencyWith returns the TweetFrequency cells of deduplicated
// tweets: per 1-minute event-time window and language, the absolute number
// of tweets, written as soon as it is known and rewritten as it grows.
//
// The windows fire (FrequencyTrigger) with early panes while tweets of the
// minute arrive (if opts.EarlyFiring is set: streaming runs set it), once
// when the watermark passes the end of the minute, and
// with late panes for tweets that arrive after that but within the allowed
// lateness of tweets (the dedup horizon, taken from the windowing of
// tweets; later ones are dropped by the runner, as Dedup drops them). Panes
// accumulate: each holds the minute's total so far, which overwrites the
// stored count, so a retried or re-fired window never adds to it.
//
// Counts are summed per key by a combiner (lifted before the shuffle).
// Runners do not order the panes of a window on their way to the sink (two
// may travel in concurrent bundles), so GrowingTotalFn, keyed by minute and
// language, lets a total through only if it is larger than every total it
// let through before: the last count written is the largest, which in
// accumulating mode is the latest. On a bounded input the on-time pane is
// the final count, the same as without triggers.
func TweetFrequencyWith(s beam.Scope, tweets beam.PCollection, opts FrequencyOptions) beam.PCollection {
	s = s.Scope("TweetFrequency")
	lateness := time.Duration(tweets.WindowingStrategy().AllowedLateness) * time.Millisecond
	partial := beam.ParDo(s, &CountLangFn{}, tweets)
	windowed := beam.WindowInto(s, window.NewFixedWindows(Minute), partial,
		beam.Trigger(FrequencyTrigger(opts.EarlyFiring)),
		beam.PanesAccumulate(),
		beam.AllowedLateness(lateness))
	totals := beam.CombinePerKey(s, sum, windowed)
	growing := beam.ParDo(s, &GrowingTotalFn{Max: state.MakeValueState[int64]("max"), Base: opts.Base}, totals)
	return beam.ParDo(s, &FrequencyCellFn{}, growing)
}

// FrequencyTrigger is the trigger of the frequency windows: at the end of
// the window (the on-time pane); early, if early is positive, that long
// after the first tweet of a pane while tweets of the window arrive before
// its end; and late, FiringDelay after the first tweet of a pane, while
// tweets of the window arrive after its end. A delay after the first tweet
// of a pane, not a pane per tweet: a burst of tweets costs one firing.
// Processing-time firings keep the combiner lifted on prism (a count
// trigger would not).
func FrequencyTrigger(early time.Duration) trigger.Trigger {
	var earlyTrigger trigger.Trigger = trigger.Never()
	if early > 0 {
		earlyTrigger = trigger.Repeat(trigger.AfterProcessingTime().PlusDelay(early))
	}
	return trigger.AfterEndOfWindow().
		EarlyFiring(earlyTrigger).
		LateFiring(trigger.Repeat(trigger.AfterProcessingTime().PlusDelay(FiringDelay)))
}

// CountLangFn counts the tweets of a batch per minute and language. The key
// is the row of TweetFrequency: YYYYMMDDhhmm followed by the language tag.
type CountLangFn struct{}

// ProcessElement emits one partial count per minute and language of the batch.
func (f *CountLangFn) ProcessElement(b TweetBatch, emit func(string, int64)) {
	counts := make(map[string]int64, 4)
	var order []string
	for i := range b.Tweets {
		k := schemas.Minute(b.Tweets[i].CreatedAt) + b.Tweets[i].Lang
		if _, ok := counts[k]; !ok {
			order = append(order, k)
		}
		counts[k]++
	}
	for _, k := range order {
		emit(k, counts[k])
	}
}

func sum(a, b int64) int64 { return a + b }

// stalePanes counts window totals that GrowingTotalFn held back because a
// larger one had already been let through (panes that overtook each other).
var stalePanes = beam.NewCounter(Namespace, "frequency_stale_panes")

// GrowingTotalFn lets through the totals of a minute and language that are
// larger than every total it let through before, so that the last count
// written for a key is its largest. In accumulating mode totals only grow
// from pane to pane (tweets are never taken back), so the largest is the
// latest; an equal total (an on-time pane after an early pane with nothing
// new) is not written again. The base count of the key, if any, is added
// to every total.
type GrowingTotalFn struct {
	// Max is the largest total let through, per key and window.
	Max state.Value[int64]
	// Base holds the counts to continue, added to the totals of their keys.
	Base FrequencyBase

	base map[string]int64 // Base as a map, built once
}

// ProcessElement lets total through if it is larger than any before it.
func (f *GrowingTotalFn) ProcessElement(ctx context.Context, sp state.Provider, key string, total int64, emit func(string, int64)) error {
	if f.base == nil {
		f.base = make(map[string]int64, f.Base.Len())
		for i, k := range f.Base.Keys {
			f.base[k] = f.Base.Counts[i]
		}
	}
	total += f.base[key]
	max, ok, err := f.Max.Read(sp)
	if err != nil {
		return err
	}
	if ok && total <= max {
		if total < max {
			stalePanes.Inc(ctx, 1)
		}
		return nil
	}
	if err := f.Max.Write(sp, total); err != nil {
		return err
	}
	emit(key, total)
	return nil
}

// FrequencyCellFn turns a total per minute and language into its cell.
type FrequencyCellFn struct{}

// ProcessElement emits the cell of one minute and language.
func (f *FrequencyCellFn) ProcessElement(key string, count int64, emit func([]schemas.Cell)) {
	n := len(schemas.MinuteLayout)
	emit([]schemas.Cell{schemas.FrequencyRow{Minute: key[:n], Lang: key[n:], Count: count}.Cell()})
}
