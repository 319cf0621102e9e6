package job

import (
	"slices"
	"time"
)

// Coverage states of a time span, as backfill status reports them.
const (
	Covered = "covered" // every instant is in the range of a succeeded run
	Partial = "partial" // some of it is, or a run over it failed or never finished
	Missing = "missing" // no run touched it
	Empty   = "empty"   // only runs that read nothing (RunEmpty) touched it
	// Unknown: no recorded range touched it, and runs are recorded that
	// say neither the range they were asked for nor the one they read
	// (runs recorded before observed ranges were, or stopped before the
	// runner reported): they may have.
	Unknown = "unknown"
)

// Span is a stretch of event time [From, To) with one coverage state.
type Span struct {
	From, To time.Time
	Status   string
	// Failed counts the failed or unfinished runs whose range meets the span.
	Failed int
}

// runRange is a run's event-time range; zero bounds are open.
type runRange struct {
	from, to   time.Time
	status     string
	superseded bool // did not succeed, but was run again (Superseded)
}

// rangeOf returns r's asked range.
func rangeOf(r RunRecord) runRange {
	rr := runRange{status: r.Status}
	rr.from, _ = time.Parse(time.RFC3339, r.From)
	rr.to, _ = time.Parse(time.RFC3339, r.To)
	return rr
}

// asked reports whether r was given an event-time range.
func (r RunRecord) asked() bool { return r.From != "" || r.To != "" }

// rangesOf returns r's ranges: its asked range, or those it observed
// (seen.go), or none if it recorded neither.
func rangesOf(r RunRecord) []runRange {
	if r.asked() {
		return []runRange{rangeOf(r)}
	}
	if r.Seen == nil {
		return nil
	}
	status := r.Status
	if status == RunRunning {
		// A stream under way, whose record says what it has read so far
		// (recordStreamSeen): covered as far as that.
		status = RunSucceeded
	}
	var out []runRange
	for _, sp := range r.Seen.Spans {
		rr := runRange{status: status}
		var err1, err2 error
		rr.from, err1 = time.Parse(time.RFC3339, sp.From)
		rr.to, err2 = time.Parse(time.RFC3339, sp.To)
		if err1 == nil && err2 == nil && rr.from.Before(rr.to) {
			out = append(out, rr)
		}
	}
	return out
}

// Superseded reports, for each of runs, whether it failed or was
// interrupted and has since been run again: succeeded runs started after
// it cover its whole range (for a run without a range: a succeeded run of
// the same source, without a range, started after it). backfill status
// lists such runs apart and does not count them as incomplete, so that an
// alert on a failed range clears once the range has been run again.
func Superseded(runs []RunRecord) []bool {
	out := make([]bool, len(runs))
	for i, r := range runs {
		if r.Status != RunFailed && r.Status != RunInterrupted {
			continue
		}
		started, _ := time.Parse(time.RFC3339Nano, r.Started)
		var later []runRange
		for _, s := range runs {
			if at, _ := time.Parse(time.RFC3339Nano, s.Started); s.Status != RunSucceeded || !at.After(started) {
				continue
			}
			if !r.asked() {
				if !s.asked() && s.Source == r.Source {
					out[i] = true
				}
				continue
			}
			later = append(later, rangesOf(s)...)
		}
		if r.asked() {
			rr := rangeOf(r)
			out[i] = !rr.from.IsZero() && !rr.to.IsZero() && statusOf(later, rr.from, rr.to) == Covered
		}
	}
	return out
}

func (r runRange) meets(from, to time.Time) bool {
	return (r.from.IsZero() || r.from.Before(to)) && (r.to.IsZero() || r.to.After(from))
}

// CoverageOf cuts [from, to) into steps (an hour, a day; with step 0, at
// the bounds of the runs' ranges) and says of each whether the runs cover
// it, and how many runs over it did not succeed and were not run again
// since (Superseded); neighbouring steps of one state are merged.
// A span that only runs which read nothing (RunEmpty) touched is Empty.
// A run's range is the one it was asked for (--from/--to), or for a run
// given none the one it observed (RunRecord.Seen); a run that records
// neither makes the spans no range touches Unknown rather than Missing. A
// run still marked running counts as not finished (it is running, or it
// died), but for the range a stream under way has read so far
// (recordStreamSeen), which counts as covered.
func CoverageOf(runs []RunRecord, from, to time.Time, step time.Duration) []Span {
	var ranges []runRange
	unrecorded := false
	superseded := Superseded(runs)
	for i, r := range runs {
		rs := rangesOf(r)
		if !r.asked() && r.Seen == nil && !superseded[i] {
			// (A run of its source that succeeded since read what it did.)
			unrecorded = true
		}
		for _, rr := range rs {
			rr.superseded = superseded[i]
			ranges = append(ranges, rr)
		}
	}
	if step <= 0 {
		return coverageByBounds(ranges, from, to, unrecorded)
	}
	var spans []Span
	for t := from; t.Before(to); {
		end := t.Add(step).Truncate(step)
		if end.After(to) || !end.After(t) {
			end = to
		}
		sp := Span{From: t, To: end, Status: statusOf(ranges, t, end)}
		if sp.Status == Missing && unrecorded {
			sp.Status = Unknown
		}
		for _, r := range ranges {
			if r.status != RunSucceeded && r.status != RunEmpty && !r.superseded && r.meets(t, end) {
				sp.Failed++
			}
		}
		spans = appendSpan(spans, sp)
		t = end
	}
	return spans
}

