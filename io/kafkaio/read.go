package kafkaio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(partitionRead), error](&listPartitionsFn{})
	register.Emitter1[partitionRead]()
	register.DoFn5x2[context.Context, *watermarkEstimator, *sdf.LockRTracker, partitionRead,
		func(beam.EventTime, []schemas.Record), sdf.ProcessContinuation, error](&readFn{})
	register.DoFn4x1[context.Context, *sdf.LockRTracker, partitionRead,
		func(beam.EventTime, []schemas.Record), error](&boundedReadFn{})
	register.DoFn4x2[context.Context, *sdf.LockRTracker, partitionRead,
		func(beam.EventTime, []schemas.Record), sdf.ProcessContinuation, error](&pacedReadFn{})
	register.Emitter2[beam.EventTime, []schemas.Record]()
	beam.RegisterType(reflect.TypeOf((*partitionRead)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*watermarkState)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*listPartitionsFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*readFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*boundedReadFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*pacedReadFn)(nil)).Elem())
}

// Read reads cfg.Topic and returns a PCollection of []schemas.Record
// batches: consecutive records of one partition, each with Origin
// {Source: "kafka:TOPIC/PARTITION", Line: offset} and Data the message
// value, timestamped with the earliest tweet time among them (see
// schemas.EventTime). With cfg.Stop and without cfg.Commit the read is
// bounded (Config.Bounded): it ends at Stop, with no watermark before,
// and the PCollection is bounded unless the read is Paced; otherwise it
// is unbounded, its watermark follows tweet time (see Config), and a read
// that commits ends at Stop all the same.
//
// Read panics if cfg is not valid; check cfg.Validate first, or use TryRead.
func Read(s beam.Scope, cfg Config) beam.PCollection {
	col, err := TryRead(s, cfg)
	if err != nil {
		panic(err)
	}
	return col
}

// TryRead is Read, returning an invalid configuration as an error.
func TryRead(s beam.Scope, cfg Config) (beam.PCollection, error) {
	if err := cfg.Validate(); err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("kafkaio.Read")
	parts := beam.ParDo(s.Scope("ListPartitions"), &listPartitionsFn{Config: cfg}, beam.Impulse(s))
	switch {
	case cfg.Bounded() && cfg.Paced:
		return beam.ParDo(s.Scope("ReadPartitions"), &pacedReadFn{boundedReadFn: boundedReadFn{readBaseFn{Config: cfg}}}, parts), nil
	case cfg.Bounded():
		return beam.ParDo(s.Scope("ReadPartitions"), &boundedReadFn{readBaseFn{Config: cfg}}, parts), nil
	}
	return beam.ParDo(s.Scope("ReadPartitions"), &readFn{readBaseFn: readBaseFn{Config: cfg}}, parts), nil
}

// readFn is the splittable DoFn of an unbounded read, and of a read that
// commits offsets: one restriction per partition over [start offset, stop
// offset or math.MaxInt64), which it reads in steps of at most
// CheckpointInterval, checkpointing between them (and after every poll
// that finds nothing), with a watermark estimator driven by tweet time.
//
// Offsets are committed when a checkpoint's residual is resumed: the
// runner hands out a residual only once it has committed the output of
// the bundle that returned it, so every record before the residual's start
// is safely downstream. (The SDK's BundleFinalization would do the same
// job, but in Beam Go v2.77 a plan that is reused for a later bundle drops
// that bundle's finalization callbacks.) To commit the last records read,
// a read that ends (at Stop, or drained) checkpoints once more first.
type readFn struct {
	readBaseFn
	bundleSent
}

// bundleSent counts the records a checkpointing read's bundle has
// emitted: prism passes them on only when the bundle ends, so a read that
// waits for the run's backlog in that bundle must not wait on them
// (flow.WaitBacklog's sent). A bundle may hold several partitions' reads.
type bundleSent struct {
	sent int
}

