package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// Run builds the graph for cfg, runs it on the runner chosen by Beam's
// --runner flag (prism by default) and returns the run's summary.
//
// The run is recorded in the metadata table: as running before the
// pipeline starts (which also checks, before anything runs, that the sink
// can be written), then as succeeded with its summary, or as failed with
// the reason. A failed pipeline returns a *RunError, whose message is one
// line. A run stopped by cancelling ctx (on a signal: give the cause with
// context.WithCancelCause, e.g. ErrInterrupted) is recorded as interrupted
// and returns an error that wraps the cause. A sink whose term rows were
// written with another tokenizer version is refused before anything is
// written, with a *TokenizerMixError, unless cfg.MixTokenizers (see
// tokenizer.go).
func Run(ctx context.Context, cfg pipelines.Config) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if err := CheckRunner(ctx); err != nil {
		return Summary{}, err
	}
	if err := checkSinkForWorkers(cfg); err != nil {
		return Summary{}, err
	}
	if cfg.Cassandra != nil {
		if err := cassandraio.CheckTables(ctx, *cfg.Cassandra); err != nil {
			return Summary{}, err
		}
	}
	tuneForRunner()
	if cfg.Shards == 0 && workerInProcess() {
		cfg.Shards = LocalShards
	}
	// Before the job the sink is open once: what it holds decides the
	// graph, and the run is recorded in it. It is closed before the job
	// starts, whose bulk load opens the store itself, with a bulk load's
	// options (storeio.OpenBulk), which an open store would not take.
	first, err := openSink(cfg)
	if err != nil {
		return Summary{}, err
	}
	state, err := readSinkState(ctx, cfg, first)
	if err != nil {
		first.Close()
		return Summary{}, err
	}
	// Read before the run: prism, started in process, sets --endpoint
	// (see rememberInProcessPrism).
	endpoint, inProcess := beamFlag("endpoint"), runnerInProcess()
	opts := pipelines.BuildOptions{
		Base:          state.base,
		BulkStore:     cfg.Store != "" && !cfg.Streaming() && workerInProcess(),
		DedupInMemory: !cfg.Streaming() && inProcess,
		FreshSink:     state.fresh,
		PacedRead:     workerInProcess(),
		TermDays:      state.termDays,
		EdgeDays:      state.edgeDays,
	}
	p, s := beam.NewPipelineWithRoot()
	if err := pipelines.Build(s, cfg, opts); err != nil {
		first.Close()
		return Summary{}, err
	}
	started := time.Now()
	unread0 := archiveio.UnreadableMark()
	rec := newRunRecord(cfg, started)
	err = recordStart(ctx, first, rec, state.params)
	if cerr := first.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("cannot write to the sink: %w", cerr)
	}
	if err != nil {
		return Summary{}, err
	}
	// After the job the sink is open once more (last), for what follows.
	var last *sink.Sink
	// recordRun writes rec; after a bulk load, whose store has no log, it
	// also flushes the store, which makes the run's cells durable too.
	recordRun := func(ctx context.Context, rec RunRecord) error {
		if err := writeRunRecord(ctx, last, rec); err != nil {
			return err
		}
		if opts.BulkStore {
			_, err := storeio.FlushOpen(ctx, cfg.Store, false)
			return err
		}
		return nil
	}
	if opts.DedupInMemory {
		// The runner and every worker are in this process: tweet batches
		// cross the shuffle as handles to themselves.
		defer transforms.ShareBatchesInProcess()()
	}
	if opts.BulkStore {
		defer mergeEarly(cfg)()
	}
	active0, stalls0 := flow.ActiveReading(), flow.Stalls()
	counts, doneCounting := startCounts()
	defer doneCounting()
	stopSeen := func() {}
	if cfg.Streaming() && cfg.From.IsZero() && cfg.To.IsZero() && workerInProcess() {
		stopSeen = recordStreamSeen(ctx, cfg, rec, counts) // seen.go
	}
	result, err := runJob(ctx, p)
	stopSeen()
	if inProcess {
		rememberInProcessPrism(endpoint)
	}
	last, oerr := openSink(cfg)
	if oerr != nil {
		outcome := "it succeeded"
		if err != nil {
			outcome = err.Error()
		}
		return Summary{}, fmt.Errorf("cannot open the sink after the job (%s) to record its end: %w", outcome, oerr)
	}
	defer last.Close()
	elapsed := time.Since(started)
	var flushed, compacted time.Duration // of elapsed, finishing the store
	rec.Finished = started.Add(elapsed).UTC().Format(time.RFC3339Nano)
	if cfg.From.IsZero() && cfg.To.IsZero() {
		rec.Seen = runSeen(result, counts, workerInProcess()) // seen.go
	}
	if err != nil && ctx.Err() != nil {
		// Stopped from outside (a signal): not a failure of the pipeline.
		cause := context.Cause(ctx)
		rec.Status, rec.Error = RunInterrupted, cause.Error()
		if werr := recordRun(context.WithoutCancel(ctx), rec); werr != nil {
			return Summary{}, fmt.Errorf("%w before the end of the input (and the run could not be recorded as interrupted: %v)", cause, werr)
		}
		return Summary{}, fmt.Errorf("%w before the end of the input; recorded as interrupted (run it again: keys are deterministic, so the cells already written are rewritten the same)", cause)
	}
	if err != nil {
		failure := runError(ctx, err)
		rec.Status, rec.Error = RunFailed, failure.Error()
		if werr := recordRun(context.WithoutCancel(ctx), rec); werr != nil {
			failure.Detail += "\n(the failure could not be recorded in the metadata table: " + werr.Error() + ")"
		}
		return Summary{}, failure
	}
	if opts.BulkStore {
		// The sinks loaded the store without a log: flush it before the
		// run counts as done.
		flushStart := time.Now()
		_, err := storeio.FlushOpen(ctx, cfg.Store, !cfg.NoCompact)
		flushed = time.Since(flushStart)
		if err != nil {
			failure := &RunError{Step: "storeio.FlushOpen", Cause: err.Error()}
			rec.Status, rec.Error = RunFailed, failure.Error()
			recordRun(context.WithoutCancel(ctx), rec)
			return Summary{}, failure
		}
		// And leave it compact for the next opener (a query), which
		// would otherwise compact the load's first-level files itself.
		// The writes below (recounts, the run record) add a file or two.
		// pipelines.Config.NoCompact leaves them to the next writer.
		if !cfg.NoCompact {
			compactStart := time.Now()
			_, err := storeio.CompactOpen(ctx, cfg.Store)
			compacted = time.Since(compactStart)
			if err != nil && ctx.Err() == nil {
				failure := &RunError{Step: "storeio.CompactOpen", Cause: err.Error()}
				rec.Status, rec.Error = RunFailed, failure.Error()
				recordRun(context.WithoutCancel(ctx), rec)
				return Summary{}, failure
			}
		}
		elapsed = time.Since(started)
	}
	recountStart := time.Now()
	recount, err := maintain.RecountAll(ctx, last)
	recounted, recountTook := recount.Minutes, time.Since(recountStart)
	if err != nil {
		failure := &RunError{Step: "recount", Cause: err.Error()}
		rec.Status, rec.Error = RunFailed, failure.Error()
		recordRun(context.WithoutCancel(ctx), rec)
		return Summary{}, failure
	}
	if cfg.Streaming() {
		// Every count of this stream is written: its marks can go.
		if err := maintain.ClearCounting(ctx, last); err != nil {
			failure := &RunError{Step: "recount", Cause: err.Error()}
			rec.Status, rec.Error = RunFailed, failure.Error()
			recordRun(context.WithoutCancel(ctx), rec)
			return Summary{}, failure
		}
	}
	scrubbed, err := maintain.ApplyScrubGeo(ctx, last)
	if err != nil {
		failure := &RunError{Step: "scrub_geo", Cause: err.Error()}
		rec.Status, rec.Error = RunFailed, failure.Error()
		recordRun(context.WithoutCancel(ctx), rec)
		return Summary{}, failure
	}
	sum := runSummary(result, counts, workerInProcess(), elapsed)
	sum.CompactSeconds = compacted.Seconds()
	sum.RecountSeconds = recountTook.Seconds()
	sum.Rows[schemas.TableTermDays.Name()] += int64(recount.TermDayRows) // written after the pipeline, not counted by it
	sum.Rows[schemas.TableEdgeDays.Name()] += int64(recount.EdgeDayRows)
	sum.FlushSeconds = flushed.Seconds()
	sum.Recounted = recounted
	sum.GeoScrubbed = scrubbed
	sum.SkippedFiles = skippedFiles(cfg.Input)
	for _, f := range archiveio.UnreadableSince(unread0) {
		sum.UnreadableFiles = append(sum.UnreadableFiles, f.Path+" ("+f.Reason+")")
	}
	if workerInProcess() {
		sum.FlowStalls = flow.Stalls() - stalls0
	}
	if last := flow.LastRead(); workerInProcess() && last.After(started) {
		sum.ReadSeconds = last.Sub(started).Seconds()
		if cfg.Streaming() {
			// A stream's rate is over the time it read, not its idle waits.
			sum.ActiveSeconds = (flow.ActiveReading() - active0).Seconds()
			if sum.ActiveSeconds > 0 {
				sum.TweetsPerSec = float64(sum.Read) / sum.ActiveSeconds
			}
		}
	}
	if sum.Read == 0 && result != nil && (!cfg.From.IsZero() || !cfg.To.IsZero()) {
		// A range read that found nothing (a wrong topic, a range before
		// the topic's retention) must not count as covering its range.
		rec.Status, rec.Summary = RunEmpty, &sum
		rec.Error = "read nothing from " + cfg.Source()
		if err := recordRun(ctx, rec); err != nil {
			return sum, fmt.Errorf("recording the run: %w", err)
		}
		what := "the files"
		if cfg.Kafka != nil {
			what = fmt.Sprintf("Kafka topic %s between %s and %s (message times)", cfg.Kafka.Topic, cfg.Kafka.Start, cfg.Kafka.Stop)
		}
		return sum, fmt.Errorf("%w: read 0 items from %s; recorded as empty, not as covering its range (check the source and the range)", ErrEmptyRead, what)
	}
	rec.Status, rec.Summary = RunSucceeded, &sum
	if err := recordRun(ctx, rec); err != nil {
		return sum, fmt.Errorf("recording the run: %w", err)
	}
	return sum, nil
}

