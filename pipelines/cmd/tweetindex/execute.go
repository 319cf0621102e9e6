package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/transforms"
)

// drainName names the Kafka read's drain signal in this process.
const drainName = "tweetindex-index"

// runFlags are the flags of every command that runs the pipeline (index,
// backfill): what to print while it runs and after.
type runFlags struct {
	summary    string
	shards     int
	horizon    time.Duration
	progress   time.Duration
	watch      time.Duration
	checkpoint time.Duration
	verbose    bool
	cpuprofile string
	memprofile string
	trace      string
	metrics    string
	logFormat  string
	snapshots  time.Duration
	compact    bool
	mix        bool           // --mix-tokenizers
	termDays   bool           // --term-days
	live       liveServeFlags // --serve (index only: registered there)
	log        *slog.Logger   // made by check: the run's stderr lines in logFormat
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.summary, "summary", "", "also write the run summary as a JSON object to this file")
	fs.BoolVar(&f.compact, "compact", true, "leave the embedded store compacted at the end of a bounded run, ready for queries (false: end sooner, leaving the load's first-level files for the next writer)")
	fs.IntVar(&f.shards, "shards", 0, "dedup keys a day: the parallelism of deduplication (default 16; 8 when the workers run in this process, as on prism)")
	fs.DurationVar(&f.horizon, "horizon", transforms.DefaultHorizon, "how long past the end of its day (event time) a tweet id is remembered for deduplication, and past its hour a late tweet still re-fires the counts")
	fs.DurationVar(&f.progress, "progress", 10*time.Second, "print progress (files, bytes, tweets/s) on stderr every this long (0: off)")
	fs.DurationVar(&f.watch, "watch", 0, "print the per-minute tweet counts that changed, every this long, on stderr (streaming; 0: off)")
	fs.DurationVar(&f.checkpoint, "kafka-checkpoint", kafkaio.DefaultCheckpointInterval, "Kafka: longest a partition is read before its tweets go on to the tables (prism reads the partitions one after another in a bundle)")
	fs.BoolVar(&f.verbose, "verbose", false, "also print the runner's own log lines, and a failed run's whole report")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&f.memprofile, "memprofile", "", "write a heap profile of the run's peak to this file (go tool pprof)")
	fs.StringVar(&f.trace, "trace", "", "write a Go execution trace of the run to this file (go tool trace): what ran when, on how many cores")
	fs.DurationVar(&f.snapshots, "snapshots", 10*time.Second, "a stream into --store publishes a snapshot of the store every this long into DIR.snapshots, which tweetindex query reads while the stream holds the store (0: off)")
	fs.StringVar(&f.logFormat, "log-format", "text", "how the run's lines on stderr (progress, --watch, waits, a failure) are written: text, or json (one JSON object a line: time, level, msg and the counts as fields)")
	fs.BoolVar(&f.termDays, "term-days", true, "keep per-day term counts in a new store or keyspace (query top, trending, complete, --term 'P*'), recounted after each run for the days it stored tweets in; --term-days=false leaves them out of a new one; a store that has them keeps them up to date whatever this says, one without never gets them")
	fs.BoolVar(&f.mix, "mix-tokenizers", false, "add the tweets to a store or keyspace indexed with another tokenizer version (or before versions were recorded), which is refused without it; its metadata then records both versions, and term questions say which tweets they can miss")
	fs.StringVar(&f.metrics, "metrics-addr", "", "serve the run's counters, Kafka lag and watermark delay in Prometheus text format at http://ADDR/metrics (e.g. :9464; port 0: any free port, printed on stderr)")
}

