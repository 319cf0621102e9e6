package maintain

import (
	"context"
	"fmt"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// FrequencySnapshot is the TweetFrequency table at one moment: minute
// (YYYYMMDDhhmm) to language to count. The command's --watch prints how
// successive snapshots differ.
type FrequencySnapshot map[string]map[string]int64

// ReadFrequency reads the whole TweetFrequency table of src.
func ReadFrequency(ctx context.Context, src sink.Reader) (FrequencySnapshot, error) {
	snap := FrequencySnapshot{}
	err := src.ScanAll(ctx, schemas.TableFrequency, func(key, value []byte) error {
		r, err := schemas.DecodeFrequency(key, value)
		if err != nil {
			return err
		}
		langs := snap[r.Minute]
		if langs == nil {
			langs = map[string]int64{}
			snap[r.Minute] = langs
		}
		langs[r.Lang] = r.Count
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the frequency table: %w", err)
	}
	return snap, nil
}

// Total returns the sum of the counts of minute, or of every minute when
// minute is empty.
func (s FrequencySnapshot) Total(minute string) int64 {
	var n int64
	for m, langs := range s {
		if minute != "" && m != minute {
			continue
		}
		for _, c := range langs {
			n += c
		}
	}
	return n
}