// readBaseFn is what readFn and boundedReadFn share, as textio's readBaseFn
// is: the connection (Setup, Teardown) and the partition's restriction. A
// struct that embeds it, and adds CreateTracker and ProcessElement, is a
// splittable DoFn over a partitionRead.
type readBaseFn struct {
	Config Config
	r      *reader
}

// Setup connects.
func (f *readBaseFn) Setup() error {
	r, err := newReader(f.Config)
	f.r = r
	return err
}

// Teardown closes the connections.
func (f *readBaseFn) Teardown() { f.r.close() }

// CreateInitialRestriction is the partition's offset range.
func (f *readBaseFn) CreateInitialRestriction(p partitionRead) offsetrange.Restriction {
	return offsetrange.Restriction{Start: p.Start, End: p.End}
}

// SplitRestriction keeps the partition whole: partitions are the unit of
// parallelism; the runner may split further while reading.
func (f *readBaseFn) SplitRestriction(_ partitionRead, rest offsetrange.Restriction) []offsetrange.Restriction {
	return []offsetrange.Restriction{rest}
}

// RestrictionSize is the number of offsets in the range, 1 for an open one
// or one that ends at a time not reached yet (its size is only known while
// reading).
func (f *readBaseFn) RestrictionSize(_ partitionRead, rest offsetrange.Restriction) float64 {
	return restrictionSize(rest)
}

// CreateTracker tracks the range; see offsetTracker.
func (f *readFn) CreateTracker(rest offsetrange.Restriction) *sdf.LockRTracker {
	t := newOffsetTracker(rest, true, f.Config.Commit)
	t.emptyResidual = f.Config.Commit && !f.Config.CommitAcked
	return sdf.NewLockRTracker(t)
}

// TruncateRestriction is what a runner's drain keeps of the remaining
// range: nothing.
func (f *readFn) TruncateRestriction(rt *sdf.LockRTracker, _ partitionRead) offsetrange.Restriction {
	start := rt.GetRestriction().(offsetrange.Restriction).Start
	return offsetrange.Restriction{Start: start, End: start}
}

// InitialWatermarkEstimatorState starts the watermark at the element's
// timestamp (the impulse's, the beginning of time).
func (f *readFn) InitialWatermarkEstimatorState(et beam.EventTime, _ offsetrange.Restriction, _ partitionRead) watermarkState {
	return watermarkState{Watermark: int64(et)}
}

// CreateWatermarkEstimator restores the partition's estimator.
func (f *readFn) CreateWatermarkEstimator(state watermarkState) *watermarkEstimator {
	return newWatermarkEstimator(state, f.Config)
}

// WatermarkEstimatorState saves the partition's estimator at a checkpoint.
func (f *readFn) WatermarkEstimatorState(we *watermarkEstimator) watermarkState {
	return we.snapshot()
}

// StartBundle counts the bundle's records from zero.
func (f *readFn) StartBundle(_ func(beam.EventTime, []schemas.Record)) { f.sent = 0 }

// ProcessElement commits the offsets before the restriction (with Commit),
// then reads the partition from there for at most CheckpointInterval and
// asks to be resumed: at once if records are flowing, after PollInterval
// if the partition is caught up.
func (f *readFn) ProcessElement(ctx context.Context, we *watermarkEstimator, rt *sdf.LockRTracker, p partitionRead, emit func(beam.EventTime, []schemas.Record)) (sdf.ProcessContinuation, error) {
	if !waitBacklog(ctx, f.sent) {
		return sdf.ResumeProcessingIn(flow.BacklogPause), nil
	}
	s := f.r.newState(p, rt, we, emit)
	s.paced = true
	if f.r.cfg.Commit && !f.r.cfg.CommitAcked && s.next > p.Start {
		f.r.commit(ctx, p, s.next)
	}
	out, err := f.r.read(ctx, s, time.Now().Add(f.r.cfg.CheckpointInterval))
	f.sent += s.emitted
	if err != nil {
		return sdf.StopProcessing(), err
	}
	if f.r.cfg.CommitAcked {
		f.r.emitGap(s)
	}
	if pc, ok := resumed(out); ok {
		return pc, nil
	}
	switch out {
	case caughtUp:
		if p.StopTime == 0 || time.Now().UnixMilli() < p.StopTime {
			we.caughtUp(time.Now())
			return sdf.ResumeProcessingIn(f.r.cfg.PollInterval), nil
		}
		out = ended // caught up after the stop time: whatever arrives now is stamped after it
	}
	if out == drained {
		log.Infof(ctx, "kafkaio: %s drained at offset %d", s.source, s.next)
	}
	if f.r.cfg.Commit && !f.r.cfg.CommitAcked && s.claimed > 0 && out != rangeDone {
		// Checkpoint once more: resuming the empty rest commits the
		// records read here, then ends the read.
		return sdf.ResumeProcessingIn(0), nil
	}
	if err := finish(rt); err != nil {
		return sdf.StopProcessing(), err
	}
	we.finish()
	return sdf.StopProcessing(), nil
}

