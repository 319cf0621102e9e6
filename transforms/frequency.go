package transforms

import (
	"context"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window/trigger"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func init() {
	register.DoFn2x0[TweetBatch, func(beam.EventTime, int64, MinuteCounts)](&CountLangFn{})
	register.Emitter3[beam.EventTime, int64, MinuteCounts]()
	register.Combiner3[MinuteCounts, MinuteCounts, MinuteCounts](&countsCombineFn{})
	register.DoFn5x1[context.Context, state.Provider, int64, MinuteCounts, func([]schemas.Cell), error](&GrowingTotalFn{})
	beam.RegisterType(reflectTypeOf[FrequencyBase]())
	beam.RegisterType(reflectTypeOf[MinuteCounts]())
	beam.RegisterCoder(reflectTypeOf[MinuteCounts](), encodeMinuteCounts, decodeMinuteCounts)
}

// CountWindow is the width of the event-time windows the frequency table
// is counted in. Each window holds the counts of its minutes (MinuteCounts)
// under one key: an hour, so that a run over a month has 720 windows to
// close, not 43,200 minutes times their languages, and a streaming pane
// rewrites at most an hour of cells (only those that changed).
const CountWindow = time.Hour

// BoundedCountWindow is the width of the windows of a bounded run
// (FrequencyOptions.Window): its windows close only at its end, one pane
// each, and a day makes a month 30 of them instead of 720 (each a key the
// runner fires and a state GrowingTotalFn reads: on prism, 1 M tweets over
// 30 days ended its frequency stage 1.0-1.3 s after the last tweet read
// instead of 1.4-1.6 s).
const BoundedCountWindow = 24 * time.Hour

// FiringDelay is how long after the first tweet of a pane the count of a
// minute is written: the delay of late panes, and the early-firing delay a
// streaming run uses (FrequencyOptions.EarlyFiring).
const FiringDelay = 2 * time.Second

