package archiveio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func init() {
	register.DoFn2x1[[]byte, func(string), error](&expandFn{})
	register.DoFn4x2[context.Context, *sdf.LockRTracker, string, func([]schemas.Record), sdf.ProcessContinuation, error](&pacedReadFn{})
	register.DoFn4x1[context.Context, *sdf.LockRTracker, string, func([]schemas.Record), error](&boundedReadFn{})
	register.Emitter1[string]()
	register.Emitter1[[]schemas.Record]()
	beam.RegisterType(reflect.TypeOf((*schemas.Record)(nil)).Elem())
}

// counterNamespace is the Beam metrics namespace of the project's counters.
const counterNamespace = "tweetindex"

// Counter names, in namespace "tweetindex".
const (
	// CounterFilesRead counts the files opened and read.
	CounterFilesRead = "files_read"
	// CounterBytesRead counts the bytes read from disk (compressed).
	CounterBytesRead = "bytes_read"
)

var (
	filesRead = beam.NewCounter(counterNamespace, CounterFilesRead)
	bytesRead = beam.NewCounter(counterNamespace, CounterBytesRead)
)

// Read returns a PCollection of []schemas.Record batches read from every
// file matching pattern (see Expand for the pattern syntax, ReadFile for
// the formats and batches) that can hold tweets of opts.Range. It fails the pipeline if nothing matches. A
// file that cannot be opened yields one record at line 0 whose Fault says
// why, so that it is dead-lettered rather than failing the job.
//
// Files are expanded in one worker, then spread over workers one file at a
// time: the unit of parallelism is a file. Each file is read by a
// splittable DoFn, in one call, and the output is a bounded PCollection
// (Flink and Dataflow run it as a batch job, and pass a bundle's output
// on as it is emitted); or, with opts.Paced, in steps of
// DefaultBundleBatches batches, checkpointing between them, so that a
// bundle's output, and what a runner that holds it until the bundle ends
// (prism) holds of it at a time, stays small however large the file: the
// output is then unbounded to Beam.
func Read(s beam.Scope, pattern string, opts Options) beam.PCollection {
	s = s.Scope("archiveio.Read")
	// A relative pattern names files from the directory of the process
	// that builds the pipeline; workers in other processes (a worker
	// pool, a cluster) run elsewhere.
	if abs, err := filepath.Abs(pattern); err == nil {
		pattern = abs
	}
	files := beam.ParDo(s, &expandFn{Pattern: pattern, Range: opts.Range}, beam.Impulse(s))
	files = beam.Reshuffle(s, files)
	if opts.Paced {
		return beam.ParDo(s, &pacedReadFn{readBaseFn: readBaseFn{Options: opts}}, files)
	}
	return beam.ParDo(s, &boundedReadFn{readBaseFn{Options: opts}}, files)
}

// expandFn emits the files matching Pattern that can hold tweets of Range.
type expandFn struct {
	Pattern string
	Range   TimeRange
}

// ProcessElement emits the file paths, or fails the pipeline if there are
// none.
func (f *expandFn) ProcessElement(_ []byte, emit func(string)) error {
	files, err := Expand(f.Pattern)
	if err != nil {
		return fmt.Errorf("archiveio.Read: %w", err)
	}
	for _, p := range Select(files, f.Range) {
		emit(p)
	}
	return nil
}

// DefaultBundleBatches is how many batches a bundle reads from one file
// before it checkpoints (in a run with local flow control, a bundle also
// ends when the backlog is full: MaxBacklog is 16 batches of 1,024).
//
// Fewer, larger bundles cost prism less: prism v2.77 spins a core in
// stage.Execute from the moment a bundle's output data is complete until
// its response arrives (a closed channel left in a select), and in a
// process with two cores that spin holds the response up for as long as
// the Go scheduler takes to preempt it (about 10 ms), every bundle that
// emits. A throwaway prism with the channel cleared took 1M tweets over
// 1 hour from 27 to 23.5 s; 16 batches instead of 4 took it to 24.0-24.3 s
// (26.5-26.7 s before), 1M over 30 days to 26.1-27.1 s (27.6-32.2), the
// 100K bench to 2.72-2.78 s (2.80-3.62); 64 was no faster than 16.
const DefaultBundleBatches = 16

// readBaseFn is what the two file readers share, as textio's readBaseFn:
// a splittable DoFn over a file's batch indexes [0, math.MaxInt64), which
// claims each batch before emitting it.
type readBaseFn struct {
	Options Options
}

// CreateInitialRestriction covers every batch of the file.
func (f *readBaseFn) CreateInitialRestriction(string) offsetrange.Restriction {
	return offsetrange.Restriction{Start: 0, End: math.MaxInt64}
}

// SplitRestriction keeps a file whole: batches are found by reading.
func (f *readBaseFn) SplitRestriction(_ string, rest offsetrange.Restriction) []offsetrange.Restriction {
	return []offsetrange.Restriction{rest}
}

