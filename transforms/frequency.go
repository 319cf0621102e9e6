package transforms

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x0[TweetBatch, func(string, int64)](&CountLangFn{})
	register.Emitter2[string, int64]()
	register.Function2x1(sum)
	register.DoFn3x0[string, int64, func([]schemas.Cell)](&FrequencyCellFn{})
}

// TweetFrequency returns the TweetFrequency cells of deduplicated tweets:
// per 1-minute event-time window and language, the absolute number of
// tweets. Counts are summed per key by a combiner (lifted before the
// shuffle), and written as absolute values so a retried or re-fired window
// overwrites its cell instead of adding to it.
func TweetFrequency(s beam.Scope, tweets beam.PCollection) beam.PCollection {
	s = s.Scope("TweetFrequency")
	partial := beam.ParDo(s, &CountLangFn{}, tweets)
	totals := beam.CombinePerKey(s, sum, partial)
	return beam.ParDo(s, &FrequencyCellFn{}, totals)
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

// FrequencyCellFn turns a total per minute and language into its cell.
type FrequencyCellFn struct{}

// ProcessElement emits the cell of one minute and language.
func (f *FrequencyCellFn) ProcessElement(key string, count int64, emit func([]schemas.Cell)) {
	n := len(schemas.MinuteLayout)
	emit([]schemas.Cell{schemas.FrequencyRow{Minute: key[:n], Lang: key[n:], Count: count}.Cell()})
}