// appendSpan appends sp to spans, or extends the last span to sp's end if
// sp follows it in the same state.
func appendSpan(spans []Span, sp Span) []Span {
	if n := len(spans); n > 0 && spans[n-1].Status == sp.Status && spans[n-1].To.Equal(sp.From) {
		spans[n-1].To = sp.To
		spans[n-1].Failed = max(spans[n-1].Failed, sp.Failed)
		return spans
	}
	return append(spans, sp)
}

// coverageByBounds is CoverageOf with step 0: [from, to) cut at the
// bounds of the ranges, in one sweep over them. Between two bounds each
// range holds all of the piece or none of it: covered if a succeeded
// range holds it, else partial if a range that read something holds it,
// else empty if a range that read nothing does, else missing (unknown
// when runs record no range).
func coverageByBounds(ranges []runRange, from, to time.Time, unrecorded bool) []Span {
	type event struct {
		at                      time.Time
		succeeded, other, empty int // ranges that begin (+1) or end (-1)
		failed                  int
	}
	var events []event
	for _, r := range ranges {
		lo, hi := r.from, r.to
		if lo.IsZero() || lo.Before(from) {
			lo = from
		}
		if hi.IsZero() || hi.After(to) {
			hi = to
		}
		if !lo.Before(hi) {
			continue
		}
		var e event
		switch r.status {
		case RunSucceeded:
			e.succeeded = 1
		case RunEmpty:
			e.empty = 1
		default:
			e.other = 1
			if !r.superseded {
				e.failed = 1
			}
		}
		begin, end := e, event{succeeded: -e.succeeded, other: -e.other, empty: -e.empty, failed: -e.failed}
		begin.at, end.at = lo, hi
		events = append(events, begin, end)
	}
	slices.SortFunc(events, func(a, b event) int { return a.at.Compare(b.at) })
	var spans []Span
	var now event // the ranges that hold the piece from t on
	for t, i := from, 0; t.Before(to); {
		for ; i < len(events) && !events[i].at.After(t); i++ {
			now.succeeded += events[i].succeeded
			now.other += events[i].other
			now.empty += events[i].empty
			now.failed += events[i].failed
		}
		end := to
		if i < len(events) && events[i].at.Before(to) {
			end = events[i].at
		}
		sp := Span{From: t, To: end, Status: Missing, Failed: now.failed}
		switch {
		case now.succeeded > 0:
			sp.Status = Covered
		case now.other > 0:
			sp.Status = Partial
		case now.empty > 0:
			sp.Status = Empty
		case unrecorded:
			sp.Status = Unknown
		}
		spans = appendSpan(spans, sp)
		t = end
	}
	return spans
}

// statusOf says how the runs cover [from, to).
func statusOf(ranges []runRange, from, to time.Time) string {
	// Walk from "from" forward over succeeded runs that start at or before
	// the point reached: covered if the walk reaches "to".
	reached := from
	for moved := true; moved && reached.Before(to); {
		moved = false
		for _, r := range ranges {
			if r.status == RunSucceeded && !r.from.After(reached) && (r.to.IsZero() || r.to.After(reached)) {
				if r.to.IsZero() {
					reached = to
				} else {
					reached = r.to
				}
				moved = true
			}
		}
	}
	if !reached.Before(to) {
		return Covered
	}
	empty := false
	for _, r := range ranges {
		if r.meets(from, to) {
			if r.status != RunEmpty {
				return Partial
			}
			empty = true
		}
	}
	if empty {
		return Empty
	}
	return Missing
}

// RunsExtent returns the earliest start and the latest end of the ranges
// of runs, asked or observed (zero times if no run has a range).
func RunsExtent(runs []RunRecord) (from, to time.Time) {
	for _, r := range runs {
		for _, rr := range rangesOf(r) {
			if f := rr.from; !f.IsZero() && (from.IsZero() || f.Before(from)) {
				from = f
			}
			if t := rr.to; t.After(to) {
				to = t
			}
		}
	}
	return from, to
}

// StatusOf sums spans up in one state: the spans' own if they share
// one, else Partial.
func StatusOf(spans []Span) string {
	if len(spans) == 0 {
		return Missing
	}
	st := spans[0].Status
	for _, s := range spans[1:] {
		if s.Status != st {
			return Partial
		}
	}
	return st
}
