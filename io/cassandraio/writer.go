package cassandraio

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

// Writer writes cells to the tables of a keyspace. It groups the rows of
// each partition into one request (an INSERT for one row, an UNLOGGED
// batch for more, bounded by Config.MaxBatchRows and MaxBatchBytes), keeps
// at most Config.MaxInFlight requests in flight, and retries a request
// that failed with a retriable error (see Config.MaxRetries) with
// exponential backoff. Flush returns once every row written so far is
// acknowledged, or with the first error of a request that failed for good;
// after such an error the Writer refuses further writes.
//
// Every request carries a write timestamp, taken (strictly increasing) when
// it is first sent and kept across its retries, so a retried request never
// overwrites a newer value of the same key sent in between; a key written
// twice before its partition's request is sent keeps only the later value.
//
// Write and Flush must not be called concurrently (one Writer per bundle);
// requests run in their own goroutines. The Writer keeps references to the
// bytes of the cells given to Write until their rows are acknowledged: do
// not modify them before Flush returns.
type Writer struct {
	cfg     Config
	session *gocql.Session
	release func()
	cl      gocql.Consistency
	ttl     int32
	inserts map[schemas.Table]string
	deletes map[schemas.Table]string

	ctx    context.Context // of the requests: canceled by Close
	cancel context.CancelFunc

	groups   map[string]*group
	buffered int
	key      []byte

	sem chan struct{}
	wg  sync.WaitGroup

	errMu sync.Mutex
	err   error

	rows, requests, batches, retries atomic.Int64
	tableRows                        [256]atomic.Int64
}

// group is the pending rows of one partition.
type group struct {
	table schemas.Table
	keys  [][]byte // cell keys, to keep one row per key
	rows  [][]any  // insert bind values, TTL last; or delete bind values (the primary key)
	del   []bool   // whether each row is a delete
	bytes int
}

// rowOverhead approximates the per-row bytes of a request beyond the
// cell's key and value (lengths, derived columns, TTL).
const rowOverhead = 32

// NewWriter validates cfg and returns a Writer over the process's shared
// session for cfg's cluster. Close it when done.
func NewWriter(cfg Config) (*Writer, error) {
	cfg, s, release, err := openSession(cfg)
	if err != nil {
		return nil, err
	}
	return newWriter(cfg, s, release), nil
}

// newWriter returns a Writer for a validated cfg (with defaults) over s;
// release, if not nil, is called by Close.
func newWriter(cfg Config, s *gocql.Session, release func()) *Writer {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Writer{
		cfg:     cfg,
		session: s,
		release: release,
		cl:      cfg.consistency(),
		ttl:     cfg.ttlSeconds(),
		inserts: map[schemas.Table]string{},
		deletes: map[schemas.Table]string{},
		ctx:     ctx,
		cancel:  cancel,
		groups:  map[string]*group{},
		sem:     make(chan struct{}, cfg.MaxInFlight),
	}
	for _, t := range schemas.CQLTables() {
		w.inserts[t.Table] = schemas.CQLInsertStatement(cfg.Keyspace, t).Text
		w.deletes[t.Table] = schemas.CQLDeleteStatement(cfg.Keyspace, t).Text
	}
	return w
}

// Write queues cells for writing and sends every partition whose batch is
// full. It blocks while MaxInFlight requests are in flight. It fails for a
// cell the tables cannot hold (schemas.CQLValues), or with the error of an
// earlier request that failed for good.
func (w *Writer) Write(ctx context.Context, cells []schemas.Cell) error {
	if err := w.failure(); err != nil {
		return err
	}
	for i := range cells {
		c := &cells[i]
		var vals []any
		var err error
		if c.Delete {
			vals, err = schemas.CQLKeyValues(make([]any, 0, 8), c.Table, c.Key)
		} else {
			vals, err = schemas.CQLValues(make([]any, 0, 8), *c)
			vals = append(vals, w.ttl)
		}
		if err != nil {
			return fmt.Errorf("cassandraio: %w", err)
		}
		w.key = schemas.AppendCQLPartition(w.key[:0], *c, vals)
		g := w.groups[string(w.key)]
		if g == nil {
			g = &group{table: c.Table}
			w.groups[string(w.key)] = g
		}
		size := len(c.Key) + len(c.Value) + rowOverhead
		if len(g.rows) > 0 && g.bytes+size > w.cfg.MaxBatchBytes && !g.has(c.Key) {
			// The row would overflow the batch: send the batch first.
			w.buffered -= g.bytes
			if err := w.send(ctx, g); err != nil {
				return err
			}
			g = &group{table: c.Table}
			w.groups[string(w.key)] = g
		}
		w.buffered += g.add(c.Key, vals, c.Delete, size)
		if len(g.rows) >= w.cfg.MaxBatchRows || g.bytes >= w.cfg.MaxBatchBytes {
			delete(w.groups, string(w.key))
			w.buffered -= g.bytes
			if err := w.send(ctx, g); err != nil {
				return err
			}
		}
	}
	if w.buffered >= w.cfg.MaxBufferedBytes {
		return w.sendAll(ctx)
	}
	return nil
}

// has reports whether the group holds a row of key.
func (g *group) has(key []byte) bool { return g.index(key) >= 0 }