// sinkState is what Run reads of its sink before it builds the graph.
type sinkState struct {
	base   transforms.FrequencyBase // the counts a resumed stream continues
	fresh  bool                     // no tweet stored yet (freshSink)
	params []schemas.Cell           // written with the run's first record
	// termDays: the sink keeps per-day term counts (pipelines.Config.NoTermDays).
	termDays bool
	// edgeDays: the sink keeps per-day edge weights (schemas.EdgeDaysParam:
	// every sink indexed from empty by a build that has them).
	edgeDays bool
}

// readSinkState reads what the sink s holds that decides the run's graph
// and parameters. A sink indexed with another tokenizer version is
// refused here, before anything is written (see tokenizer.go).
func readSinkState(ctx context.Context, cfg pipelines.Config, s *sink.Sink) (sinkState, error) {
	var st sinkState
	var err error
	if st.base, err = frequencyBase(ctx, cfg, s); err != nil {
		return st, err
	}
	if st.fresh, err = freshSink(ctx, s); err != nil {
		return st, err
	}
	if st.params, err = freshParams(ctx, s, st.fresh, !cfg.NoTermDays); err != nil {
		return st, err
	}
	// Per-day term counts: kept by a sink that has them, or gets them now.
	if st.fresh {
		st.termDays = !cfg.NoTermDays
	} else if _, st.termDays, err = s.Lookup(ctx, schemas.TableMeta, []byte(schemas.TermDaysParam)); err != nil {
		return st, fmt.Errorf("reading %s: %w", schemas.TermDaysParam, err)
	}
	// Per-day edge weights: kept by every sink indexed from empty since
	// they exist.
	if st.fresh {
		st.edgeDays = true
	} else if _, st.edgeDays, err = s.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgeDaysParam)); err != nil {
		return st, fmt.Errorf("reading %s: %w", schemas.EdgeDaysParam, err)
	}
	tokenizer, err := tokenizerParam(ctx, cfg, s, st.fresh)
	st.params = append(st.params, tokenizer...)
	return st, err
}

