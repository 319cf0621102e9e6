package transforms

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x0[TweetBatch, func([]schemas.Cell)](&RawFn{})
}

// RawTweets returns the RawTwitterData cells of deduplicated tweets: row key
// -> stored JSON.
func RawTweets(s beam.Scope, tweets beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("RawTweets"), &RawFn{}, tweets)
}

// RawFn turns a batch of tweets into RawTwitterData cells.
type RawFn struct{}

// ProcessElement emits one cell per tweet.
func (f *RawFn) ProcessElement(b TweetBatch, emit func([]schemas.Cell)) {
	emit(RawCells(make([]schemas.Cell, 0, len(b.Tweets)), b.Tweets))
}

// RawCells appends the RawTwitterData cells of tweets to dst.
func RawCells(dst []schemas.Cell, tweets []schemas.Tweet) []schemas.Cell {
	for i := range tweets {
		dst = append(dst, schemas.RawRow{Key: tweets[i].RowKey, JSON: tweets[i].JSON}.Cell())
	}
	return dst
}