// FrequencyOptions tune TweetFrequencyWith.
type FrequencyOptions struct {
	// Lateness is how long after the end of its window a tweet is still
	// counted (a late pane rewrites the window's counts); later tweets are
	// dropped by the runner. The dedup horizon; DefaultHorizon if 0.
	Lateness time.Duration
	// EarlyFiring, when positive, makes a minute's window fire with its
	// running total this long after the first tweet of each pane before
	// the end of the minute (early panes; FiringDelay is a good value), so
	// that counts are visible while the minute is still going on. Zero
	// means no early panes, which suits a batch run: its windows close
	// when the input ends, and early panes would only write counts that
	// the on-time pane overwrites.
	EarlyFiring time.Duration
	// Window is the width of the windows (CountWindow if 0): any divisor
	// of a day gives the same counts.
	Window time.Duration
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
// tweets: per minute and language, the absolute number of tweets, written
// as soon as it is known and rewritten as it grows.
//
// Tweets are counted per minute and language in 1-hour event-time windows
// (CountWindow, or opts.Window), one key per window, the counts of a window's minutes
// together in one MinuteCounts. The windows fire (FrequencyTrigger) with
// early panes while tweets of the hour arrive (if opts.EarlyFiring is set:
// streaming runs set it), once when the watermark passes the end of the
// hour, and with late panes for tweets that arrive after that but within
// opts.Lateness (later ones are dropped by the runner). Panes accumulate:
// each holds the window's totals so far, which overwrite the stored
// counts, so a retried or re-fired window never adds to them.
//
// Counts are summed per window by a combiner (lifted before the shuffle).
// Runners do not order the panes of a window on their way to the sink (two
// may travel in concurrent bundles), so GrowingTotalFn, keyed by window,
// lets a pane through only if its total is larger than every total it let
// through before, and writes only the cells whose counts changed. On a
// bounded input the on-time pane is the final count, the same as without
// triggers.
func TweetFrequencyWith(s beam.Scope, tweets beam.PCollection, opts FrequencyOptions) beam.PCollection {
	s = s.Scope("TweetFrequency")
	lateness := opts.Lateness
	if lateness <= 0 {
		lateness = DefaultHorizon
	}
	width := opts.Window
	if width <= 0 {
		width = CountWindow
	}
	partial := beam.ParDo(s, &CountLangFn{Width: int64(width / time.Second)}, tweets)
	windowed := beam.WindowInto(s, window.NewFixedWindows(width), partial,
		beam.Trigger(FrequencyTrigger(opts.EarlyFiring)),
		beam.PanesAccumulate(),
		beam.AllowedLateness(lateness))
	totals := beam.CombinePerKey(s, &countsCombineFn{}, windowed)
	return beam.ParDo(s, &GrowingTotalFn{Last: state.MakeValueState[[]byte]("last"), Base: opts.Base}, totals)
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

// MinuteCounts holds tweet counts per minute and language, keyed by the
// row of TweetFrequency: YYYYMMDDhhmm followed by the language tag.
type MinuteCounts struct {
	Counts map[string]int64
}

// Total returns the sum of the counts.
func (m MinuteCounts) Total() int64 {
	var n int64
	for _, c := range m.Counts {
		n += c
	}
	return n
}

// CountLangFn counts the tweets of a batch per minute and language, and
// emits the counts of each window of the batch stamped with the start of
// that window, keyed by it (Unix seconds).
type CountLangFn struct {
	// Width is the width of the windows, in seconds (CountWindow if 0).
	Width int64
}

// ProcessElement emits one MinuteCounts per window of the batch.
func (f *CountLangFn) ProcessElement(b TweetBatch, emit func(beam.EventTime, int64, MinuteCounts)) {
	width := f.Width
	if width <= 0 {
		width = int64(CountWindow / time.Second)
	}
	hours := make(map[int64]MinuteCounts, 1)
	var order []int64
	for i := range b.Tweets {
		h := floorDiv(b.Tweets[i].CreatedAt, width) * width
		m, ok := hours[h]
		if !ok {
			m = MinuteCounts{Counts: make(map[string]int64, 4)}
			hours[h] = m
			order = append(order, h)
		}
		m.Counts[schemas.Minute(b.Tweets[i].CreatedAt)+b.Tweets[i].Lang]++
	}
	for _, h := range order {
		emit(mtime.FromMilliseconds(h*1000), h, hours[h])
	}
}

// countsCombineFn adds MinuteCounts.
type countsCombineFn struct{}

func (countsCombineFn) CreateAccumulator() MinuteCounts {
	return MinuteCounts{Counts: map[string]int64{}}
}

func (c countsCombineFn) AddInput(a, in MinuteCounts) MinuteCounts { return c.MergeAccumulators(a, in) }

func (countsCombineFn) MergeAccumulators(a, b MinuteCounts) MinuteCounts {
	if a.Counts == nil {
		a.Counts = make(map[string]int64, len(b.Counts))
	}
	for k, n := range b.Counts {
		a.Counts[k] += n
	}
	return a
}

func (countsCombineFn) ExtractOutput(a MinuteCounts) MinuteCounts { return a }

// stalePanes counts window panes that GrowingTotalFn held back because a
// larger one had already been let through (panes that overtook each other).
var stalePanes = beam.NewCounter(flow.Namespace, "frequency_stale_panes")

// GrowingTotalFn turns the panes of a window's counts into TweetFrequency
// cells. It lets a pane through only if its total is larger than every
// total it let through before, so that the last count written for a
// minute and language is its largest: in accumulating mode totals only
// grow from pane to pane (tweets are never taken back), so the largest is
// the latest. Of a pane it lets through, it writes the cells whose counts
// differ from the last ones it wrote (an on-time pane after an early pane
// with nothing new writes nothing). The base count of a minute and
// language, if any, is added to its count. It counts the frequency table's
// rows written (see CountTableRows): a minute and language once, however
// often its count is rewritten.
type GrowingTotalFn struct {
	// Last holds the counts written last, per window (encoded MinuteCounts).
	Last state.Value[[]byte]
	// Base holds the counts to continue, added to the counts of their keys.
	Base FrequencyBase

	base map[string]int64 // Base as a map, built once
}

// ProcessElement writes the cells of counts that grew.
func (f *GrowingTotalFn) ProcessElement(ctx context.Context, sp state.Provider, _ int64, counts MinuteCounts, emit func([]schemas.Cell)) error {
	if f.base == nil {
		f.base = make(map[string]int64, f.Base.Len())
		for i, k := range f.Base.Keys {
			f.base[k] = f.Base.Counts[i]
		}
	}
	enc, ok, err := f.Last.Read(sp)
	if err != nil {
		return err
	}
	var last MinuteCounts
	if ok {
		if last, err = decodeMinuteCounts(enc); err != nil {
			return err
		}
	}
	// Base counts are fixed per key and panes only gain keys, so totals
	// with their base grow exactly when the panes' own totals do.
	next := MinuteCounts{Counts: make(map[string]int64, len(counts.Counts))}
	for k, c := range counts.Counts {
		next.Counts[k] = c + f.base[k]
	}
	if ok && next.Total() <= last.Total() {
		if next.Total() < last.Total() {
			stalePanes.Inc(ctx, 1)
		}
		return nil
	}
	var cells []schemas.Cell
	var rows int64 // minutes and languages written for the first time
	n := len(schemas.MinuteLayout)
	for _, k := range sortedKeys(next.Counts) {
		if c := next.Counts[k]; c != last.Counts[k] {
			cells = append(cells, schemas.FrequencyRow{Minute: k[:n], Lang: k[n:], Count: c}.Cell())
			if _, rewrite := last.Counts[k]; !rewrite {
				rows++
			}
		}
	}
	if err := f.Last.Write(sp, encodeMinuteCounts(next)); err != nil {
		return err
	}
	if len(cells) > 0 {
		emit(cells)
	}
	if rows > 0 {
		frequencyRows.Inc(ctx, rows)
	}
	return nil
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// encodeMinuteCounts encodes m with its keys in order: equal counts give
// equal bytes.
func encodeMinuteCounts(m MinuteCounts) []byte {
	e := schemas.ElementEncoder{B: make([]byte, 0, 24*len(m.Counts)+4)}
	e.Uvarint(uint64(len(m.Counts)))
	for _, k := range sortedKeys(m.Counts) {
		e.Str(k)
		e.Varint(m.Counts[k])
	}
	return e.B
}

func decodeMinuteCounts(p []byte) (MinuteCounts, error) {
	d := schemas.NewElementDecoder(p)
	n := d.Count()
	if d.Err() != nil {
		return MinuteCounts{}, d.Err()
	}
	m := MinuteCounts{Counts: make(map[string]int64, n)}
	for i := 0; i < n && d.Err() == nil; i++ {
		k := d.Str()
		m.Counts[k] = d.Varint()
	}
	return m, d.Err()
}
