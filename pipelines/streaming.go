package pipelines

import (
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
