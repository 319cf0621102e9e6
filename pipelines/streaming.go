package pipelines

import (
	"context"
	"fmt"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Streaming reports whether cfg reads an unbounded input: Kafka without
// Stop, or committing offsets (a read that commits reads as an unbounded
// one, its watermark following tweet time, even with Stop). Files and a
// bounded Kafka read (Stop, no Commit: kafkaio.Config.Bounded) run as a
// batch: their windows close when the input ends.
func (c Config) Streaming() bool {
	return c.Kafka != nil && (c.Kafka.Stop == "" || c.Kafka.Commit)
}

// FrequencyOptions returns the options of the TweetFrequency transform for
// cfg: early firings (a minute's running count written within seconds)
// when the input is unbounded, none in a batch run, whose windows all
// close at the end of the input and whose counts are then written once,
// and which counts in windows of a day (BoundedCountWindow: fewer to close);
// late tweets counted for as long as they are deduplicated (the horizon);
// and base, the counts a resumed stream continues (FrequencyBase).
func FrequencyOptions(cfg Config, base transforms.FrequencyBase) transforms.FrequencyOptions {
	opts := transforms.FrequencyOptions{Lateness: cfg.Horizon, Base: base}
	if cfg.Streaming() {
		opts.EarlyFiring = transforms.FiringDelay
	} else {
		opts.Window = transforms.BoundedCountWindow
	}
	return opts
}

// Resumes reports whether cfg continues earlier runs of the same stream: a
// Kafka read that starts at a consumer group's committed offsets. Such a
// run reads only the records its predecessors did not, so its tweet
// counts continue the ones in the table (see FrequencyBase).
func (c Config) Resumes() bool {
	return c.Kafka != nil && c.Kafka.Start == "group"
}

// FrequencyBase returns the TweetFrequency counts a run continues, read
// from its sink s.
//
// A run that resumes a stream from committed offsets (Config.Resumes) has
// lost its predecessor's window state: the minutes it was counting when it
// was drained were written with their counts so far, and the rest of their
// tweets come to this run. Their counts are the sum of both runs, so this
// run adds the stored count of each minute and language to its own total
// (transforms.FrequencyOptions.Base), as if it had restored the windows'
// state. Only minutes within the dedup horizon of the latest stored minute
// are read: older minutes no longer take tweets.
//
// Every other run (files, a Kafka read from a given position, a bounded
// backfill) recounts from its input, and gets no base: its counts are
// absolute and idempotent.
//
// This relies on the group's runs reading disjoint records, which is what
// a drained run guarantees (it commits exactly where it stopped), and on
// the table's counts of those minutes coming from this stream alone. After
// a crash (no drain) the records read after the last commit are read
// again and counted twice in those minutes, and counts the dead run held
// in window state are missing; the resumed run recounts both kinds of
// minutes from the raw table when its pipeline is done (the identity
// table marks the first, the dead run's counting marks the second: see
// pipelines/maintain/recount.go).
func FrequencyBase(ctx context.Context, cfg Config, s sink.Reader) (transforms.FrequencyBase, error) {
	var base transforms.FrequencyBase
	if !cfg.Resumes() {
		return base, nil
	}
	var stored []schemas.FrequencyRow
	err := s.Scan(ctx, schemas.TableFrequency, nil, nil, func(key, value []byte) error {
		r, err := schemas.DecodeFrequency(key, value)
		if err != nil {
			return err
		}
		stored = append(stored, r)
		return nil
	})
	if err != nil {
		return base, fmt.Errorf("reading the counts to resume: %w", err)
	}
	if len(stored) == 0 {
		return base, nil
	}
	horizon := cfg.Horizon
	if horizon <= 0 {
		horizon = transforms.DefaultHorizon
	}
	latest, err := time.Parse(schemas.MinuteLayout, stored[len(stored)-1].Minute) // keys sort by minute
	if err != nil {
		return base, fmt.Errorf("reading the counts to resume: minute %q: %w", stored[len(stored)-1].Minute, err)
	}
	from := latest.Add(-horizon - transforms.Minute).Format(schemas.MinuteLayout)
	for _, r := range stored {
		if r.Minute >= from {
			base.Add(r)
		}
	}
	return base, nil
}
