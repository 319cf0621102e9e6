package main

import (
	"fmt"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
)

const indexSynopsis = `tweetindex index (--input 'GLOB' | --kafka BROKERS --topic T) (--store DIR | --cassandra HOSTS) [--serve ADDR] [flags] [Beam flags]`

const indexAbout = `index reads tweets from archived files (--input) or a Kafka topic (--kafka),
deduplicates them by id and writes the raw, term, frequency and geotemporal
tables, then prints a summary whose counts reconcile:
read = indexed + duplicates + skipped + dead_lettered. Without --stop, a Kafka
read is a stream: Ctrl-C or SIGTERM drains it. A stream into --store with
--serve ADDR also answers the questions over HTTP, as tweetindex serve does,
from the store as it writes it.

` + secretsNote

func runIndex(args []string) (err error) {
	c := newCommand("index", indexSynopsis, indexAbout)
	fs := c.fs
	input := fs.String("input", "", "glob, file or directory of archived tweet files (.json, .jsonl, .gz, .bz2, .zst, .tar, .zip, tweets.js)")
	var sink sinkFlags
	sink.register(fs, true)
	var kafka kafkaFlags
	kafka.register(fs)
	var run runFlags
	run.register(fs)
	run.live.register(fs)
	from := fs.String("from", "", "index only tweets created at or after this time (RFC 3339 or YYYY-MM-DD, UTC)")
	to := fs.String("to", "", "index only tweets created before this time (RFC 3339 or YYYY-MM-DD, UTC)")
	c.withBeam()
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (quote the --input glob so the shell does not expand it)", pos[0])
	}
	if err := sink.checkWrite(); err != nil {
		return asUsage(err)
	}
	if err := run.check(); err != nil {
		return asUsage(err)
	}
	kcfg, err := kafka.config(drainName)
	if err != nil {
		return asUsage(err)
	}
	defer func() { err = logFailure(run.log, run.logFormat, err) }()
	cfg := pipelines.Config{
		Input:     *input,
		Kafka:     kcfg,
		Store:     sink.store,
		Cassandra: sink.cassandraConfig(),
	}
	run.apply(&cfg)
	if cfg.From, err = parseTime("from", *from); err != nil {
		return asUsage(err)
	}
	if cfg.To, err = parseTime("to", *to); err != nil {
		return asUsage(err)
	}
	if err := cfg.Validate(); err != nil {
		return asUsage(err)
	}
	if err := run.live.check(cfg); err != nil {
		return asUsage(err)
	}
	var size job.InputSize
	if cfg.Input != "" {
		// Fail before the pipeline starts, in one line, if nothing matches.
		files, skipped, err := archiveio.ExpandSkipping(cfg.Input)
		if err != nil {
			return fmt.Errorf("--input %q: %w", cfg.Input, err)
		}
		for _, f := range skipped {
			fmt.Fprintf(warnings, "tweetindex index: not reading %s: it is %s\n", f.Path, f.Reason)
		}
		size = job.SizeOf(files)
	}
	return execute(cfg, run, size)
}