// check says, in one line, what is wrong with the run flags, before the
// run starts: a negative interval, or a --summary file that cannot be
// written (found only after the whole run otherwise).
func (f *runFlags) check() error {
	if !slices.Contains(logFormats, f.logFormat) {
		return fmt.Errorf("--log-format must be text or json, got %q", f.logFormat)
	}
	f.log = newRunLogger(os.Stderr, f.logFormat)
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"progress", f.progress}, {"watch", f.watch}, {"snapshots", f.snapshots}, {"kafka-checkpoint", f.checkpoint}, {"horizon", f.horizon}} {
		if d.v < 0 {
			return fmt.Errorf("--%s must not be negative, got %s (0 turns it off)", d.name, d.v)
		}
	}
	if f.summary != "" {
		if err := checkWritable(f.summary); err != nil {
			return fmt.Errorf("--summary %s: %w", f.summary, err)
		}
	}
	return nil
}

// checkWritable checks that a file can be written at path, leaving what
// is there as it is: an existing file is opened for writing, else a
// temporary file is made (and removed) in its directory.
func checkWritable(path string) error {
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return errors.New("is a directory, want a file name")
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("cannot be written: %w", err)
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("its directory cannot be used: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("its directory %s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".tweetindex-summary-*")
	if err != nil {
		return fmt.Errorf("cannot be created: %w", err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// apply sets the run flags' parts of cfg.
func (f *runFlags) apply(cfg *pipelines.Config) {
	cfg.Shards = f.shards
	cfg.Horizon = f.horizon
	cfg.NoCompact = !f.compact
	cfg.MixTokenizers = f.mix
	cfg.NoTermDays = !f.termDays
	if cfg.Kafka != nil {
		cfg.Kafka.CheckpointInterval = f.checkpoint
	}
}

// execute runs the pipeline for cfg (already validated) with the run
// flags f: the summary goes to stdout, progress to stderr. size is the
// input's size for the progress lines, if known.
func execute(cfg pipelines.Config, f runFlags, size job.InputSize) error {
	beam.Init()
	log.SetupLogging("warn", f.logFormat)
	if !f.verbose {
		// A failed run is reported once, by our own first line; the
		// runner's ERROR lines say the same at length.
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 1})))
	}
	limitMemory()
	kafkaio.SetLogger(f.log)
	storeio.SetLogger(f.log)
	defer kafkaio.SetLogger(nil)
	defer storeio.SetLogger(nil)

	ctx, stop := stopOnSignal(cfg, f.log)
	defer stop()
	// The runner flags before anything is started or printed (Run checks
	// them again, for callers of the library).
	if err := job.CheckRunner(ctx); err != nil {
		return err
	}
	// The clusters' security settings before anything is started or
	// written: a wrong password or certificate fails here in one line.
	if err := checkClusters(ctx, cfg); err != nil {
		return err
	}
	if f.cpuprofile != "" {
		stop, err := startCPUProfile(f.cpuprofile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if f.memprofile != "" {
		defer startHeapProfile(f.memprofile)()
	}
	if f.trace != "" {
		stop, err := startTrace(f.trace)
		if err != nil {
			return err
		}
		defer stop()
	}
	if f.metrics != "" {
		stop, err := serveMetrics(f.metrics, f.log)
		if err != nil {
			return err
		}
		defer stop()
	}
	if f.live.addr != "" {
		// Before anything else opens the store (--watch): the server's
		// open is the one the stream's writers share (serveLive).
		stop, err := serveLive(cfg, f.live, f)
		if err != nil {
			return err
		}
		defer stop() // once the run has returned: the stream is drained and written
	}
	stopWatch := func() {}
	if f.watch > 0 {
		tables, err := sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra, Create: true})
		if err != nil {
			return err
		}
		defer tables.Close()
		stopWatch = watchFrequency(tables, f.watch, f.log)
		defer stopWatch() // before the tables close
	}
	if cfg.Streaming() && cfg.Store != "" && f.snapshots > 0 {
		defer storeio.PublishSnapshots(cfg.Store, f.snapshots, nil)()
	}
	until := readsUntil(cfg)
	if !until.IsZero() {
		f.log.Info("waiting for records", "until", until.UTC().Format(time.RFC3339), line(fmt.Sprintf(
			"note: the read ends at %s, %s from now: the run waits for records until then",
			until.UTC().Format(time.RFC3339), time.Until(until).Round(time.Second))))
	}
	stopProgress := reportProgress(f.log, f.progress, size, cfg.Streaming(), until)
	tally := job.NewProgress(size, "stopped after")
	if tally != nil {
		tally.Streaming, tally.Until = cfg.Streaming(), until
	}
	sum, err := job.Run(ctx, cfg)
	stopProgress()
	stopWatch() // its last lines before the summary
	if errors.Is(err, job.ErrInterrupted) && tally != nil {
		// No summary without the runner's counters: say how far it got.
		logProgress(f.log, tally.Sample(time.Now()))
	}
	if errors.As(err, new(*job.TokenizerMixError)) {
		// Refused before anything ran: a usage error, as the flag fixes it.
		return asUsage(err)
	}
	if err != nil {
		return withDetail(err, f.verbose)
	}
	for _, u := range sum.UnreadableFiles {
		fmt.Fprintf(os.Stderr, "tweetindex: could not read %s\n", u)
	}
	printSummary(os.Stdout, sum)
	if f.summary != "" {
		if err := sum.WriteFile(f.summary); err != nil {
			return err
		}
	}
	if !sum.Reconciles() {
		return fmt.Errorf("counts do not reconcile: read %d != indexed+duplicates+skipped+dead_lettered %d", sum.Read, sum.Indexed+sum.Duplicates+sum.Skipped+sum.DeadLettered)
	}
	return nil
}

