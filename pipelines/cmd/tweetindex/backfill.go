package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
)

const backfillSynopsis = `tweetindex backfill (--root DIR | --kafka BROKERS --topic T) --from T1 --to T2 (--store DIR | --cassandra HOSTS) [--margin D] [--dry-run] [Beam flags]
tweetindex backfill status (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--by minute|hour|day] [--format table|jsonl]`

const backfillAbout = `backfill indexes exactly the tweets created in [T1, T2). From an archive root
it reads only the files (and tar or zip members) whose path can hold that
range: the Twitter Stream Grab layouts YYYY/MM/DD/HH/MM.json.bz2 and daily
tar files (twitter-stream-YYYY-MM-DD.tar), widened by --margin; files whose
path names no time are not read. From Kafka it reads the messages with timestamps
in the range widened by --margin. Re-running a range rewrites the same cells
and counts. Each run is recorded in the metadata table; backfill status
shows which ranges are covered, partial or missing.

` + secretsNote

const backfillStatusAbout = `backfill status cuts the range into minutes, hours or days and says of each
whether succeeded runs cover it (covered), cover part of it or a run over it
failed or never finished (partial), only runs that read nothing touched it
(empty), no run touched it (missing), or none did but runs are recorded that
do not say what they read (unknown); then it lists the runs that did not
succeed. A run given no range counts with the minutes of the tweets it read. Exit code 3 when any span is not
covered or any run did not succeed (0 when all is covered), so a scheduler
can alert; 1 when the tables cannot be read, 2 for a usage error.`

func runBackfill(args []string) error {
	c := newCommand("backfill", backfillSynopsis, backfillAbout)
	fs := c.fs
	root := fs.String("root", "", "archive root: a directory laid out by date (YYYY/MM/DD/HH/MM.json.bz2, or daily .tar files)")
	var kafka kafkaFlags
	kafka.register(fs)
	var sink sinkFlags
	sink.register(fs, true)
	var run runFlags
	run.register(fs)
	from := fs.String("from", "", "start of the range, inclusive (RFC 3339 or YYYY-MM-DD[THH[:MM]], UTC): required")
	to := fs.String("to", "", "end of the range, exclusive: required")
	margin := fs.Duration("margin", job.DefaultMargin, "also read files (or Kafka messages) stamped this long outside the range: tweets are filed by when they were collected, a little after they were created")
	dryRun := fs.Bool("dry-run", false, "list the files the range selects, and stop")
	c.withBeam()
	if i, _ := verbAt(fs, args); i >= 0 && args[i] == "status" {
		return runBackfillStatus(without(args, i))
	}
	if err := c.parseNoArgs(args); err != nil {
		return err
	}
	if err := backfillFlags(&sink, &run, *margin); err != nil {
		return asUsage(err)
	}
	return logFailure(run.log, run.logFormat, backfill(&kafka, &sink, run, *root, *from, *to, *margin, *dryRun))
}

