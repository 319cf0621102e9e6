package serve

import (
	"context"
	"errors"
	"io"
	"net/url"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// Question is one question the server answers at /api/NAME.
type Question struct {
	Name    string
	Summary string
	// Params are the parameters it takes, in the order to list them.
	Params []Param
	// Formats are the formats it answers in, the default first
	// (jsonl); a request picks one with the format parameter.
	Formats []string
	// Retrieval says that it answers with tweets in row key order, in
	// pages (limit, cursor).
	Retrieval bool
	// Answer answers params with engine e, writing the answer to w as
	// it goes. Its error is a BadRequest error when params are wrong
	// (found before anything is written).
	Answer func(ctx context.Context, e *query.Engine, params url.Values, w io.Writer) (Result, error)
	// Coverage, if not nil, says how complete the answer is
	// (HeaderCoverage); it is asked before Answer.
	Coverage CoverageFunc
}

// Param is a parameter of a question.
type Param struct {
	Name    string
	Type    string // "string", "integer" or "boolean"
	Default string // as text; "" for none
	Help    string
}

// Result is what an answer says besides its rows.
type Result struct {
	// NextCursor is the cursor of the next page, when the page is full.
	NextCursor string
	// Notes are the notes the command line writes on stderr (a language
	// tag the range does not hold, a term that tokenizes to nothing).
	Notes []string
}

// badRequest is an error in a request's parameters.
type badRequest struct{ err error }

func (b badRequest) Error() string { return b.err.Error() }
func (b badRequest) Unwrap() error { return b.err }

// BadRequest marks err as the request's fault: the answer is 400 with its
// message.
func BadRequest(err error) error {
	if err == nil {
		return nil
	}
	return badRequest{err}
}

// IsBadRequest reports whether err is a BadRequest error.
func IsBadRequest(err error) bool { return errors.As(err, new(badRequest)) }

// notIndexed is a question the tables were not indexed to answer.
type notIndexed struct{ err error }

func (n notIndexed) Error() string { return n.err.Error() }
func (n notIndexed) Unwrap() error { return n.err }

// NotIndexed marks err as a question the tables cannot answer as they
// were indexed (top on a store without per-day term counts): the answer
// is 409 with its message, which says how to index them.
func NotIndexed(err error) error {
	if err == nil {
		return nil
	}
	return notIndexed{err}
}

// IsNotIndexed reports whether err is a NotIndexed error.
func IsNotIndexed(err error) bool { return errors.As(err, new(notIndexed)) }

// contentTypes are the media types of the formats.
var contentTypes = map[string]string{
	"jsonl":   "application/x-ndjson; charset=utf-8",
	"csv":     "text/csv; charset=utf-8",
	"geojson": "application/geo+json; charset=utf-8",
}