// recordStart records the start of the run rec in the sink s: its record
// with params, the records of runs whose process is gone (as
// interrupted), and the counting marks a dead stream left, as minutes to
// recount at the end (maintain.AdoptCounting).
func recordStart(ctx context.Context, s *sink.Sink, rec RunRecord, params []schemas.Cell) error {
	if err := writeRunRecord(ctx, s, rec, params...); err != nil {
		return fmt.Errorf("cannot write to the sink: %w", err)
	}
	if err := recordDeadRuns(ctx, s); err != nil {
		return fmt.Errorf("cannot write to the sink: recording runs whose process is gone: %w", err)
	}
	if _, err := maintain.AdoptCounting(ctx, s); err != nil {
		return fmt.Errorf("cannot write to the sink: %w", err)
	}
	return nil
}

// ErrEmptyRead is the error of a run over a time range that read nothing:
// it is recorded as RunEmpty.
var ErrEmptyRead = errors.New("empty read")

// ErrInterrupted is the cause a caller gives (context.WithCancelCause) when
// it stops a run from outside, e.g. on SIGINT or SIGTERM.
var ErrInterrupted = errors.New("interrupted")

// interruptGrace is how long Run waits, once ctx is done, for the runner to
// stop the job before it records the run as interrupted and returns anyway.
const interruptGrace = 15 * time.Second