// backfill runs a backfill whose flags are checked.
func backfill(kafka *kafkaFlags, sink *sinkFlags, run runFlags, root, from, to string, margin time.Duration, dryRun bool) error {
	var err error
	b := job.Backfill{Root: root, Margin: margin}
	if margin == 0 {
		b.Margin = -1 // --margin 0 means none
	}
	if b.From, err = parseTime("from", from); err != nil {
		return asUsage(err)
	}
	if b.To, err = parseTime("to", to); err != nil {
		return asUsage(err)
	}
	if kafka.brokers != "" {
		if kafka.start != "earliest" || kafka.stop != "" || kafka.commit {
			return usagef("backfill reads Kafka by the time range: leave out --start, --stop and --commit")
		}
		if b.Kafka, err = kafka.config(drainName); err != nil {
			return asUsage(err)
		}
	} else if _, err := kafka.config(drainName); err != nil {
		return asUsage(err)
	}
	cfg := pipelines.Config{Store: sink.store, Cassandra: sink.cassandraConfig()}
	if err := b.Apply(&cfg); err != nil {
		return asUsage(err)
	}
	run.apply(&cfg)
	if err := cfg.Validate(); err != nil {
		return asUsage(err)
	}
	rangeText := fmt.Sprintf("[%s, %s)", b.From.Format(time.RFC3339), b.To.Format(time.RFC3339))
	var size job.InputSize
	if b.Kafka != nil {
		run.log.Info("backfill", "from", b.From, "to", b.To, "kafka", kafka.brokers, "topic", kafka.topic, "start", cfg.Kafka.Start, "stop", cfg.Kafka.Stop,
			line(fmt.Sprintf("backfill %s: Kafka %s/%s, messages stamped %s to %s", rangeText, kafka.brokers, kafka.topic, cfg.Kafka.Start, cfg.Kafka.Stop)))
		if dryRun {
			return nil
		}
	} else {
		files, total, err := b.Files()
		if err != nil {
			return err
		}
		run.log.Info("backfill", "from", b.From, "to", b.To, "files", len(files), "files_under_root", total, "root", root, "margin_seconds", margin,
			line(fmt.Sprintf("backfill %s: %d of %d files under %s can hold it (margin %s)", rangeText, len(files), total, root, margin)))
		if dryRun {
			for _, f := range files {
				fmt.Println(f)
			}
			return nil
		}
		if len(files) == 0 {
			return fmt.Errorf("no file under %s can hold %s: check --root and the range", root, rangeText)
		}
		size = job.SizeOf(files)
	}
	return execute(cfg, run, size)
}

// backfillFlags checks the flags of backfill that need no parsing.
func backfillFlags(sink *sinkFlags, run *runFlags, margin time.Duration) error {
	if err := sink.checkWrite(); err != nil {
		return err
	}
	if err := run.check(); err != nil {
		return err
	}
	if margin < 0 {
		return fmt.Errorf("--margin must not be negative, got %s", margin)
	}
	return nil
}

