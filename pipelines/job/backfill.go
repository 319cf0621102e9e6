package job

import (
	"errors"
	"fmt"
	"time"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/pipelines"
)

// DefaultMargin is how far outside a backfill's range files (or Kafka
// messages) are still read: archives file tweets by when they were
// collected, a little after they were created.
const DefaultMargin = 10 * time.Minute

// Backfill is a run over the tweets created in [From, To), from an archive
// root laid out by date or from Kafka by message time.
type Backfill struct {
	// Root is an archive directory (archiveio.PathInterval lists the
	// layouts); files whose path names no time are not read.
	Root string
	// Kafka, instead of Root, reads the topic's messages stamped in the
	// range widened by Margin; Start and Stop are set from the range.
	Kafka *kafkaio.Config
	// From and To are the range; both are required.
	From, To time.Time
	// Margin widens the range of files and messages read (not of tweets
	// indexed); DefaultMargin if 0, none if negative.
	Margin time.Duration
}

func (b Backfill) margin() time.Duration {
	switch {
	case b.Margin == 0:
		return DefaultMargin
	case b.Margin < 0:
		return 0
	}
	return b.Margin
}

// readRange is the range of files read: [From, To) widened by the margin.
func (b Backfill) readRange() archiveio.TimeRange {
	m := b.margin()
	return archiveio.TimeRange{From: b.From.Add(-m).Unix(), To: b.To.Add(m).Unix()}
}

// Apply sets the source and range of cfg (its sink is the caller's).
func (b Backfill) Apply(cfg *pipelines.Config) error {
	switch {
	case b.From.IsZero() || b.To.IsZero():
		return errors.New("--from and --to are required: the range [from, to) to backfill")
	case !b.From.Before(b.To):
		return fmt.Errorf("empty range: --from %s is not before --to %s", b.From.Format(time.RFC3339), b.To.Format(time.RFC3339))
	case b.Root == "" && b.Kafka == nil:
		return errors.New("no source: pass --root DIR (an archive) or --kafka BROKERS --topic T")
	case b.Root != "" && b.Kafka != nil:
		return errors.New("two sources: pass either --root or --kafka, not both")
	}
	cfg.From, cfg.To = b.From.UTC(), b.To.UTC()
	if b.Kafka != nil {
		k := *b.Kafka
		k.Start = b.From.Add(-b.margin()).UTC().Format(time.RFC3339)
		k.Stop = b.To.Add(b.margin()).UTC().Format(time.RFC3339)
		k.Commit = false
		cfg.Kafka, cfg.Input = &k, ""
		return nil
	}
	cfg.Input, cfg.Kafka = b.Root, nil
	cfg.Archive.Range = b.readRange()
	return nil
}

// Files returns the files under Root that can hold tweets of the range,
// and how many files Root holds in all.
func (b Backfill) Files() (selected []string, total int, err error) {
	all, err := archiveio.Expand(b.Root)
	if err != nil {
		return nil, 0, fmt.Errorf("--root %q: %w", b.Root, err)
	}
	return archiveio.Select(all, b.readRange()), len(all), nil
}