func (g *group) index(key []byte) int {
	for i, k := range g.keys {
		if bytes.Equal(k, key) {
			return i
		}
	}
	return -1
}

// add adds a row (or the delete of one), replacing an earlier row of the
// same key; it returns the change in bytes.
func (g *group) add(key []byte, vals []any, del bool, size int) int {
	if i := g.index(key); i >= 0 {
		g.rows[i], g.del[i] = vals, del
		return 0
	}
	g.keys = append(g.keys, key)
	g.rows = append(g.rows, vals)
	g.del = append(g.del, del)
	g.bytes += size
	return size
}

// Flush sends every pending row and waits until all requests are
// acknowledged. It returns the first error of a request that failed after
// its retries, or ctx's error.
func (w *Writer) Flush(ctx context.Context) error {
	if err := w.sendAll(ctx); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		w.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("cassandraio: flush: %w", ctx.Err())
	}
	return w.failure()
}

// Close flushes, then cancels what is still in flight (only if ctx ended
// first) and releases the session.
func (w *Writer) Close(ctx context.Context) error {
	err := w.Flush(ctx)
	w.cancel()
	w.wg.Wait()
	if w.release != nil {
		w.release()
		w.release = nil
	}
	return err
}

// WriterStats counts what a Writer had acknowledged.
type WriterStats struct {
	// Rows counts rows acknowledged.
	Rows int64
	// Requests counts write requests acknowledged: each holds the rows of
	// one partition.
	Requests int64
	// Batches counts the requests that were UNLOGGED batches (more than one
	// row); the others were single INSERTs.
	Batches int64
	// Retries counts requests sent again after a retriable failure.
	Retries int64
	// TableRows counts rows acknowledged per table.
	TableRows map[schemas.Table]int64
}

// Stats returns the counts so far.
func (w *Writer) Stats() WriterStats {
	st := WriterStats{
		Rows:      w.rows.Load(),
		Requests:  w.requests.Load(),
		Batches:   w.batches.Load(),
		Retries:   w.retries.Load(),
		TableRows: map[schemas.Table]int64{},
	}
	for _, t := range schemas.Tables {
		if n := w.tableRows[t].Load(); n > 0 {
			st.TableRows[t] = n
		}
	}
	return st
}

func (w *Writer) sendAll(ctx context.Context) error {
	for k, g := range w.groups {
		delete(w.groups, k)
		if err := w.send(ctx, g); err != nil {
			return err
		}
	}
	w.buffered = 0
	return nil
}

// send starts the request of a group once a slot is free.
func (w *Writer) send(ctx context.Context, g *group) error {
	if err := w.failure(); err != nil {
		return err
	}
	ts := nextTimestamp()
	select {
	case w.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("cassandraio: write: %w", ctx.Err())
	}
	w.wg.Add(1)
	go func() {
		defer func() {
			<-w.sem
			w.wg.Done()
		}()
		if err := w.execute(g, ts); err != nil {
			w.fail(err)
		}
	}()
	return nil
}

// execute sends a group's request, retrying retriable failures.
func (w *Writer) execute(g *group, ts int64) error {
	for attempt := 0; ; attempt++ {
		err := w.exec1(g, ts)
		if err == nil {
			n := int64(len(g.rows))
			w.rows.Add(n)
			w.tableRows[g.table].Add(n)
			w.requests.Add(1)
			if n > 1 {
				w.batches.Add(1)
			}
			return nil
		}
		if !retriable(err) || attempt >= w.cfg.MaxRetries || w.ctx.Err() != nil {
			return fmt.Errorf("cassandraio: writing %d rows of one %s partition failed after %d attempt(s): %w",
				len(g.rows), schemas.CQLTableOf(g.table).Name, attempt+1, err)
		}
		w.retries.Add(1)
		if err := sleep(w.ctx, backoff(attempt, w.cfg.MinBackoff, w.cfg.MaxBackoff)); err != nil {
			return fmt.Errorf("cassandraio: writing %d rows of one %s partition: canceled while retrying: %w",
				len(g.rows), schemas.CQLTableOf(g.table).Name, err)
		}
	}
}

func (w *Writer) exec1(g *group, ts int64) error {
	text := func(i int) string {
		if g.del[i] {
			return w.deletes[g.table]
		}
		return w.inserts[g.table]
	}
	if len(g.rows) == 1 {
		return w.session.Query(text(0), g.rows[0]...).Consistency(w.cl).WithTimestamp(ts).Idempotent(true).ExecContext(w.ctx)
	}
	b := w.session.Batch(gocql.UnloggedBatch).Consistency(w.cl).WithTimestamp(ts)
	for i, r := range g.rows {
		b.Query(text(i), r...)
	}
	return b.ExecContext(w.ctx)
}

func (w *Writer) fail(err error) {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *Writer) failure() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// lastTimestamp makes write timestamps strictly increasing within the
// process, so two requests never tie.
var lastTimestamp atomic.Int64

// nextTimestamp returns a write timestamp in microseconds since 1970.
func nextTimestamp() int64 {
	for {
		now := time.Now().UnixMicro()
		last := lastTimestamp.Load()
		if now <= last {
			now = last + 1
		}
		if lastTimestamp.CompareAndSwap(last, now) {
			return now
		}
	}
}
