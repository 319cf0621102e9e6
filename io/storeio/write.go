package storeio

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

var logOutput io.Writer = os.Stderr

// logger, when set (SetLogger), takes Pebble's error lines (and the
// compaction lines of Close) instead of logOutput.
var logger atomic.Pointer[slog.Logger]

// SetLogger sends the store's lines to l (nil: back to stderr): Pebble's
// errors as msg "pebble" with the error as an attribute, and the line as
// printed on stderr under the attribute "line".
func SetLogger(l *slog.Logger) { logger.Store(l) }

// logLine writes one line to logOutput, or logs it at level as msg with
// attrs (key, value pairs) on the logger set by SetLogger.
func logLine(level slog.Level, msg string, attrs []any, text string) {
	if l := logger.Load(); l != nil {
		l.Log(context.Background(), level, msg, append(attrs, slog.String("line", text))...)
		return
	}
	fmt.Fprintln(logOutput, text)
}

func init() {
	register.DoFn2x1[context.Context, []schemas.Cell, error](&WriteFn{})
}

// Write writes every cell of cells (a PCollection of []schemas.Cell) to the
// embedded store in dir. Each bundle's writes are durable when it ends.
func Write(s beam.Scope, dir string, cells beam.PCollection) {
	beam.ParDo0(s.Scope("storeio.Write"), &WriteFn{Dir: absDir(dir)}, cells)
}

// BulkWrite is Write for a bounded run whose workers run in the process
// that submits it: the store is opened by OpenBulk (no write-ahead log,
// compaction deferred), and the writes become durable when the submitter
// calls FlushOpen after the run. A run that dies before is re-run.
func BulkWrite(s beam.Scope, dir string, cells beam.PCollection) {
	beam.ParDo0(s.Scope("storeio.Write"), &WriteFn{Dir: absDir(dir), Bulk: true}, cells)
}

func absDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return abs
}

// WriteFn writes cell batches to the store. Cells are copied into one
// Pebble batch per bundle as they come (committed early past FlushBytes),
// and a bundle finishes only after its batch is committed.
type WriteFn struct {
	// Dir is the store directory (absolute).
	Dir string
	// FlushBytes commits the pending batch once it holds this many bytes
	// (default 8 MiB).
	FlushBytes int
	// Bulk opens the store with OpenBulk.
	Bulk bool

	store    *Store
	batch    *Batch
	tally    flow.RowTally // cells in batch, counted once committed
	unsynced bool          // committed since the last Sync
}

// Setup opens the store.
func (f *WriteFn) Setup() error {
	if f.FlushBytes <= 0 {
		f.FlushBytes = 8 << 20
	}
	s, err := open(f.Dir, f.Bulk)
	if err != nil {
		return err
	}
	f.store = s
	return nil
}

// validUTF8 returns err with its text made valid UTF-8. A runner sends a
// DoFn's error over gRPC, whose strings must be: one that is not (bytes of
// a key in Pebble's words) failed the runner's report instead ("grpc:
// error while marshaling: string field contains invalid UTF-8"), and the
// run's error was lost.
func validUTF8(err error) error {
	if err == nil || utf8.ValidString(err.Error()) {
		return err
	}
	return textError{strings.ToValidUTF8(err.Error(), "?"), err}
}

// textError is an error with another text (one line, valid UTF-8), the
// error it stands for wrapped.
type textError struct {
	text string
	err  error
}

func (e textError) Error() string { return e.text }
func (e textError) Unwrap() error { return e.err }

// ProcessElement adds one batch of cells to the bundle's batch.
func (f *WriteFn) ProcessElement(ctx context.Context, cells []schemas.Cell) error {
	if f.batch == nil {
		// Batches live only while a bundle writes: a runner keeps an
		// instance of the DoFn for each bundle it may run at once, and
		// idle ones should not hold a batch's buffer.
		f.batch = f.store.NewBatch(0)
	}
	f.tally.Add(cells)
	f.batch.Add(cells) // a bulk load's term cells: to the sorted load
	if f.batch.Len() >= f.FlushBytes {
		return validUTF8(f.flush(ctx))
	}
	return nil
}

// FinishBundle commits what the bundle wrote and makes it durable: a
// runner considers a finished bundle's output written (a Kafka read then
// commits its offsets), and nothing else closes the store at the end of a
// run on prism, which does not tear the sink down.
func (f *WriteFn) FinishBundle(ctx context.Context) error {
	wrote := f.batch != nil || f.unsynced
	if err := f.flush(ctx); err != nil {
		return validUTF8(err)
	}
	f.tally.Count(ctx) // what went to a bulk load's sorted cells
	if f.batch != nil {
		f.batch.Close()
		f.batch = nil
	}
	if !wrote {
		return nil
	}
	f.unsynced = false
	return validUTF8(f.store.Sync())
}

func (f *WriteFn) flush(ctx context.Context) error {
	if f.batch == nil || f.batch.Empty() {
		return nil
	}
	if err := f.batch.Commit(); err != nil {
		return fmt.Errorf("storeio: %w", err)
	}
	f.tally.Count(ctx)
	f.unsynced = true
	return nil
}

// Teardown releases the store.
func (f *WriteFn) Teardown() error {
	if f.store == nil {
		return nil
	}
	if f.batch != nil {
		f.batch.Close()
		f.batch = nil
	}
	err := f.store.Close()
	f.store = nil
	return err
}
