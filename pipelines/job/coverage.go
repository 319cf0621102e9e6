package job

import (
	"time"
)

// Coverage states of a time span, as backfill status reports them.
const (
	Covered = "covered" // every instant is in the range of a succeeded run
	Partial = "partial" // some of it is, or a run over it failed or never finished
	Missing = "missing" // no run touched it
	Empty   = "empty"   // only runs that read nothing (RunEmpty) touched it
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

// rangeOf returns r's range.
func rangeOf(r RunRecord) runRange {
	rr := runRange{status: r.Status}
	rr.from, _ = time.Parse(time.RFC3339, r.From)
	rr.to, _ = time.Parse(time.RFC3339, r.To)
	return rr
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
			if r.From == "" && r.To == "" {
				if s.From == "" && s.To == "" && s.Source == r.Source {
					out[i] = true
				}
				continue
			}
			later = append(later, rangeOf(s))
		}
		if r.From != "" || r.To != "" {
			rr := rangeOf(r)
			out[i] = !rr.from.IsZero() && !rr.to.IsZero() && statusOf(later, rr.from, rr.to) == Covered
		}
	}
	return out
}

func (r runRange) meets(from, to time.Time) bool {
	return (r.from.IsZero() || r.from.Before(to)) && (r.to.IsZero() || r.to.After(from))
}

// CoverageOf cuts [from, to) into steps (an hour, a day) and says of each
// whether the runs cover it, and how many runs over it did not succeed
// and were not run again since (Superseded); neighbouring steps of one
// state are merged.
// A span that only runs which read nothing (RunEmpty) touched is Empty.
// Runs without a range (an index run over whole files) are not counted:
// what they covered is not recorded. A run still marked running counts as
// not finished: it is running, or it died.
func CoverageOf(runs []RunRecord, from, to time.Time, step time.Duration) []Span {
	var ranges []runRange
	superseded := Superseded(runs)
	for i, r := range runs {
		if r.From == "" && r.To == "" {
			continue
		}
		rr := rangeOf(r)
		rr.superseded = superseded[i]
		ranges = append(ranges, rr)
	}
	var spans []Span
	for t := from; t.Before(to); {
		end := t.Add(step).Truncate(step)
		if end.After(to) || !end.After(t) {
			end = to
		}
		sp := Span{From: t, To: end, Status: statusOf(ranges, t, end)}
		for _, r := range ranges {
			if r.status != RunSucceeded && r.status != RunEmpty && !r.superseded && r.meets(t, end) {
				sp.Failed++
			}
		}
		if n := len(spans); n > 0 && spans[n-1].Status == sp.Status && spans[n-1].To.Equal(t) {
			spans[n-1].To = end
			spans[n-1].Failed = max(spans[n-1].Failed, sp.Failed)
		} else {
			spans = append(spans, sp)
		}
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
// of runs (zero times if no run has a range).
func RunsExtent(runs []RunRecord) (from, to time.Time) {
	for _, r := range runs {
		if f, err := time.Parse(time.RFC3339, r.From); err == nil && (from.IsZero() || f.Before(from)) {
			from = f
		}
		if t, err := time.Parse(time.RFC3339, r.To); err == nil && t.After(to) {
			to = t
		}
	}
	return from, to
}
