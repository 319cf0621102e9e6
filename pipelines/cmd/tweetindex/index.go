package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/transforms"
)

// drainName names the Kafka read's drain signal in this process.
const drainName = "tweetindex-index"

func runIndex(args []string) error {
	fs := flag.CommandLine // Beam's own flags live here too.
	input := fs.String("input", "", "glob, file or directory of archived tweet files (.json, .jsonl, .gz, .bz2, .zst, .tar, .zip, tweets.js)")
	var sink sinkFlags
	sink.register(fs, true)
	var kafka kafkaFlags
	kafka.register(fs)
	summary := fs.String("summary", "", "also write the run summary as a JSON object to this file")
	shards := fs.Int("shards", 0, "dedup keys per minute (default 16)")
	horizon := fs.Duration("horizon", transforms.DefaultHorizon, "how long past its minute (event time) a tweet id is remembered for deduplication, and late tweets still re-fire their minute's count")
	from := fs.String("from", "", "index only tweets created at or after this time (RFC 3339 or YYYY-MM-DD, UTC)")
	to := fs.String("to", "", "index only tweets created before this time (RFC 3339 or YYYY-MM-DD, UTC)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	watch := fs.Duration("watch", 0, "print the per-minute tweet counts that changed, every this long, on stderr (streaming; 0: off)")
	checkpoint := fs.Duration("kafka-checkpoint", kafkaio.DefaultCheckpointInterval, "Kafka: longest a partition is read before its tweets go on to the tables (prism reads the partitions one after another in a bundle)")
	memprofile := fs.String("memprofile", "", "write a heap profile of the run's peak to this file (go tool pprof)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: tweetindex index (--input 'GLOB' | --kafka BROKERS --topic T) (--store DIR | --cassandra HOSTS) [--summary FILE] [Beam flags]\n\nFlags (Beam's included):\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (quote the --input glob so the shell does not expand it)", fs.Arg(0))
	}
	cfg := pipelines.Config{
		Input:     *input,
		Kafka:     kafka.config(drainName),
		Store:     sink.store,
		Cassandra: sink.cassandraConfig(),
		Shards:    *shards,
		Horizon:   *horizon,
	}
	if cfg.Kafka != nil {
		cfg.Kafka.CheckpointInterval = *checkpoint
	}
	var err error
	if cfg.From, err = parseTime("from", *from); err != nil {
		return err
	}
	if cfg.To, err = parseTime("to", *to); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Input != "" {
		// Fail before the pipeline starts, in one line, if nothing matches.
		if _, err := archiveio.Expand(cfg.Input); err != nil {
			return fmt.Errorf("--input %q: %w", cfg.Input, err)
		}
	}
	beam.Init()
	log.SetupLogging("warn", "text")
	limitMemory()

	if cfg.Kafka != nil {
		// Ctrl-C drains the Kafka read: the pipeline writes what it has
		// read, commits offsets (with --commit) and ends with its summary.
		// A second Ctrl-C kills the process.
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		go func() {
			<-sig
			fmt.Fprintln(os.Stderr, "draining the Kafka read (Ctrl-C again to kill)...")
			kafkaio.Drain(drainName)
			signal.Stop(sig)
		}()
	}
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *memprofile != "" {
		defer startHeapProfile(*memprofile)()
	}
	stopWatch := func() {}
	if *watch > 0 {
		tables, err := pipelines.OpenTables(cfg.Store, cfg.Cassandra, false)
		if err != nil {
			return err
		}
		defer tables.Close()
		stopWatch = pipelines.WatchFrequency(tables, *watch, os.Stderr)
		defer stopWatch() // before the tables close
	}
	sum, err := pipelines.Run(context.Background(), cfg)
	stopWatch() // its last lines before the summary
	if err != nil {
		return err
	}
	sum.Print(os.Stdout)
	if *summary != "" {
		if err := sum.WriteFile(*summary); err != nil {
			return err
		}
	}
	if !sum.Reconciles() {
		return fmt.Errorf("counts do not reconcile: read %d != indexed+duplicates+skipped+dead_lettered %d", sum.Read, sum.Indexed+sum.Duplicates+sum.Skipped+sum.DeadLettered)
	}
	return nil
}
