package job

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// A run given no event-time range (an index run over files, a Kafka
// stream) records the range it observed instead (RunRecord.Seen): the
// minutes of the tweets it read, [first minute, last minute + 1), per
// source (a file, a member of an archive, a Kafka partition), the
// sources' ranges that overlap or touch merged. Such a range says the run
// read its sources' tweets of those minutes: coverage counts it as it
// counts an asked range (a backfill's --from/--to), and a time between
// two sources' ranges (two files of different days) as not covered. What
// the sources did not hold (a day missing from every file read) it cannot
// see.
//
// The ranges per source are known when the run's workers run in its
// process (prism, LOOPBACK) and no other run overlapped it; otherwise the
// run records one range, from the earliest to the latest tweet, from the
// runner's metrics (flow.DistributionCreatedAt); a runner that reports no
// such distribution for a run that read items records nothing (nil: not
// known), one that read none an empty range.

// maxSeenSpans bounds the spans of a record: beyond, the spans across the
// shortest gaps are joined.
const maxSeenSpans = 64

// Seen is the event time a run without a range observed.
type Seen struct {
	// Spans are [from, to) ranges of whole minutes, in order and apart;
	// none for a run that read no tweet.
	Spans []SeenSpan `json:"spans"`
}

// SeenSpan is one range of Seen, RFC 3339 times.
type SeenSpan struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// seenOf returns the observed range of extents (Unix seconds), whole
// minutes, merged and bounded to maxSeenSpans.
func seenOf(extents []flow.Extent) *Seen {
	type iv struct{ from, to int64 }
	var ivs []iv
	for _, e := range extents {
		ivs = append(ivs, iv{floorMinute(e.Min), floorMinute(e.Max) + 60})
	}
	slices.SortFunc(ivs, func(a, b iv) int { return cmp.Compare(a.from, b.from) })
	var merged []iv
	for _, v := range ivs {
		if n := len(merged); n > 0 && v.from <= merged[n-1].to {
			merged[n-1].to = max(merged[n-1].to, v.to)
			continue
		}
		merged = append(merged, v)
	}
	for len(merged) > maxSeenSpans {
		// Join the two spans across the shortest gap.
		best := 1
		for i := 2; i < len(merged); i++ {
			if merged[i].from-merged[i-1].to < merged[best].from-merged[best-1].to {
				best = i
			}
		}
		merged[best-1].to = merged[best].to
		merged = slices.Delete(merged, best, best+1)
	}
	s := &Seen{Spans: []SeenSpan{}}
	for _, v := range merged {
		s.Spans = append(s.Spans, SeenSpan{From: unixText(v.from), To: unixText(v.to)})
	}
	return s
}

func floorMinute(sec int64) int64 {
	m := sec % 60
	if m < 0 {
		m += 60
	}
	return sec - m
}

func unixText(sec int64) string { return time.Unix(sec, 0).UTC().Format(time.RFC3339) }

// runSeen returns what a run without a range observed: from this
// process's extents per source when the run's counts are this process's
// (runCounts.local), else from the runner's metrics (r), or nil when
// neither tells (a run stopped before the runner reported).
func runSeen(r beam.PipelineResult, c runCounts, inProcess bool) *Seen {
	if c.local(inProcess) {
		var extents []flow.Extent
		for _, e := range flow.SeenBySource() {
			extents = append(extents, e)
		}
		return seenOf(extents)
	}
	if r == nil {
		return nil
	}
	var extents []flow.Extent
	for _, d := range r.Metrics().AllMetrics().Distributions() {
		if d.Key.Namespace != flow.Namespace || d.Key.Name != flow.DistributionCreatedAt {
			continue
		}
		if v := d.Result(); v.Count > 0 {
			extents = append(extents, flow.Extent{Min: v.Min, Max: v.Max})
		}
	}
	if len(extents) == 0 {
		for _, c := range r.Metrics().AllMetrics().Counters() {
			if c.Key.Namespace == flow.Namespace && c.Key.Name == flow.CounterRead && c.Result() > 0 {
				return nil // items read, and no distribution of their times: not known
			}
		}
	}
	if len(extents) > 1 {
		// One per step that counts it: the run's is from the first to the last.
		lo, hi := extents[0], extents[0]
		for _, e := range extents {
			lo.Min, hi.Max = min(lo.Min, e.Min), max(hi.Max, e.Max)
		}
		extents = []flow.Extent{{Min: lo.Min, Max: hi.Max}}
	}
	return seenOf(extents)
}

// streamSeenEvery is how often a stream whose workers run in its process
// rewrites its record, still running, with the range it has read so far
// (recordStreamSeen).
var streamSeenEvery = 30 * time.Second

// recordStreamSeen rewrites rec, the record of a stream under way, every
// streamSeenEvery with the range it had read a tick before (seenBefore):
// coverage counts the range of a running stream's record as covered (the
// stream reads on; if its process dies, its record reads as interrupted,
// partial). stop ends it, once the last rewrite is done: call it before
// the run's end is recorded. A rewrite that fails is tried again at the
// next tick; the end of the run records the whole range anyway.
func recordStreamSeen(ctx context.Context, cfg pipelines.Config, rec RunRecord, c runCounts) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		s, err := openSink(cfg)
		if err != nil {
			return
		}
		defer s.Close()
		tick := time.NewTicker(streamSeenEvery)
		defer tick.Stop()
		var prev map[string]flow.Extent
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if !c.local(true) {
				continue // another run shares the process's extents
			}
			if prev != nil {
				rec.Seen = seenBefore(prev)
				writeRunRecord(ctx, s, rec)
			}
			prev = flow.SeenBySource()
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// seenBefore returns the range of extents without the minute of each
// source's latest tweet: the minutes a stream had read before it, which
// it has written a tick later (what it read of the latest it may still
// be reading).
func seenBefore(extents map[string]flow.Extent) *Seen {
	var before []flow.Extent
	for _, e := range extents {
		if last := floorMinute(e.Max) - 1; last >= e.Min {
			before = append(before, flow.Extent{Min: e.Min, Max: last})
		}
	}
	return seenOf(before)
}