// runJob runs p, returning when the job ends, or interruptGrace after ctx
// is done if the runner has not stopped the job by then.
func runJob(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	type outcome struct {
		r   beam.PipelineResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := beamx.RunWithMetrics(ctx, p)
		done <- outcome{r, err}
	}()
	select {
	case o := <-done:
		return o.r, o.err
	case <-ctx.Done():
	}
	select {
	case o := <-done:
		return o.r, o.err
	case <-time.After(interruptGrace):
		return nil, context.Cause(ctx)
	}
}

// IndexParams are the index parameters readers need; they are written to
// the metadata table under "param/index" on every run.
type IndexParams struct {
	SpreadCount  int    `json:"spread_count"`
	GeohashLen   int    `json:"geohash_len"`
	RowKey       string `json:"row_key"`
	Murmur2Seed  string `json:"murmur2_seed"`
	MinuteLayout string `json:"minute_layout"`
}

// CurrentParams returns the parameters of this build.
func CurrentParams() IndexParams {
	return IndexParams{
		SpreadCount:  schemas.SpreadCount,
		GeohashLen:   schemas.GeohashLen,
		RowKey:       "8-byte big-endian created_at seconds + 4-byte big-endian murmur2(json)",
		Murmur2Seed:  fmt.Sprintf("0x%08x", schemas.Murmur2Seed),
		MinuteLayout: "YYYYMMDDhhmm UTC",
	}
}

// The states of a run in its RunRecord.
const (
	RunRunning     = "running" // started, and not known to have ended (see ReadRunRecords)
	RunSucceeded   = "succeeded"
	RunFailed      = "failed"
	RunInterrupted = "interrupted" // stopped by a signal, or its process found gone
	RunEmpty       = "empty"       // a run over a time range that read nothing: it covers nothing
)

// RunRecord is the metadata row of one run, under "run/<start time>": the
// source, the event-time range it was asked to index (empty for all) or
// the one it observed, when it ran, how it ended, and its summary.
type RunRecord struct {
	Source string `json:"source"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	// Seen, for a run given no range (From and To empty), is the event
	// time of the tweets it read (seen.go); nil in the records of runs
	// that did not record it (before it was recorded, or stopped before
	// the runner said).
	Seen     *Seen    `json:"seen,omitempty"`
	Started  string   `json:"started"`
	Finished string   `json:"finished,omitempty"`
	Status   string   `json:"status"`
	Error    string   `json:"error,omitempty"`
	Summary  *Summary `json:"summary,omitempty"`
	// Host, PID and Process name the process that ran it (Process: its
	// start, where the system tells), so that a run whose process is
	// gone can be told from a live one (see runproc.go).
	Host    string `json:"host,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Process string `json:"process,omitempty"`
}

// name is the record's metadata row name.
func (r RunRecord) name() string { return schemas.RunRecordPrefix + r.Started }

