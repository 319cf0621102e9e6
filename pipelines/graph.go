package pipelines

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Config selects the graph's source and sink. Exactly one source (Input or
// Kafka) and one sink (Store or Cassandra) must be set; nothing else in the
// graph depends on which.
type Config struct {
	// Input is a glob, file or directory of archived tweet files.
	Input string
	// Archive tunes the file reader (Build sets its Paced from
	// BuildOptions.PacedRead).
	Archive archiveio.Options
	// Kafka, when set, reads tweets from Kafka instead of files.
	Kafka *kafkaio.Config

	// Store is the directory of the embedded store.
	Store string
	// Cassandra, when set, writes to Cassandra instead of the embedded store.
	Cassandra *cassandraio.Config

	// From and To, when set, restrict the run to tweets created in
	// [From, To) (backfills); tweets outside are counted as skipped.
	From, To time.Time

	// Shards is the number of dedup keys a day (0: transforms.DefaultShards,
	// or LocalShards when Run's workers run in this process).
	Shards int
	// Horizon is how long after the end of its day a tweet id is
	// remembered for deduplication, and after the end of its hour a late
	// tweet is still counted (transforms.DefaultHorizon if 0).
	Horizon time.Duration

	// NoCompact leaves a bounded run's bulk-loaded store as the load left
	// it, first-level files and all, for the next writer to compact,
	// instead of compacting it at the end of the run (storeio.CompactOpen):
	// a run that ends sooner (1M tweets: about 20 s), for a store that
	// more runs will write before anyone reads it.
	NoCompact bool

	// MixTokenizers lets the run add tweets to a sink whose term rows were
	// written with another tokenizer version, or before versions were
	// recorded, which Run otherwise refuses (*TokenizerMixError): the
	// sink's schemas.TokenizerParam row then records both (tokenizer.go).
	MixTokenizers bool

	// NoTermDays leaves the per-day term counts (schemas.TermDayRow: query
	// top, trending, complete) out of a sink this run creates, which
	// otherwise keeps them, at the cost of a recount of the days each run
	// stores tweets in, after its pipeline (pipelines/maintain). A sink
	// that holds them (schemas.TermDaysParam) keeps them up to date on
	// every run, whatever NoTermDays says; one without never gets them.
	NoTermDays bool
}

