// Command gen writes the project's test data and, for each data set, the
// counts a correct reader must report (package tweetgen, which the tests
// call directly).
//
// Usage:
//
//	go run ./testdata/gen sample -seed 20261122 -out testdata/sample
//	go run ./testdata/gen bench -n 100000 -seed 7 -out DIR [-files N] [-gzip] [-span D]
//	go run ./testdata/gen grab -out DIR [-n N] [-seed N] [-start YYYY-MM-DD] [-days N] [-tar-days N]
//
// sample writes the committed sample (every input format and every kind of
// damage, about 2,000 items) and its oracle to testdata/expected/sample.json
// (beside the input directory, so that a glob over the inputs never picks
// it up). bench writes n realistic v1.1 stream tweets as JSON lines and
// DIR/EXPECTED.json. grab writes the bench's tweets as the Twitter Stream
// Grab files them. Output is byte-for-byte the same for the same seed.
// testdata/README.md defines every count.
package main

//go:generate go run . sample -seed 20261122 -out ../sample

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/tweetindex/tweetindex/testdata/gen/tweetgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

const usage = `usage:
  gen sample [-seed N] [-out DIR] [-expected FILE]
  gen bench  [-n N] [-seed N] [-out DIR] [-files N] [-gzip] [-span D]
  gen grab   [-n N] [-seed N] -out DIR [-start YYYY-MM-DD] [-days N] [-tar-days N]`

// run runs the command line args.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	case "sample":
		fs := flag.NewFlagSet("sample", flag.ContinueOnError)
		var c tweetgen.SampleConfig
		fs.Uint64Var(&c.Seed, "seed", 20261122, "random seed")
		fs.StringVar(&c.Out, "out", "testdata/sample", "directory to write the sample to")
		fs.StringVar(&c.Expected, "expected", "", "oracle file (default: ../expected/<base of out>.json beside out)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if c.Expected == "" {
			c.Expected = tweetgen.ExpectedPath(c.Out)
		}
		start := time.Now()
		e, files, err := tweetgen.WriteSample(ctx, c)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "sample: %d files in %s, oracle %s (%.2f s)\n", files, c.Out, c.Expected, time.Since(start).Seconds())
		printCounts(stdout, e)
		return nil
	case "bench":
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		var c tweetgen.BenchConfig
		fs.IntVar(&c.N, "n", 100_000, "tweet items to write (duplicate copies included)")
		fs.Uint64Var(&c.Seed, "seed", 7, "random seed")
		fs.StringVar(&c.Out, "out", "", "directory to write to (required)")
		fs.IntVar(&c.Files, "files", 0, "number of files (default: one per 10,000 tweets)")
		fs.BoolVar(&c.Gzip, "gzip", false, "gzip the files (.jsonl.gz)")
		fs.DurationVar(&c.Span, "span", tweetgen.DefaultBenchSpan, "time the tweets' created_at spread over, from 2026-11-01T12:00Z")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		start := time.Now()
		e, size, err := tweetgen.WriteBench(ctx, c)
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		fmt.Fprintf(stdout, "bench: %d tweets, %.1f MB in %s in %.2f s (%.0f MB/s, %.0f tweets/s)\n",
			e.Read, float64(size)/1e6, c.Out, secs, float64(size)/1e6/secs, float64(e.Read)/secs)
		printCounts(stdout, e)
		return nil
	case "grab":
		fs := flag.NewFlagSet("grab", flag.ContinueOnError)
		var c tweetgen.GrabConfig
		start := fs.String("start", "2026-10-01", "first day (UTC)")
		fs.IntVar(&c.N, "n", 30_000, "tweet items to write (duplicate copies included)")
		fs.Uint64Var(&c.Seed, "seed", 11, "random seed")
		fs.StringVar(&c.Out, "out", "", "archive root to write (required)")
		fs.IntVar(&c.Days, "days", 3, "days of tweets")
		fs.IntVar(&c.TarDays, "tar-days", 1, "the last this many days are daily tar files")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		var err error
		if c.Start, err = time.Parse("2006-01-02", *start); err != nil {
			return fmt.Errorf("grab: -start %q: want YYYY-MM-DD", *start)
		}
		t0 := time.Now()
		hours, files, err := tweetgen.WriteGrab(ctx, c)
		if err != nil {
			return err
		}
		total := 0
		for _, n := range hours {
			total += n
		}
		fmt.Fprintf(stdout, "grab: %d items (%d distinct tweets) over %d days in %d files under %s (%.1f s); tweets per hour in %s\n",
			c.N, total, c.Days, files, c.Out, time.Since(t0).Seconds(), filepath.Join(c.Out, "HOURS.json"))
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// printCounts prints the oracle's reconciliation line.
func printCounts(w io.Writer, e *tweetgen.Expected) {
	fmt.Fprintf(w, "read %d = tweets %d + duplicates %d + skipped %d + dead_lettered %d; geo %d, frequency rows %d\n",
		e.Read, e.Tweets, e.Duplicates, e.Skipped, e.DeadLettered, e.Rows["geo"], e.Rows["frequency"])
}