// boundedReadFn is the splittable DoFn of a bounded read (Config.Stop set,
// Commit not): one restriction per partition over [start offset, stop
// offset), read to its end in one call. The runner may split it.
type boundedReadFn struct {
	readBaseFn
}

// CreateTracker tracks the range; see offsetTracker. A range that ends at
// a time is only split at the current position.
func (f *boundedReadFn) CreateTracker(rest offsetrange.Restriction) *sdf.LockRTracker {
	return sdf.NewLockRTracker(newOffsetTracker(rest, false, rest.End == math.MaxInt64))
}

// ProcessElement reads the partition's range to its end, waiting for
// records not produced yet when it ends at a time.
func (f *boundedReadFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, p partitionRead, emit func(beam.EventTime, []schemas.Record)) error {
	s := f.r.newState(p, rt, nil, emit)
	for {
		out, err := f.r.read(ctx, s, time.Now().Add(time.Hour))
		if err != nil {
			return err
		}
		switch out {
		case checkpoint:
			continue
		case caughtUp:
			if p.StopTime == 0 || time.Now().UnixMilli() < p.StopTime {
				continue // the stop time is not reached yet: poll again
			}
		case drained:
			log.Infof(ctx, "kafkaio: %s drained at offset %d", s.source, s.next)
		}
		return finish(rt)
	}
}

// pacedReadFn is the splittable DoFn of a Paced bounded read: the same
// restrictions as boundedReadFn's, read in steps of at most
// CheckpointInterval and paused while the run's backlog is full (see
// Config.Paced). Read in one call on prism, 1 M tweets from a local broker
// took 82 s and 4.4 GB, 46 s of it after the last record read; paced, 32
// s and 751 MB.
type pacedReadFn struct {
	boundedReadFn
	bundleSent
}

// StartBundle counts the bundle's records from zero.
func (f *pacedReadFn) StartBundle(_ func(beam.EventTime, []schemas.Record)) { f.sent = 0 }

// ProcessElement reads the partition's range for at most
// CheckpointInterval, or until the run's backlog is full, and asks to be
// resumed; it ends the read at the end of the range, or at the stop time
// once the partition is caught up after it.
func (f *pacedReadFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, p partitionRead, emit func(beam.EventTime, []schemas.Record)) (sdf.ProcessContinuation, error) {
	if !waitBacklog(ctx, f.sent) {
		return sdf.ResumeProcessingIn(flow.BacklogPause), nil
	}
	s := f.r.newState(p, rt, nil, emit)
	s.paced = true
	out, err := f.r.read(ctx, s, time.Now().Add(f.r.cfg.CheckpointInterval))
	f.sent += s.emitted
	if err != nil {
		return sdf.StopProcessing(), err
	}
	if pc, ok := resumed(out); ok {
		return pc, nil
	}
	switch out {
	case caughtUp:
		if p.StopTime == 0 || time.Now().UnixMilli() < p.StopTime {
			// Not there yet (a stop offset ahead of the log, or the stop
			// time not reached): poll again.
			return sdf.ResumeProcessingIn(f.r.cfg.PollInterval), nil
		}
	case drained:
		log.Infof(ctx, "kafkaio: %s drained at offset %d", s.source, s.next)
	}
	return sdf.StopProcessing(), finish(rt)
}

