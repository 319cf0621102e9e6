package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
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
// runs reads the run records (nil: job.ReadRunRecords of e's tables).
func answerCoverage(ctx context.Context, e *query.Engine, f query.Filter, runs func(context.Context, *query.Engine) ([]job.RunRecord, error)) (spans []job.Span, from, to time.Time, ok bool, err error) {
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
	if runs == nil {
		runs = readRuns
	}
	records, err := runs(ctx, e)
	if err != nil {
		return nil, from, to, false, fmt.Errorf("reading the run records: %w", err)
	}
	return job.CoverageOf(records, from, to, 0), from, to, true, nil
}

// readRuns reads the run records of e's tables.
func readRuns(ctx context.Context, e *query.Engine) ([]job.RunRecord, error) {
	return job.ReadRunRecords(ctx, e.R)
}

// runsCache keeps the run records read for one engine: serve answers
// every request of a view of the tables with one engine, and renews it
// when the tables may have changed (a newer snapshot, a keyspace or a
// store this process writes every --refresh), so that the records are
// read once a view, not once a request (1,000 records take about 4 ms).
type runsCache struct {
	mu     sync.Mutex
	engine *query.Engine
	runs   []job.RunRecord
}

// read returns the run records of e's tables, read once while e is the
// engine asked about.
func (c *runsCache) read(ctx context.Context, e *query.Engine) ([]job.RunRecord, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.engine == e {
		return c.runs, nil
	}
	runs, err := readRuns(ctx, e)
	if err != nil {
		return nil, err
	}
	c.engine, c.runs = e, runs
	return runs, nil
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