// stopOnSignal makes SIGINT (Ctrl-C) and SIGTERM (how systemd, Kubernetes
// and docker stop a service) stop the run cleanly; a second signal kills
// the process. A streaming run drains: the Kafka read stops, the pipeline
// writes what it has read, commits offsets (with --commit) and ends with
// its summary. A bounded run (files, a bounded Kafka read) is cancelled
// through the returned context and recorded as interrupted, so that
// backfill status does not count it as covering its range. stop releases
// the signals.
func stopOnSignal(cfg pipelines.Config, l *slog.Logger) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			signal.Stop(sig) // the next one kills
			name := signalName(s)
			if cfg.Streaming() {
				l.Info("signal", "signal", name, "action", "drain", line(fmt.Sprintf("%s: draining the Kafka read (%s again to kill)...", name, name)))
				kafkaio.Drain(drainName)
				return
			}
			l.Info("signal", "signal", name, "action", "stop", line(fmt.Sprintf("%s: stopping the run (%s again to kill)...", name, name)))
			cancel(fmt.Errorf("%w by %s", job.ErrInterrupted, name))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel(nil)
	}
}

// signalName names a signal as its users know it.
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// detailedError is an error whose one-line message main prints first,
// and its detail after.
type detailedError struct {
	error
	detail string
}

// printDetail writes the detail of err, if it has one, after its first line.
func printDetail(w io.Writer, err error) {
	var d detailedError
	if errors.As(err, &d) && d.detail != "" {
		fmt.Fprintln(w, d.detail)
	}
}

// withDetail attaches a failed run's report to its one-line error: all of
// it with --verbose, else a pointer to --verbose.
func withDetail(err error, verbose bool) error {
	var re *job.RunError
	if !errors.As(err, &re) {
		return err
	}
	if verbose {
		return detailedError{err, "details:\n" + re.Detail}
	}
	return detailedError{err, "(run again with --verbose for the runner's report)"}
}

// checkClusters connects to the run's Kafka brokers and Cassandra nodes,
// as the run will, and returns the first problem of their security
// settings (a file or password that cannot be read, a password refused,
// a certificate not trusted, expired or for another name, ...) in one
// line naming the flag to fix. Brokers that are down are left to the
// read, which waits for them.
func checkClusters(ctx context.Context, cfg pipelines.Config) error {
	if cfg.Kafka != nil {
		if err := kafkaio.Check(ctx, *cfg.Kafka); err != nil {
			return err
		}
	}
	if cfg.Cassandra != nil {
		return cassandraio.Check(*cfg.Cassandra)
	}
	return nil
}
