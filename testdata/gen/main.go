// Command gen generates the project's test data and, for each data set,
// the counts a correct reader must report: an oracle independent of the
// project's own parsing code (it imports none of it).
//
// Usage:
//
//	go run ./testdata/gen sample -seed 20261122 -out testdata/sample
//	go run ./testdata/gen bench -n 100000 -seed 7 -out DIR [-files N] [-gzip]
//
// sample writes the committed sample (every input format and every kind of
// damage, about 2,000 items) and its oracle to testdata/expected/sample.json
// (beside the input directory, so that a glob over the inputs never picks
// it up). bench writes n realistic v1.1 stream tweets as JSON lines and
// DIR/EXPECTED.json. Output is byte-for-byte the same for the same seed.
// testdata/README.md defines every count.
package main

//go:generate go run . sample -seed 20261122 -out ../sample

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

const usage = `usage:
  gen sample [-seed N] [-out DIR] [-expected FILE]
  gen bench  [-n N] [-seed N] [-out DIR] [-files N] [-gzip] [-span D]
  gen grab   [-n N] [-seed N] -out DIR [-start YYYY-MM-DD] [-days N] [-tar-days N]`

// run runs the command line args.
func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "sample":
		fs := flag.NewFlagSet("sample", flag.ContinueOnError)
		seed := fs.Uint64("seed", 20261122, "random seed")
		out := fs.String("out", "testdata/sample", "directory to write the sample to")
		expected := fs.String("expected", "", "oracle file (default: ../expected/<base of out>.json beside out)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *expected == "" {
			*expected = filepath.Join(filepath.Dir(filepath.Clean(*out)), "expected", filepath.Base(filepath.Clean(*out))+".json")
		}
		start := time.Now()
		set := buildSample(*seed)
		if err := writeSample(set, *out, *expected); err != nil {
			return err
		}
		e := set.exp
		fmt.Fprintf(stdout, "sample: %d files in %s, oracle %s (%.2f s)\n", len(set.files), *out, *expected, time.Since(start).Seconds())
		fmt.Fprintf(stdout, "read %d = tweets %d + duplicates %d + skipped %d + dead_lettered %d; geo %d, frequency rows %d\n",
			e.Read, e.Tweets, e.Duplicates, e.Skipped, e.DeadLettered, e.Rows["geo"], e.Rows["frequency"])
		return nil
	case "bench":
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		var o benchOptions
		fs.IntVar(&o.n, "n", 100_000, "tweet items to write (duplicate copies included)")
		fs.Uint64Var(&o.seed, "seed", 7, "random seed")
		fs.StringVar(&o.out, "out", "", "directory to write to (required)")
		fs.IntVar(&o.files, "files", 0, "number of files (default: one per 10,000 tweets)")
		fs.BoolVar(&o.gzip, "gzip", false, "gzip the files (.jsonl.gz)")
		fs.DurationVar(&o.span, "span", benchSpan, "time the tweets' created_at spread over, from 2026-11-01T12:00Z")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if o.out == "" {
			return errors.New("bench: -out DIR is required")
		}
		if o.n <= 0 {
			return errors.New("bench: -n must be positive")
		}
		start := time.Now()
		e, size, err := writeBench(o)
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		fmt.Fprintf(stdout, "bench: %d tweets, %.1f MB in %s in %.2f s (%.0f MB/s, %.0f tweets/s)\n",
			e.Read, float64(size)/1e6, o.out, secs, float64(size)/1e6/secs, float64(e.Read)/secs)
		fmt.Fprintf(stdout, "read %d = tweets %d + duplicates %d + skipped %d + dead_lettered %d; geo %d, frequency rows %d\n",
			e.Read, e.Tweets, e.Duplicates, e.Skipped, e.DeadLettered, e.Rows["geo"], e.Rows["frequency"])
		return nil
	case "grab":
		fs := flag.NewFlagSet("grab", flag.ContinueOnError)
		var o grabOptions
		start := fs.String("start", "2026-10-01", "first day (UTC)")
		fs.IntVar(&o.n, "n", 30_000, "tweet items to write (duplicate copies included)")
		fs.Uint64Var(&o.seed, "seed", 11, "random seed")
		fs.StringVar(&o.out, "out", "", "archive root to write (required)")
		fs.IntVar(&o.days, "days", 3, "days of tweets")
		fs.IntVar(&o.tarDays, "tar-days", 1, "the last this many days are daily tar files")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		var err error
		if o.start, err = time.Parse("2006-01-02", *start); err != nil {
			return fmt.Errorf("grab: -start %q: want YYYY-MM-DD", *start)
		}
		switch {
		case o.out == "":
			return errors.New("grab: -out DIR is required")
		case o.n <= 0 || o.days <= 0 || o.tarDays < 0 || o.tarDays > o.days:
			return errors.New("grab: want -n > 0, -days > 0 and 0 <= -tar-days <= -days")
		}
		t0 := time.Now()
		hours, files, err := writeGrab(o)
		if err != nil {
			return err
		}
		total := 0
		for _, n := range hours {
			total += n
		}
		fmt.Fprintf(stdout, "grab: %d items (%d distinct tweets) over %d days in %d files under %s (%.1f s); tweets per hour in %s\n",
			o.n, total, o.days, files, o.out, time.Since(t0).Seconds(), filepath.Join(o.out, "HOURS.json"))
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// writeSample writes the files of set to dir and its oracle to expected.
// dir may hold only files the sample itself writes: stale inputs would
// change what a reader counts.
func writeSample(set *sampleSet, dir, expected string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, len(set.files))
	for i, f := range set.files {
		names[i] = f.name
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !slices.Contains(names, e.Name()) {
			return fmt.Errorf("%s holds %s, which the sample does not write: remove it or use another directory", dir, e.Name())
		}
	}
	for _, f := range set.files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write sample: %w", err)
		}
	}
	return writeExpected(set.exp, expected)
}

// writeExpected writes e as indented JSON (map keys sorted).
func writeExpected(e *Expected, path string) error {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write oracle: %w", err)
	}
	return nil
}
