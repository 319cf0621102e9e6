package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/tweetindex/tweetindex/pipelines"
)

func runIndex(args []string) error {
	fs := flag.CommandLine // Beam's own flags live here too.
	input := fs.String("input", "", "glob, file or directory of archived tweet files (.json, .jsonl, .gz, .bz2, .zst, .tar, .zip, tweets.js)")
	store := fs.String("store", "", "directory of the embedded store (created if missing)")
	summary := fs.String("summary", "", "also write the run summary as a JSON object to this file")
	shards := fs.Int("shards", 0, "dedup keys per minute (default 16)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: tweetindex index --input 'GLOB' --store DIR [--summary FILE] [Beam flags]\n\nFlags (Beam's included):\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (quote the --input glob so the shell does not expand it)", fs.Arg(0))
	}
	beam.Init()
	log.SetupLogging("warn", "text")

	cfg := pipelines.Config{Input: *input, Store: *store, Shards: *shards}
	if err := cfg.Validate(); err != nil {
		return err
	}
	sum, err := pipelines.Run(context.Background(), cfg)
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