// waitBacklog is the first thing of a checkpointing read's step: it
// waits for the run's backlog to drain (flow.WaitBacklog) while the step
// has read nothing, and reports whether the step reads; if not, the step
// ends its bundle, to be resumed after flow.BacklogPause. sent is how
// many records the bundle's earlier steps emitted: they count in the
// backlog, and only the bundle's end passes them on.
func waitBacklog(ctx context.Context, sent int) bool {
	if flow.WaitBacklog(ctx, flow.BacklogWait, sent) {
		return true
	}
	if onPause != nil {
		onPause()
	}
	return false
}

// onPause, if not nil, is called when a read's step ends its bundle
// without reading because the run's backlog is full (tests).
var onPause func()

// resumed returns how a checkpointing read's step that ended with out
// asks to be resumed, if it does: at once, after a checkpoint and when the
// run's backlog is full (the step ends its bundle, which passes its
// records on; the next step waits for the backlog to drain, woken when
// it does: waitBacklog).
func resumed(out outcome) (sdf.ProcessContinuation, bool) {
	switch out {
	case checkpoint, backlogged:
		return sdf.ResumeProcessingIn(0), true
	}
	return nil, false
}

// emitGap claims the offsets after the last record emitted that hold no
// message (transaction markers, records compacted or deleted), if the read
// moved past some, and emits a gap record for them (schemas.Record.Gap), so
// that an acknowledged commit can pass them: no record would account for
// them until the next message arrives.
func (r *reader) emitGap(s *readState) {
	if s.next <= s.from || !s.rt.TryClaim(s.next-1) {
		return
	}
	ts := mtime.MinTimestamp
	if s.we != nil {
		ts = mtime.FromTime(s.we.CurrentWatermark())
	}
	s.emit(ts, []schemas.Record{{Origin: schemas.Origin{Source: s.source, Line: s.next - 1}, Data: []byte{}, From: s.from, Start: s.p.Start, Gap: true}})
	s.from = s.next
}

func restrictionSize(rest offsetrange.Restriction) float64 {
	if rest.End == math.MaxInt64 {
		return 1
	}
	return float64(max(rest.End-rest.Start, 0))
}

// drainCommitTimeout bounds the commit of a drained read: a drain does not
// wait longer than this for a broker that is down or stalled.
var drainCommitTimeout = 10 * time.Second

// commit commits next as the group's offset of p's partition, and reports
// whether it did. A failed
// commit is reported (on stderr too), not returned: it costs only records
// read again after a restart. A drain cancels a commit that waits for the
// broker and makes one more attempt, of at most drainCommitTimeout.
func (r *reader) commit(ctx context.Context, p partitionRead, next int64) bool {
	err := errDrained
	if !Drained(r.cfg.Drain) {
		cctx, cancel := untilDrained(ctx, r.cfg.Drain)
		err = commitOffset(cctx, r.client, r.cfg, p.Partition, next)
		if err != nil && errors.Is(context.Cause(cctx), errDrained) {
			err = errDrained
		}
		cancel()
	}
	when := ""
	if errors.Is(err, errDrained) {
		dctx, cancel := context.WithTimeout(ctx, drainCommitTimeout)
		err = commitOffset(dctx, r.client, r.cfg, p.Partition, next)
		cancel()
		when = fmt.Sprintf(" within the drain's %v", drainCommitTimeout)
	}
	if err != nil {
		log.Warnf(ctx, "kafkaio: offset not committed (the records after the last commit will be read again on restart): %v", err)
		printWait("kafka commit failed", []any{"source", p.source(), "offset", next, "group", r.cfg.Group, "error", err.Error()},
			"kafkaio: %s: offset %d not committed to group %s%s: %v; a run with --start group reads the records after the group's last committed offset again",
			p.source(), next, r.cfg.Group, when, err)
	}
	return err == nil
}
