package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tweetindex/tweetindex/pipelines"
)

const backfillUsage = `Usage:
  tweetindex backfill (--root DIR | --kafka BROKERS --topic T) --from T1 --to T2 (--store DIR | --cassandra HOSTS) [--margin D] [--dry-run] [Beam flags]
  tweetindex backfill status (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--by hour|day]

backfill indexes exactly the tweets created in [T1, T2). From an archive root
it reads only the files (and tar or zip members) whose path can hold that
range: the Twitter Stream Grab layouts YYYY/MM/DD/HH/MM.json.bz2 and daily
tar files (twitter-stream-YYYY-MM-DD.tar), widened by --margin; files whose
path names no time are not read. From Kafka it reads the messages with timestamps
in the range widened by --margin. Re-running a range rewrites the same cells
and counts. Each run is recorded in the metadata table; backfill status
shows which ranges are covered, partial or missing.

`

func runBackfill(args []string) error {
	if len(args) > 0 && args[0] == "status" {
		return runBackfillStatus(args[1:])
	}
	fs := flag.CommandLine // Beam's own flags live here too.
	root := fs.String("root", "", "archive root: a directory laid out by date (YYYY/MM/DD/HH/MM.json.bz2, or daily .tar files)")
	var kafka kafkaFlags
	kafka.register(fs)
	var sink sinkFlags
	sink.register(fs, true)
	var run runFlags
	run.register(fs)
	from := fs.String("from", "", "start of the range, inclusive (RFC 3339 or YYYY-MM-DD[THH[:MM]], UTC): required")
	to := fs.String("to", "", "end of the range, exclusive: required")
	margin := fs.Duration("margin", pipelines.DefaultMargin, "also read files (or Kafka messages) stamped this long outside the range: tweets are filed by when they were collected, a little after they were created")
	dryRun := fs.Bool("dry-run", false, "list the files the range selects, and stop")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), backfillUsage+"Flags (Beam's included):\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := sink.checkWrite(); err != nil {
		return err
	}
	if err := run.check(); err != nil {
		return err
	}
	b := pipelines.Backfill{Root: *root, Margin: *margin}
	if *margin == 0 {
		b.Margin = -1 // --margin 0 means none
	}
	var err error
	if b.From, err = parseTime("from", *from); err != nil {
		return err
	}
	if b.To, err = parseTime("to", *to); err != nil {
		return err
	}
	if *margin < 0 {
		return fmt.Errorf("--margin must not be negative, got %s", *margin)
	}
	if kafka.brokers != "" {
		if kafka.start != "earliest" || kafka.stop != "" || kafka.commit {
			return errors.New("backfill reads Kafka by the time range: leave out --start, --stop and --commit")
		}
		b.Kafka = kafka.config(drainName)
	}
	cfg := pipelines.Config{Store: sink.store, Cassandra: sink.cassandraConfig()}
	if err := b.Apply(&cfg); err != nil {
		return err
	}
	run.apply(&cfg)
	if err := cfg.Validate(); err != nil {
		return err
	}
	rangeText := fmt.Sprintf("[%s, %s)", b.From.Format(time.RFC3339), b.To.Format(time.RFC3339))
	var size pipelines.InputSize
	if b.Kafka != nil {
		fmt.Fprintf(os.Stderr, "backfill %s: Kafka %s/%s, messages stamped %s to %s\n", rangeText, kafka.brokers, kafka.topic, cfg.Kafka.Start, cfg.Kafka.Stop)
		if *dryRun {
			return nil
		}
	} else {
		files, total, err := b.Files()
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "backfill %s: %d of %d files under %s can hold it (margin %s)\n", rangeText, len(files), total, *root, *margin)
		if *dryRun {
			for _, f := range files {
				fmt.Println(f)
			}
			return nil
		}
		if len(files) == 0 {
			return fmt.Errorf("no file under %s can hold %s: check --root and the range", *root, rangeText)
		}
		size = inputSize(files)
	}
	return execute(cfg, run, size)
}

func runBackfillStatus(args []string) error {
	fs := flag.NewFlagSet("backfill status", flag.ContinueOnError)
	var sink sinkFlags
	sink.register(fs, false)
	from := fs.String("from", "", "start of the range to report (default: the earliest recorded run)")
	to := fs.String("to", "", "end of the range to report (default: the latest recorded run)")
	by := fs.String("by", "hour", "granularity: minute, hour or day")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), backfillUsage+"Flags of backfill status:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	steps := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}
	step, ok := steps[*by]
	if !ok {
		return fmt.Errorf("--by %q: want minute, hour or day", *by)
	}
	t1, err := parseTime("from", *from)
	if err != nil {
		return err
	}
	t2, err := parseTime("to", *to)
	if err != nil {
		return err
	}
	tables, err := sink.open()
	if err != nil {
		return err
	}
	defer tables.Close()
	runs, err := pipelines.ReadRunRecords(context.Background(), tables)
	if err != nil {
		return err
	}
	lo, hi := pipelines.RunsExtent(runs)
	if t1.IsZero() {
		t1 = lo.Truncate(step)
	}
	if t2.IsZero() {
		t2 = hi
	}
	if t1.IsZero() || t2.IsZero() || !t1.Before(t2) {
		return errors.New("no run with a time range is recorded: pass --from and --to, or run tweetindex backfill first")
	}
	pipelines.PrintCoverage(os.Stdout, pipelines.CoverageOf(runs, t1, t2, step))
	printUnfinished(os.Stdout, runs)
	return nil
}

// printUnfinished lists the runs that did not succeed: failed, interrupted
// (stopped, or their process found gone) and still running.
func printUnfinished(w io.Writer, runs []pipelines.RunRecord) {
	first := true
	for _, r := range runs {
		if r.Status == pipelines.RunSucceeded {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nruns that did not succeed:")
			first = false
		}
		line := fmt.Sprintf("  %s  %-11s  [%s, %s)  %s", r.Started, r.Status, orOpen(r.From), orOpen(r.To), r.Source)
		switch {
		case r.Status == pipelines.RunRunning && r.OnOtherHost():
			line += fmt.Sprintf("  (running on %s, pid %d: cannot check from this host whether it still runs; backfill status on %s can)", r.Host, r.PID, r.Host)
		case r.Status == pipelines.RunRunning && r.PID > 0:
			line += fmt.Sprintf("  (pid %d on %s)", r.PID, r.Host)
		}
		if r.Error != "" {
			line += ": " + r.Error
		}
		fmt.Fprintln(w, line)
	}
}

func orOpen(t string) string {
	if t == "" {
		return "-"
	}
	return t
}
