package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/pipelines"
)

func runIndex(args []string) error {
	fs := flag.CommandLine // Beam's own flags live here too.
	input := fs.String("input", "", "glob, file or directory of archived tweet files (.json, .jsonl, .gz, .bz2, .zst, .tar, .zip, tweets.js)")
	var sink sinkFlags
	sink.register(fs, true)
	var kafka kafkaFlags
	kafka.register(fs)
	var run runFlags
	run.register(fs)
	from := fs.String("from", "", "index only tweets created at or after this time (RFC 3339 or YYYY-MM-DD, UTC)")
	to := fs.String("to", "", "index only tweets created before this time (RFC 3339 or YYYY-MM-DD, UTC)")
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
	if err := sink.checkWrite(); err != nil {
		return err
	}
	if err := run.check(); err != nil {
		return err
	}
	cfg := pipelines.Config{
		Input:     *input,
		Kafka:     kafka.config(drainName),
		Store:     sink.store,
		Cassandra: sink.cassandraConfig(),
	}
	run.apply(&cfg)
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
	var size pipelines.InputSize
	if cfg.Input != "" {
		// Fail before the pipeline starts, in one line, if nothing matches.
		files, err := archiveio.Expand(cfg.Input)
		if err != nil {
			return fmt.Errorf("--input %q: %w", cfg.Input, err)
		}
		size = inputSize(files)
	}
	return execute(cfg, run, size)
}

// inputSize adds up the sizes of files.
func inputSize(files []string) pipelines.InputSize {
	size := pipelines.InputSize{Files: len(files)}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			size.Bytes += fi.Size()
		}
	}
	return size
}