// RestrictionSize is a constant: a file's size in batches is not known
// before it is read.
func (f *readBaseFn) RestrictionSize(string, offsetrange.Restriction) float64 { return 1 }

// CreateTracker tracks the batches claimed.
func (f *readBaseFn) CreateTracker(rest offsetrange.Restriction) *sdf.LockRTracker {
	return sdf.NewLockRTracker(offsetrange.NewTracker(rest))
}

// readOn emits the batches of c from the restriction's first, until the
// end of the file, or until more returns false before a batch (then it
// returns false, the file not read to its end). A batch the tracker
// refuses (the runner split the rest off) ends the read: c is closed and
// stop is true.
func readOn(rt *sdf.LockRTracker, c *cursor, emit func([]schemas.Record), more func() bool) (ended, stop bool) {
	for more() {
		recs, ok := c.take()
		if !ok {
			return true, false
		}
		if !rt.TryClaim(c.next - 1) {
			c.close()
			return false, true
		}
		emit(recs)
	}
	return false, false
}

// end claims the rest of the file's range once its last batch is read,
// counts the file, and emits the read's failure, if any, as a faulted
// record at line 0. Only cancellation is an error.
func (f *readBaseFn) end(ctx context.Context, rt *sdf.LockRTracker, path string, c *cursor, emit func([]schemas.Record)) error {
	rt.TryClaim(int64(math.MaxInt64 - 1))
	bytesRead.Inc(ctx, c.stats.Bytes)
	localFiles.Add(1)
	switch err := c.err; {
	case err == nil:
		filesRead.Inc(ctx, 1)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	default:
		noteUnreadable(path, err)
		emit([]schemas.Record{{Origin: schemas.Origin{Source: path}, Fault: err.Error()}})
	}
	return nil
}

// boundedReadFn reads one file into batches of records in one call, and
// its output is a bounded PCollection: a batch job on Flink and Dataflow,
// whose runners pass a bundle's output on as it is emitted (prism holds
// it until the bundle ends: runs whose workers share its process use
// pacedReadFn).
type boundedReadFn struct {
	readBaseFn
}

// ProcessElement reads the file at path from the restriction's first
// batch to its end. A file that cannot be opened is emitted as a faulted
// record; only cancellation fails the bundle.
func (f *boundedReadFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, path string, emit func([]schemas.Record)) error {
	c := takeCursor(path, rt.GetRestriction().(offsetrange.Restriction).Start, f.Options)
	if ended, _ := readOn(rt, c, emit, func() bool { return true }); !ended {
		return nil
	}
	return f.end(ctx, rt, path, c, emit)
}

// pacedReadFn reads one file into batches of records in steps (Options.Paced):
// it checkpoints after DefaultBundleBatches batches, or as soon as the
// run's backlog is full (flow.Backlogged), leaving the file open (a
// cursor) for the bundle that resumes it. A splittable DoFn that
// checkpoints is unbounded to Beam.
type pacedReadFn struct {
	readBaseFn

	sent int // records emitted in this bundle, for flow.WaitBacklog
}

// StartBundle counts the bundle's records from zero.
func (f *pacedReadFn) StartBundle(_ func([]schemas.Record)) { f.sent = 0 }

// ProcessElement reads the file at path from the restriction's first
// batch, a step at a time. A file that cannot be opened is emitted as a
// faulted record; only cancellation fails the bundle.
func (f *pacedReadFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, path string, emit func([]schemas.Record)) (sdf.ProcessContinuation, error) {
	if mustWait(path) {
		return sdf.ResumeProcessingIn(flow.BacklogPause), nil
	}
	// Nothing of this file is read yet in this bundle, so it waits for the
	// backlog in the bundle rather than end it. Prism may put several files
	// in one bundle, and the batches of the earlier ones reach
	// deduplication only when the bundle ends: WaitBacklog is told how many
	// records they were (f.sent, at least the tweets they hold) so that it
	// does not wait a second on them. (Not waiting at all in bundles that
	// emitted measured slower on 1M tweets over 30 days: 79-92 s, not 68-75.)
	if !flow.WaitBacklog(ctx, flow.BacklogWait, f.sent) {
		return sdf.ResumeProcessingIn(flow.BacklogPause), nil
	}
	c := takeCursor(path, rt.GetRestriction().(offsetrange.Restriction).Start, f.Options)
	n, pause := 0, time.Duration(0)
	ended, stop := readOn(rt, c, func(recs []schemas.Record) {
		emit(recs)
		f.sent += len(recs)
	}, func() bool {
		switch {
		case n == DefaultBundleBatches:
			return false
		case flow.Backlogged():
			pause = flow.BacklogPause
			return false
		}
		n++
		return true
	})
	switch {
	case stop:
		return sdf.StopProcessing(), nil
	case !ended:
		c.park()
		return sdf.ResumeProcessingIn(pause), nil
	}
	return sdf.StopProcessing(), f.end(ctx, rt, path, c, emit)
}
