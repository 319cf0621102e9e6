package serve

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// HeaderCoverage is the coverage of an answer's range (Coverage), as
// JSON: which parts of it the recorded runs covered. It comes with every
// answer (200), before its rows.
const HeaderCoverage = "Tweetindex-Coverage"

// Coverage is how complete an answer is: the question's range (an open
// bound is the data's extent) cut into spans, each covered, partial,
// missing, empty or unknown (tweetindex backfill status's states).
// Status is the spans' one state, or partial when they differ. A range
// that cannot be told (no tweets stored and an open bound) has no bounds,
// no spans and status unknown.
type Coverage struct {
	From   string         `json:"from,omitempty"`
	To     string         `json:"to,omitempty"`
	Status string         `json:"status"`
	Spans  []CoverageSpan `json:"spans"`
	// SpansLeftOff counts the spans after the last one given.
	SpansLeftOff int `json:"spans_left_off,omitempty"`
}

// CoverageSpan is a span [From, To) of one state; FailedRuns counts the
// runs over it that failed or never finished (and were not run again).
type CoverageSpan struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Status     string `json:"status"`
	FailedRuns int    `json:"failed_runs,omitempty"`
}

// CoverageFunc returns the coverage of the range a request asks about,
// or nil when its parameters are wrong (the answer then says why).
type CoverageFunc func(ctx context.Context, e *query.Engine, params url.Values) (*Coverage, error)

// header renders c as the value of HeaderCoverage.
func (c *Coverage) header() string {
	b, _ := json.Marshal(c)
	return string(b)
}
