package archiveio

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x1[[]byte, func(string), error](&expandFn{})
	register.DoFn3x1[context.Context, string, func([]schemas.Record), error](&readFn{})
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
// the formats and batches). It fails the pipeline if nothing matches. A
// file that cannot be opened yields one record at line 0 whose Fault says
// why, so that it is dead-lettered rather than failing the job.
//
// Files are expanded in one worker, then spread over workers one file at a
// time: the unit of parallelism is a file.
func Read(s beam.Scope, pattern string, opts Options) beam.PCollection {
	s = s.Scope("archiveio.Read")
	files := beam.ParDo(s, &expandFn{Pattern: pattern}, beam.Impulse(s))
	files = beam.Reshuffle(s, files)
	return beam.ParDo(s, &readFn{Options: opts}, files)
}

// expandFn emits the files matching Pattern.
type expandFn struct {
	Pattern string
}

// ProcessElement emits the file paths, or fails the pipeline if there are
// none.
func (f *expandFn) ProcessElement(_ []byte, emit func(string)) error {
	files, err := Expand(f.Pattern)
	if err != nil {
		return fmt.Errorf("archiveio.Read: %w", err)
	}
	for _, p := range files {
		emit(p)
	}
	return nil
}

// readFn reads one file into batches of records.
type readFn struct {
	Options Options
}

// ProcessElement reads the file at path. A file that cannot be opened is
// emitted as a faulted record; only cancellation fails the bundle.
func (f *readFn) ProcessElement(ctx context.Context, path string, emit func([]schemas.Record)) error {
	st, err := ReadFile(ctx, path, f.Options, func(recs []schemas.Record) error {
		emit(recs)
		return nil
	})
	bytesRead.Inc(ctx, st.Bytes)
	switch {
	case err == nil:
		filesRead.Inc(ctx, 1)
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	emit([]schemas.Record{{Origin: schemas.Origin{Source: path}, Fault: err.Error()}})
	return nil
}