func runBackfillStatus(args []string) error {
	c := newCommand("backfill status", backfillSynopsis, backfillStatusAbout)
	fs := c.fs
	var sink sinkFlags
	sink.register(fs, false)
	from := fs.String("from", "", "start of the range to report (default: the earliest recorded run)")
	to := fs.String("to", "", "end of the range to report (default: the latest recorded run)")
	by := fs.String("by", "hour", "granularity: minute, hour or day")
	format := fs.String("format", "table", "output: table (for people) or jsonl (an object per span, then one per run that did not succeed)")
	if err := c.parseNoArgs(args); err != nil {
		return err
	}
	step, err := stepOf(*by)
	if err != nil {
		return asUsage(err)
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	t1, err := parseTime("from", *from)
	if err != nil {
		return asUsage(err)
	}
	t2, err := parseTime("to", *to)
	if err != nil {
		return asUsage(err)
	}
	if !t1.IsZero() && !t2.IsZero() && !t1.Before(t2) {
		return usagef("empty range: --from %s is not before --to %s", *from, *to)
	}
	if err := sink.checkRead(); err != nil {
		return asUsage(err)
	}
	tables, err := sink.open(0)
	if err != nil {
		return err
	}
	defer tables.Close()
	runs, err := job.ReadRunRecords(context.Background(), tables)
	if err != nil {
		return err
	}
	lo, hi := job.RunsExtent(runs)
	if t1.IsZero() {
		t1 = lo.Truncate(step)
	}
	if t2.IsZero() {
		t2 = hi
	}
	switch {
	case t1.IsZero() || t2.IsZero():
		return exitError{exitIncomplete, "no run with a time range is recorded: pass --from and --to, or run tweetindex backfill first"}
	case !t1.Before(t2) && *to == "":
		// --from is at or after the end of every recorded run.
		return exitError{exitIncomplete, fmt.Sprintf("no run is recorded from --from %s on (the latest ends at %s): pass --to to report a range", *from, hi.UTC().Format(time.RFC3339))}
	case !t1.Before(t2):
		// --to is at or before the start of every recorded run.
		return exitError{exitIncomplete, fmt.Sprintf("no run is recorded before --to %s (the earliest starts at %s): pass --from to report a range", *to, lo.UTC().Format(time.RFC3339))}
	}
	spans := job.CoverageOf(runs, t1, t2, step)
	superseded := job.Superseded(runs)
	w := bufio.NewWriter(os.Stdout)
	if *format == "jsonl" {
		err = writeCoverageJSONL(w, spans, runs, superseded)
	} else {
		printCoverage(w, spans)
		printUnfinished(w, runs, superseded)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if n := incomplete(spans, runs, superseded); n > 0 {
		return exitError{code: exitIncomplete}
	}
	return nil
}

// incomplete counts the spans not covered and the runs that did not
// succeed and were not run again since (superseded, job.Superseded).
func incomplete(spans []job.Span, runs []job.RunRecord, superseded []bool) int {
	n := 0
	for _, s := range spans {
		if s.Status != job.Covered {
			n++
		}
	}
	for i, r := range runs {
		if r.Status != job.RunSucceeded && !superseded[i] {
			n++
		}
	}
	return n
}

// printCoverage writes spans as an aligned table.
func printCoverage(w io.Writer, spans []job.Span) {
	fmt.Fprintf(w, "%-20s  %-20s  %-8s  %s\n", "from", "to", "status", "failed/unfinished runs")
	for _, s := range spans {
		failed := ""
		if s.Failed > 0 {
			failed = fmt.Sprint(s.Failed)
		}
		fmt.Fprintf(w, "%-20s  %-20s  %-8s  %s\n", s.From.UTC().Format(time.RFC3339), s.To.UTC().Format(time.RFC3339), s.Status, failed)
	}
}

// writeCoverageJSONL writes an object per span ({"kind":"span",...}) and
// one per run that did not succeed ({"kind":"run",...}).
func writeCoverageJSONL(w io.Writer, spans []job.Span, runs []job.RunRecord, superseded []bool) error {
	enc := json.NewEncoder(w)
	for _, s := range spans {
		if err := enc.Encode(struct {
			Kind   string `json:"kind"`
			From   string `json:"from"`
			To     string `json:"to"`
			Status string `json:"status"`
			Failed int    `json:"failed_runs"`
		}{"span", s.From.UTC().Format(time.RFC3339), s.To.UTC().Format(time.RFC3339), s.Status, s.Failed}); err != nil {
			return err
		}
	}
	for i, r := range runs {
		if r.Status == job.RunSucceeded {
			continue
		}
		if err := enc.Encode(struct {
			Kind string `json:"kind"`
			job.RunRecord
			RunAgain bool `json:"run_again,omitempty"`
		}{"run", r, superseded[i]}); err != nil {
			return err
		}
	}
	return nil
}

// printUnfinished lists the runs that did not succeed: failed, interrupted
// (stopped, or their process found gone) and still running; then, apart,
// those that failed or were interrupted and have been run again since
// (superseded, job.Superseded).
func printUnfinished(w io.Writer, runs []job.RunRecord, superseded []bool) {
	printRuns(w, runs, func(i int) bool { return !superseded[i] }, "\nruns that did not succeed:")
	printRuns(w, runs, func(i int) bool { return superseded[i] }, "\nruns that did not succeed, run again since (a later run succeeded over their range):")
}

// printRuns prints, under title, the runs that did not succeed among those
// that pick takes.
func printRuns(w io.Writer, runs []job.RunRecord, pick func(i int) bool, title string) {
	first := true
	for i, r := range runs {
		if r.Status == job.RunSucceeded || !pick(i) {
			continue
		}
		if first {
			fmt.Fprintln(w, title)
			first = false
		}
		line := fmt.Sprintf("  %s  %-11s  [%s, %s)  %s", r.Started, r.Status, orOpen(r.From), orOpen(r.To), r.Source)
		switch {
		case r.Status == job.RunRunning && r.OnOtherHost():
			line += fmt.Sprintf("  (running on %s, pid %d: cannot check from this host whether it still runs; backfill status on %s can)", r.Host, r.PID, r.Host)
		case r.Status == job.RunRunning && r.PID > 0:
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
