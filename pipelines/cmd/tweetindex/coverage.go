package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/pipelines/serve"
)

// The coverage of an answer: which parts of its range the recorded runs
// covered (job.ReadCoverage). query prints it as one line on stderr
// (stdout stays the answer), serve sends it as the Tweetindex-Coverage
// header.

// maxCoverageListed is how many spans not covered a coverage line names.
const maxCoverageListed = 5

// answerCoverage returns the coverage of the range of filter f: its
// bounds, the data's extent for an open one (query.Engine.Extent). ok is
// false when an open bound has no extent to take (no tweets stored).
func answerCoverage(ctx context.Context, e *query.Engine, f query.Filter) (spans []job.Span, from, to time.Time, ok bool, err error) {
	from, to = f.From, f.To
	if from.IsZero() || to.IsZero() {
		lo, hi, err := e.Extent(ctx)
		if err != nil {
			return nil, from, to, false, fmt.Errorf("reading the data's extent: %w", err)
		}
		if from.IsZero() {
			from = lo
		}
		if to.IsZero() {
			to = hi
		}
	}
	if from.IsZero() || to.IsZero() || !from.Before(to) {
		return nil, from, to, false, nil
	}
	spans, err = job.ReadCoverage(ctx, e.R, from, to)
	return spans, from, to, err == nil, err
}

// coverageLine renders coverage as one line: "coverage: FROM..TO covered",
// or the spans not covered ("covered except FROM..TO missing, ...").
func coverageLine(spans []job.Span, from, to time.Time, ok bool) string {
	if !ok {
		return "coverage: unknown (no tweets stored: nothing to say of an open range)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "coverage: %s..%s ", coverageTime(from), coverageTime(to))
	if len(spans) == 1 {
		b.WriteString(spans[0].Status)
		if spans[0].Failed > 0 {
			b.WriteString(failedRuns(spans[0].Failed))
		}
		return b.String()
	}
	covered := false
	for _, s := range spans {
		covered = covered || s.Status == job.Covered
	}
	if covered {
		b.WriteString("covered except ")
	}
	listed, left := 0, 0
	for _, s := range spans {
		if covered && s.Status == job.Covered {
			continue
		}
		if listed == maxCoverageListed {
			left++
			continue
		}
		if listed > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s..%s %s", coverageTime(s.From), coverageTime(s.To), s.Status)
		if s.Failed > 0 {
			b.WriteString(failedRuns(s.Failed))
		}
		listed++
	}
	if left > 0 {
		fmt.Fprintf(&b, " and %d more (tweetindex backfill status --from %s --to %s lists them)", left, from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	}
	return b.String()
}

func failedRuns(n int) string {
	if n == 1 {
		return " (1 run failed or unfinished)"
	}
	return fmt.Sprintf(" (%d runs failed or unfinished)", n)
}

// coverageTime writes t to the minute, or to the second when it has seconds.
func coverageTime(t time.Time) string {
	t = t.UTC()
	if t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04Z")
	}
	return t.Format("2006-01-02T15:04:05Z")
}

// maxCoverageSpans is how many spans the API's coverage holds.
const maxCoverageSpans = 50

// serveCoverage is coverage as the API gives it.
func serveCoverage(spans []job.Span, from, to time.Time, ok bool) *serve.Coverage {
	if !ok {
		return &serve.Coverage{Status: job.Unknown, Spans: []serve.CoverageSpan{}}
	}
	c := &serve.Coverage{From: from.UTC().Format(time.RFC3339), To: to.UTC().Format(time.RFC3339), Status: job.StatusOf(spans), Spans: []serve.CoverageSpan{}}
	for i, s := range spans {
		if i == maxCoverageSpans {
			c.SpansLeftOff = len(spans) - i
			break
		}
		c.Spans = append(c.Spans, serve.CoverageSpan{From: s.From.UTC().Format(time.RFC3339), To: s.To.UTC().Format(time.RFC3339), Status: s.Status, FailedRuns: s.Failed})
	}
	return c
}
