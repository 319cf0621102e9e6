package main

import (
	"flag"
	"fmt"
	"github.com/tweetindex/tweetindex/io/sink"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
)

// sinkFlags select the tables a command writes or reads: the embedded
// store (--store) or a Cassandra keyspace (--cassandra).
type sinkFlags struct {
	store       string
	cassandra   string
	keyspace    string
	consistency string
	ttl         time.Duration
	security    cassandraSecurityFlags
	warned      bool // the warnings of insecure settings are printed
}

func (f *sinkFlags) register(fs *flag.FlagSet, writes bool) {
	fs.StringVar(&f.store, "store", "", "directory of the embedded store")
	fs.StringVar(&f.cassandra, "cassandra", "", "Cassandra contact points, comma-separated host[:port] (instead of --store)")
	fs.StringVar(&f.keyspace, "keyspace", "tweetindex", "Cassandra keyspace")
	fs.StringVar(&f.consistency, "consistency", "LOCAL_QUORUM", "Cassandra consistency level (ONE, QUORUM, LOCAL_QUORUM, ALL, ...)")
	if writes {
		fs.DurationVar(&f.ttl, "ttl", 0, "Cassandra: expire written rows after this long (0: never)")
	}
	f.security.register(fs)
}

// cassandraConfig returns the Cassandra configuration, or nil for the
// embedded store.
func (f *sinkFlags) cassandraConfig() *cassandraio.Config {
	if f.cassandra == "" {
		return nil
	}
	cfg := cassandraio.DefaultConfig(cassandraio.ParseHosts(f.cassandra)...)
	cfg.Keyspace = f.keyspace
	cfg.Consistency = strings.ToUpper(f.consistency)
	cfg.TTL = f.ttl
	f.security.apply(&cfg, false) // checked by check
	return &cfg
}

// config is the sink the flags name.
func (f *sinkFlags) config() sink.Config {
	return sink.Config{Store: f.store, Cassandra: f.cassandraConfig()}
}

// open opens the tables for reading, the store with a block cache of
// cacheSize bytes (0: Pebble's default).
func (f *sinkFlags) open(cacheSize int64) (*sink.Sink, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	c := f.config()
	c.CacheSize = cacheSize
	return sink.Open(c)
}

// openForQuery is open for a question: a store a stream is writing is read
// through its newest snapshot (sink.Config.Snapshot).
func (f *sinkFlags) openForQuery(cacheSize int64) (*sink.Sink, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	c := f.config()
	c.CacheSize, c.Snapshot = cacheSize, true
	return sink.Open(c)
}

// check says what is wrong with the flags' choice of tables.
func (f *sinkFlags) check() error {
	if f.store != "" && f.cassandra != "" {
		return fmt.Errorf("pass either --store or --cassandra, not both")
	}
	if f.cassandra == "" && f.security.given() {
		return fmt.Errorf("the --cassandra-* security flags apply to --cassandra HOSTS")
	}
	if f.cassandra != "" {
		var cfg cassandraio.Config
		if err := f.security.apply(&cfg, !f.warned); err != nil {
			return err
		}
		f.warned = true
	}
	return nil
}

// checkRead says what is wrong with the flags of a command that reads
// tables that must be there (query, dump, forget, backfill status): it
// names one of --store and --cassandra.
func (f *sinkFlags) checkRead() error {
	if f.store == "" && f.cassandra == "" {
		return sink.ErrNoStore
	}
	return f.check()
}

// checkWrite says what is wrong with the flags of a command that writes
// the tables (index, backfill), before it starts.
func (f *sinkFlags) checkWrite() error {
	if err := f.check(); err != nil {
		return err
	}
	switch {
	case f.ttl < 0:
		return fmt.Errorf("--ttl must not be negative, got %s (0: rows never expire)", f.ttl)
	case f.ttl > 0 && f.cassandra == "":
		return fmt.Errorf("--ttl applies to --cassandra only: the embedded store (--store) keeps rows until they are deleted")
	}
	return nil
}

// kafkaFlags select Kafka as the source.
type kafkaFlags struct {
	brokers, topic, group, start, stop string
	commit                             bool
	idle                               time.Duration
	security                           kafkaSecurityFlags
}

func (f *kafkaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.brokers, "kafka", "", "Kafka bootstrap brokers, comma-separated host:port (instead of --input)")
	fs.StringVar(&f.topic, "topic", "", "Kafka topic to read (every partition)")
	fs.StringVar(&f.group, "group", "", "Kafka consumer group: --start group resumes from its committed offsets, --commit writes them")
	fs.StringVar(&f.start, "start", "earliest", "where to start: earliest, latest, group, an RFC 3339 time, or offset:N")
	fs.StringVar(&f.stop, "stop", "", "where to stop (makes the read bounded): latest, an RFC 3339 time, or offset:N; empty reads forever")
	fs.BoolVar(&f.commit, "commit", false, "commit consumed offsets to --group once their output is written")
	fs.DurationVar(&f.idle, "idle-timeout", 0, "advance the watermark of a partition idle this long (default 10s)")
	f.security.register(fs)
}

// config returns the Kafka configuration, or nil when --kafka is not set;
// its error is a mistake in the security flags (a usage error).
func (f *kafkaFlags) config(drain string) (*kafkaio.Config, error) {
	if f.brokers == "" {
		if f.security.given() || f.security.protocol != "PLAINTEXT" {
			return nil, fmt.Errorf("the --kafka-* security flags apply to --kafka BROKERS")
		}
		return nil, nil
	}
	cfg := &kafkaio.Config{
		Brokers:     strings.Split(f.brokers, ","),
		Topic:       f.topic,
		Group:       f.group,
		Start:       f.start,
		Stop:        f.stop,
		Commit:      f.commit,
		IdleTimeout: f.idle,
		Drain:       drain,
	}
	if err := f.security.apply(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// parseTime parses a --from/--to value: RFC 3339, or a UTC date or date
// and hour ("2026-11-01", "2026-11-01T14").
func parseTime(flagName, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02T15", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("--%s %q: want an RFC 3339 time (2026-11-01T14:00:00Z) or a UTC date (2026-11-01)", flagName, s)
}

// stepOf parses a --by value (backfill status, query series): minute,
// hour or day.
func stepOf(by string) (time.Duration, error) {
	steps := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}
	step, ok := steps[by]
	if !ok {
		return 0, fmt.Errorf("--by %q: want minute, hour or day", by)
	}
	return step, nil
}
