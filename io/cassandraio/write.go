package cassandraio

import (
	"context"
	"fmt"
	"reflect"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*schemas.Cell)(nil)).Elem())
	register.DoFn2x1[context.Context, []schemas.Cell, error](&WriteFn{})
}

// Counter names of the sink, in namespace "tweetindex". The sink also adds
// acknowledged rows to the per-table row counters of transforms
// (flow.RowCounterName), as the embedded store does, so the run
// summary is the same whichever sink ran.
const (
	CounterRowsWritten = "cassandra_rows_written" // rows acknowledged
	CounterRequests    = "cassandra_requests"     // write requests acknowledged (one partition each)
	CounterBatches     = "cassandra_batches"      // of which UNLOGGED batches of more than one row
	CounterRetries     = "cassandra_retries"      // requests sent again after a retriable failure
)

var (
	rowsWrittenCounter = flow.NewCounter(CounterRowsWritten)
	requestsCounter    = flow.NewCounter(CounterRequests)
	batchesCounter     = flow.NewCounter(CounterBatches)
	retriesCounter     = flow.NewCounter(CounterRetries)
)

// Write writes every cell of cells (a PCollection of []schemas.Cell) to
// the keyspace of cfg, which must already hold the tables (ApplySchema).
// It panics if cfg is invalid: call cfg.Validate first for a clean error.
//
// A bundle finishes only when every row it wrote is acknowledged at cfg's
// consistency level; a write that still fails after its retries fails the
// bundle, and the runner retries the bundle (the writes are upserts of
// deterministic keys, so that is safe).
func Write(s beam.Scope, cfg Config, cells beam.PCollection) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	beam.ParDo0(s.Scope("cassandraio.Write"), &WriteFn{Config: cfg}, cells)
}

// WriteFn is the DoFn of Write. Setup connects (one session per process per
// cluster, shared), each bundle gets a fresh Writer, and FinishBundle
// flushes it.
type WriteFn struct {
	// Config is the sink's configuration.
	Config Config

	session *gocql.Session
	release func()
	w       *Writer
}

// Setup validates the configuration and acquires the shared session.
func (f *WriteFn) Setup() error {
	cfg, s, release, err := openSession(f.Config)
	if err != nil {
		return err
	}
	f.Config, f.session, f.release = cfg, s, release
	return nil
}

// StartBundle starts the bundle's Writer.
func (f *WriteFn) StartBundle() {
	f.w = newWriter(f.Config, f.session, nil)
}

// ProcessElement queues a batch of cells; full partitions are sent at once.
func (f *WriteFn) ProcessElement(ctx context.Context, cells []schemas.Cell) error {
	if f.w == nil {
		f.StartBundle()
	}
	return f.w.Write(ctx, cells)
}

// FinishBundle sends what is pending and waits for every write of the
// bundle to be acknowledged; it returns the first write that failed for good.
func (f *WriteFn) FinishBundle(ctx context.Context) error {
	if f.w == nil {
		return nil
	}
	w := f.w
	f.w = nil
	err := w.Flush(ctx)
	w.cancel()
	w.wg.Wait()
	st := w.Stats()
	rowsWrittenCounter.Inc(ctx, st.Rows)
	requestsCounter.Inc(ctx, st.Requests)
	batchesCounter.Inc(ctx, st.Batches)
	retriesCounter.Inc(ctx, st.Retries)
	for t, n := range st.TableRows {
		flow.CountTableRows(ctx, t, n)
	}
	if err != nil {
		return fmt.Errorf("cassandraio: bundle failed: %w", err)
	}
	return nil
}

// Teardown releases the session.
func (f *WriteFn) Teardown() error {
	if f.w != nil {
		f.w.cancel()
		f.w.wg.Wait()
		f.w = nil
	}
	if f.release != nil {
		f.release()
		f.release = nil
	}
	return nil
}