// Validate reports the first configuration error, as one line saying what to fix.
func (c Config) Validate() error {
	switch {
	case c.Input == "" && c.Kafka == nil:
		return errors.New("no input: pass --input 'GLOB' (files, a directory, or a glob of archives) or --kafka BROKERS --topic T")
	case c.Input != "" && c.Kafka != nil:
		return errors.New("two inputs: pass either --input or --kafka, not both")
	case c.Store == "" && c.Cassandra == nil:
		return errors.New("no sink: pass --store DIR for the embedded store, or --cassandra HOSTS")
	case c.Store != "" && c.Cassandra != nil:
		return errors.New("two sinks: pass either --store or --cassandra, not both")
	case c.Shards < 0 || c.Shards > transforms.MaxShards:
		return fmt.Errorf("--shards must be between 1 and %d (0 for the default, %d), got %d", transforms.MaxShards, transforms.DefaultShards, c.Shards)
	case c.Horizon < 0:
		return fmt.Errorf("--horizon must not be negative (0 for the default, %s), got %s", transforms.DefaultHorizon, c.Horizon)
	case !c.From.IsZero() && !c.To.IsZero() && !c.From.Before(c.To):
		return fmt.Errorf("empty range: --from %s is not before --to %s", c.From.Format(time.RFC3339), c.To.Format(time.RFC3339))
	}
	if c.Kafka != nil {
		if err := c.Kafka.Validate(); err != nil {
			return err
		}
	}
	if c.Cassandra != nil {
		if err := c.Cassandra.WithDefaults().Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Source names the run's input for logs and the metadata table.
func (c Config) Source() string {
	if c.Kafka != nil {
		return fmt.Sprintf("kafka:%s/%s", strings.Join(c.Kafka.Brokers, ","), c.Kafka.Topic)
	}
	return "files:" + c.Input
}

// Build adds the tweetindex graph to s:
//
//	source (archive files | Kafka)        -> []schemas.Record batches
//	  -> Parse                             -> tweets keyed by day and dedup shard
//	                                       -> dead letters (cells)
//	  -> Dedup (by id, per day and shard, state expiring after the horizon) -> distinct tweets
//	  -> Identify (the sink's identity table: one stored version per id)   -> tweet batches
//	  -> RawTweets (raw, identity, authors) | TweetFrequency
//	     | one step per derived table (transforms.DerivedTables: TermIndex, GeoTemporalIndex, EdgeIndex) -> cells
//	  -> sink (embedded store | Cassandra: io/sink)
//
// A Kafka read that commits offsets (--commit) commits only what the sinks
// have written (commit after write):
//
//	Parse: an expectation per record (units of work) -> with the dead letters' cells
//	Dedup, Identify: units of dropped tweets and deletes -> with the batches (TweetBatch.Acks)
//	RawTweets and the derived tables' steps: a unit per tweet -> with their cells
//	sinks, once a bundle is durable -> acknowledgements by partition
//	-> CommitAcked (keyed by partition): commits the offset before which every record is finished
//
// opts carries what Run finds out before building: the frequency counts
// a resumed stream continues, and whether the embedded store is bulk
// loaded. Build does no I/O.
func Build(s beam.Scope, cfg Config, opts BuildOptions) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	// ack: records are acknowledged, and offsets committed after the
	// sinks wrote them. Only for a Kafka read that commits: file runs
	// carry no acknowledgement and have no commit stage.
	ack := cfg.Kafka != nil && cfg.Kafka.Commit
	var records beam.PCollection
	if cfg.Kafka != nil {
		kcfg := *cfg.Kafka
		kcfg.CommitAcked = ack
		kcfg.Paced = opts.PacedRead
		records = kafkaio.Read(s, kcfg)
	} else {
		acfg := cfg.Archive
		acfg.Paced = opts.PacedRead
		records = archiveio.Read(s, cfg.Input, acfg)
	}

	freq := FrequencyOptions(cfg, opts.Base) // early firings when streaming; a resumed stream's counts
	parse := &transforms.ParseFn{Shards: cfg.Shards, From: unixOrZero(cfg.From), To: unixOrZero(cfg.To), Ack: ack}
	keyed, dead := beam.ParDo2(s.Scope("Parse"), parse, records)
	var tweets beam.PCollection
	switch {
	case ack:
		tweets = transforms.DedupAcknowledging(s, keyed, cfg.Horizon)
	case opts.DedupInMemory:
		tweets = transforms.DedupInMemory(s, keyed, cfg.Horizon)
	default:
		tweets = transforms.Dedup(s, keyed, cfg.Horizon)
	}
	// The sink's identity table: one stored version per tweet id across
	// runs, deletions applied.
	out := sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra}
	tweets = sink.Identify(s, out, opts.BulkStore, opts.FreshSink, ack, tweets)

	// Each table's cells go to the sink on their own: a Flatten of them
	// would be a fusion break on prism, shipping every cell through the
	// runner once more before the sink. In a stream, counts in flight are
	// marked (see pipelines/maintain/recount.go).
	raw := &transforms.RawFn{MarkCounting: cfg.Streaming(), Ack: ack}
	type table struct {
		cells beam.PCollection
		acked bool // the cells carry acknowledgements
	}
	tables := []table{
		{beam.ParDo(s.Scope("RawTweets"), raw, tweets), ack},
		{transforms.TweetFrequencyWith(s, tweets, freq), false},
		{dead, ack},
	}
	// The marks of the per-day counts the sink keeps: the term step's
	// days (per-day term counts), the edge step's (per-day edge weights).
	noMarks := map[schemas.Table]bool{schemas.TableTerms: !opts.TermDays, schemas.TableEdges: !opts.EdgeDays}
	for _, d := range transforms.DerivedTables() {
		tables = append(tables, table{beam.ParDo(s.Scope(d.Step), &transforms.DerivedFn{Table: d.Table, Ack: ack, NoMarks: noMarks[d.Table]}, tweets), ack})
	}
	var acks []beam.PCollection
	for _, t := range tables {
		if t.acked {
			acks = append(acks, sink.WriteAcked(s, out, t.cells))
		} else {
			sink.Write(s, out, opts.BulkStore, t.cells)
		}
	}
	if ack {
		kcfg := *cfg.Kafka
		kcfg.CommitAcked = true
		kafkaio.CommitAcked(s, kcfg, beam.Flatten(s.Scope("Acknowledged"), acks...))
	}
	return nil
}

// BuildOptions are the inputs of Build that Run works out before the
// graph is built.
type BuildOptions struct {
	// Base holds the frequency counts a resumed stream continues (see
	// FrequencyBase); empty for every other run.
	Base transforms.FrequencyBase
	// BulkStore bulk loads the embedded store (storeio.BulkWrite): for
	// bounded runs whose workers run in this process, which then finish
	// the store (storeio.FlushOpen) when the pipeline is done.
	BulkStore bool
	// DedupInMemory keeps the dedup ids in the worker's memory only
	// (transforms.DedupInMemory): for bounded runs whose runner and
	// workers are this process.
	DedupInMemory bool
	// FreshSink says the sink holds no identity row (FreshSink): no
	// earlier run stored a tweet, so deduplication needs no lookup of a
	// new tweet's id in it.
	FreshSink bool
	// PacedRead makes the file reader and a bounded Kafka read
	// checkpoint, and pause when the run is behind (archiveio.Options.Paced,
	// kafkaio.Config.Paced): for runs whose workers run in this process
	// (local flow control), on a runner that passes a bundle's output on
	// only when it ends. Without it both read in one call per file or
	// partition, and a bounded run's input is a bounded PCollection (a
	// batch job on Flink and Dataflow).
	PacedRead bool
	// TermDays says the sink keeps per-day term counts (Config.NoTermDays):
	// the term step marks the days it stores tweets in, recounted after
	// the pipeline. Without it the term step writes no marks.
	TermDays bool
	// EdgeDays says the sink keeps per-day edge weights
	// (schemas.EdgeDaysParam): the edge step marks the days it writes edge
	// cells in, recounted after the pipeline. Without it the edge step
	// writes no marks.
	EdgeDays bool
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}
