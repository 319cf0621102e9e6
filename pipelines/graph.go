package pipelines

import (
	"errors"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/transforms"
)

// Config selects the graph's source and sink. Exactly one source and one
// sink must be set.
type Config struct {
	// Input is a glob, file or directory of archived tweet files.
	Input string
	// Archive tunes the file reader.
	Archive archiveio.Options

	// Store is the directory of the embedded store.
	Store string

	// Shards is the number of dedup keys per minute (transforms.DefaultShards if 0).
	Shards int
	// Horizon is how long after its minute a tweet id is remembered for
	// deduplication (transforms.DefaultHorizon if 0).
	Horizon time.Duration
}

// Validate reports the first configuration error, as one line saying what to fix.
func (c Config) Validate() error {
	switch {
	case c.Input == "":
		return errors.New("no input: pass --input 'GLOB' (files, a directory, or a glob of archives)")
	case c.Store == "":
		return errors.New("no sink: pass --store DIR for the embedded store")
	case c.Shards < 0:
		return errors.New("--shards must be positive")
	}
	return nil
}

// Build adds the tweetindex graph to s:
//
//	source (archive files | Kafka)        -> []schemas.Record batches
//	  -> Parse                             -> tweets keyed by dedup shard, stamped with their minute
//	                                       -> dead letters (cells)
//	  -> Dedup (by id, per 1-minute window, expiring state) -> distinct tweets
//	  -> RawTweets | TermIndex | TweetFrequency | GeoTemporalIndex -> cells
//	  -> sink (embedded store | Cassandra)
func Build(s beam.Scope, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	records := archiveio.Read(s, cfg.Input, cfg.Archive)

	keyed, dead := beam.ParDo2(s.Scope("Parse"), &transforms.ParseFn{Shards: cfg.Shards}, records)
	tweets := transforms.Dedup(s, keyed, cfg.Horizon)

	cells := beam.Flatten(s,
		global(s, transforms.RawTweets(s, tweets)),
		global(s, transforms.TermIndex(s, tweets)),
		global(s, transforms.TweetFrequency(s, tweets)),
		global(s, transforms.GeoTemporalIndex(s, tweets)),
		global(s, dead),
	)
	storeio.Write(s, cfg.Store, cells)
	return nil
}

// global re-windows cells into the global window so that every table's
// cells, and the dead letters that were never windowed, can be flattened
// into one sink.
func global(s beam.Scope, cells beam.PCollection) beam.PCollection {
	return beam.WindowInto(s, window.NewGlobalWindows(), cells)
}