func newRunRecord(cfg pipelines.Config, started time.Time) RunRecord {
	rec := RunRecord{
		Source:  cfg.Source(),
		Started: started.UTC().Format(time.RFC3339Nano),
		Status:  RunRunning,
	}
	stampProcess(&rec)
	if !cfg.From.IsZero() {
		rec.From = cfg.From.UTC().Format(time.RFC3339)
	}
	if !cfg.To.IsZero() {
		rec.To = cfg.To.UTC().Format(time.RFC3339)
	}
	return rec
}

// writeRunRecord writes rec, the index parameters and extra cells to the
// metadata table of the sink s.
func writeRunRecord(ctx context.Context, s *sink.Sink, rec RunRecord, extra ...schemas.Cell) error {
	params, _ := json.Marshal(CurrentParams())
	run, _ := json.Marshal(rec)
	return s.Write(ctx, append([]schemas.Cell{
		schemas.MetaRow{Name: schemas.IndexParam, Value: params}.Cell(),
		schemas.MetaRow{Name: rec.name(), Value: run}.Cell(),
	}, extra...))
}

// ReadRunRecords returns the run records of the metadata table, oldest
// first. A run marked running whose process is known to be gone (see
// runproc.go: same host, no such process) is returned as interrupted.
func ReadRunRecords(ctx context.Context, r sink.Reader) ([]RunRecord, error) {
	runs, err := readRunRecords(ctx, r)
	for i := range runs {
		if processGone(runs[i]) {
			markGone(&runs[i])
		}
	}
	return runs, err
}

// readRunRecords returns the run records as stored.
func readRunRecords(ctx context.Context, sr sink.Reader) ([]RunRecord, error) {
	var runs []RunRecord
	err := sink.ScanPrefix(ctx, sr, schemas.TableMeta, []byte(schemas.RunRecordPrefix), func(key, value []byte) error {
		var r RunRecord
		if err := json.Unmarshal(value, &r); err != nil {
			return fmt.Errorf("run record %s: %w", key, err)
		}
		runs = append(runs, r)
		return nil
	})
	return runs, err
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// freshSink reports whether the sink s holds no identity row: no run has
// stored a tweet in it (or every one was written before the identity
// table existed).
func freshSink(ctx context.Context, s sink.Reader) (bool, error) {
	return tableEmpty(ctx, s, schemas.TableIdentity)
}

// mergeEarly tells the bulk load of the run's store how much of the input
// the run has read (storeio.MergeEarly), so that the load merges most of
// its cells while the rest is read: the bytes read in this process, of
// the size of the files the run reads; or, from Kafka, the offsets read
// of those between the start and the stop of each partition
// (kafkaio.ReadProgress), once the read has resolved them. A read whose
// end is not known until it gets there (a stop time not reached yet)
// leaves the whole merge to the end.
func mergeEarly(cfg pipelines.Config) (stop func()) {
	if cfg.Kafka != nil {
		topic, since := cfg.Kafka.Topic, time.Now()
		return storeio.MergeEarly(cfg.Store, func() float64 {
			read, total, ok := kafkaio.ReadProgress(topic, since)
			if !ok || total == 0 {
				return 0
			}
			return float64(read) / float64(total)
		})
	}
	if cfg.Input == "" {
		return func() {}
	}
	files, err := archiveio.Expand(cfg.Input)
	if err != nil {
		return func() {} // the run fails on it, and says why
	}
	size := SizeOf(archiveio.Select(files, cfg.Archive.Range))
	if size.Bytes == 0 {
		return func() {}
	}
	_, bytes0 := archiveio.LocalProgress()
	return storeio.MergeEarly(cfg.Store, func() float64 {
		_, bytes := archiveio.LocalProgress()
		return float64(bytes-bytes0) / float64(size.Bytes)
	})
}

// skippedFiles names the files input matches and a run does not read
// (archiveio.ExpandSkipping), as "PATH (why)".
func skippedFiles(input string) []string {
	if input == "" {
		return nil
	}
	_, skipped, _ := archiveio.ExpandSkipping(input)
	var out []string
	for _, f := range skipped {
		out = append(out, f.Path+" ("+f.Reason+")")
	}
	return out
}
