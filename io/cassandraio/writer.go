package cassandraio

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

// Writer writes cells to the tables of a keyspace. It groups the rows of
// each partition (bounded by Config.MaxBatchRows and MaxBatchBytes), and
// sends the partitions that one node owns together (its first replica,
// from the partition key's Murmur3 token and the ring the driver knows),
// several partitions to a request up to Config.MaxBatchRows and
// MaxMultiPartitionBytes: an INSERT for one row, an UNLOGGED batch for
// more, which the token-aware policy sends to that node. It keeps
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
	ring     *ring  // nil: every partition counts as one node's
	token    []byte // scratch: a routing key
	vals     []any  // scratch: a row's bind values

	// Slabs the bind values of pending rows are cut from (encode).
	anySlab   []any
	valueSlab []cqlValue
	arena     []byte

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
	owner int32 // the node that owns the partition (ring.owner)
	rows  []row // one per cell key
	bytes int
}

// row is a pending row, or the delete of one.
type row struct {
	hash uint64 // of key, compared first
	key  []byte // the cell's key
	vals []any  // insert bind values, TTL last; or delete bind values (the primary key)
	del  bool
}

// request is what one write request holds: the rows of one or more
// partitions, which one node owns.
type request struct {
	groups []*group
	rows   int
	bytes  int
}

func (r *request) add(g *group) {
	r.groups = append(r.groups, g)
	r.rows += len(g.rows)
	r.bytes += g.bytes
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
	if !cfg.SinglePartitionRequests {
		w.ring = ringOf(s.GetHosts())
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
		var err error
		if c.Delete {
			w.vals, err = schemas.CQLKeyValues(w.vals[:0], c.Table, c.Key)
		} else {
			w.vals, err = schemas.CQLValues(w.vals[:0], *c)
			w.vals = append(w.vals, w.ttl)
		}
		if err != nil {
			return fmt.Errorf("cassandraio: %w", err)
		}
		w.key = schemas.AppendCQLPartition(w.key[:0], *c, w.vals)
		g := w.groups[string(w.key)]
		if g == nil {
			g = &group{table: c.Table, owner: w.owner(c.Table, w.vals)}
			w.groups[string(w.key)] = g
		}
		vals := w.encode(c.Table, w.vals)
		size := len(c.Key) + len(c.Value) + rowOverhead
		if len(g.rows) > 0 && g.bytes+size > w.cfg.MaxBatchBytes && !g.has(c.Key) {
			// The row would overflow the batch: send the batch first.
			w.buffered -= g.bytes
			if err := w.sendGroup(ctx, g); err != nil {
				return err
			}
			g = &group{table: c.Table, owner: g.owner}
			w.groups[string(w.key)] = g
		}
		w.buffered += g.add(c.Key, vals, c.Delete, size)
		if len(g.rows) >= w.cfg.MaxBatchRows || g.bytes >= w.cfg.MaxBatchBytes {
			delete(w.groups, string(w.key))
			w.buffered -= g.bytes
			if err := w.sendGroup(ctx, g); err != nil {
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
func (g *group) has(key []byte) bool { return g.index(key, maphash.Bytes(keySeed, key)) >= 0 }

// keySeed hashes the keys of a group's rows.
var keySeed = maphash.MakeSeed()

// index returns the row of key (whose hash is h), or -1. Keys of one
// partition share a long prefix (a term's, a minute's), so their hashes
// are compared first.
func (g *group) index(key []byte, h uint64) int {
	for i := range g.rows {
		if r := &g.rows[i]; r.hash == h && bytes.Equal(r.key, key) {
			return i
		}
	}
	return -1
}

// cqlValue is a bind value already in the CQL native protocol's form:
// the driver sends its bytes as they are (gocql.Marshaler).
type cqlValue struct{ b []byte }

// MarshalCQL returns the value's bytes (never nil, which would be null).
func (v *cqlValue) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	if v.b == nil {
		return []byte{}, nil
	}
	return v.b, nil
}

// slabSize is how many values a slab holds, arenaSize how many bytes.
const (
	slabSize  = 4096
	arenaSize = 64 << 10
)

// encode returns a row's bind values (schemas.CQLValues or CQLKeyValues
// of a cell of table t, then the TTL for an insert) in the protocol's
// form, cut from the Writer's slabs: blobs refer to the cell's bytes,
// the other values are written into an arena. The driver then marshals
// nothing: one allocation per many rows instead of several per value.
func (w *Writer) encode(t schemas.Table, vals []any) []any {
	cols := schemas.CQLTableOf(t).Columns()
	n := len(vals)
	if cap(w.anySlab)-len(w.anySlab) < n {
		w.anySlab = make([]any, 0, slabSize)
		w.valueSlab = make([]cqlValue, 0, slabSize)
	}
	at := len(w.anySlab)
	out := w.anySlab[at : at+n : at+n]
	vs := w.valueSlab[at : at+n : at+n]
	w.anySlab, w.valueSlab = w.anySlab[:at+n], w.valueSlab[:at+n]
	for i, v := range vals {
		if b, ok := v.([]byte); ok {
			vs[i].b = b
		} else {
			need := 8
			if s, ok := v.(string); ok {
				need = len(s)
			}
			if cap(w.arena)-len(w.arena) < need {
				w.arena = make([]byte, 0, max(arenaSize, need))
			}
			typ := schemas.CQLInt // the TTL, after the columns
			if i < len(cols) {
				typ = cols[i].Type
			}
			from := len(w.arena)
			w.arena = appendCQLValue(w.arena, typ, v)
			vs[i].b = w.arena[from:len(w.arena):len(w.arena)]
		}
		out[i] = &vs[i]
	}
	return out
}

// owner returns the node that owns the partition of a row of table t
// whose bind values are vals.
func (w *Writer) owner(t schemas.Table, vals []any) int32 {
	if w.ring == nil {
		return 0
	}
	w.token = appendRoutingKey(w.token[:0], schemas.CQLTableOf(t), vals)
	return w.ring.owner(murmur3Token(w.token))
}

// add adds a row (or the delete of one), replacing an earlier row of the
// same key; it returns the change in bytes.
func (g *group) add(key []byte, vals []any, del bool, size int) int {
	h := maphash.Bytes(keySeed, key)
	if i := g.index(key, h); i >= 0 {
		g.rows[i].vals, g.rows[i].del = vals, del
		return 0
	}
	g.rows = append(g.rows, row{hash: h, key: key, vals: vals, del: del})
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

// maxStatements is the most statements a batch holds (the protocol's
// count is a short).
const maxStatements = 65535

// sendAll sends every pending partition (pack).
func (w *Writer) sendAll(ctx context.Context) error {
	for _, r := range w.pack() {
		if err := w.send(ctx, r); err != nil {
			return err
		}
	}
	w.buffered = 0
	return nil
}

// pack takes every pending partition and returns the requests that send
// them: those one node owns together, several to a request, up to
// MaxMultiPartitionBytes; a partition of that size or more goes alone.
func (w *Writer) pack() []*request {
	var out []*request
	pending := map[int32]*request{}
	for k, g := range w.groups {
		delete(w.groups, k)
		if w.cfg.SinglePartitionRequests || g.bytes >= w.cfg.MaxMultiPartitionBytes {
			out = append(out, &request{groups: []*group{g}, rows: len(g.rows), bytes: g.bytes})
			continue
		}
		r := pending[g.owner]
		if r != nil && (r.rows+len(g.rows) > maxStatements || r.bytes+g.bytes > w.cfg.MaxMultiPartitionBytes) {
			out = append(out, r)
			r = nil
		}
		if r == nil {
			r = &request{}
			pending[g.owner] = r
		}
		r.add(g)
	}
	for _, r := range pending {
		out = append(out, r)
	}
	return out
}

// sendGroup sends a partition's rows as a request of their own.
func (w *Writer) sendGroup(ctx context.Context, g *group) error {
	r := &request{}
	r.add(g)
	return w.send(ctx, r)
}

// send starts a request once a slot is free.
func (w *Writer) send(ctx context.Context, r *request) error {
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
		if err := w.execute(r, ts); err != nil {
			w.fail(err)
		}
	}()
	return nil
}

// execute sends a request, retrying retriable failures.
func (w *Writer) execute(r *request, ts int64) error {
	for attempt := 0; ; attempt++ {
		err := w.exec1(r, ts)
		if err == nil {
			w.rows.Add(int64(r.rows))
			for _, g := range r.groups {
				w.tableRows[g.table].Add(int64(len(g.rows)))
			}
			w.requests.Add(1)
			if r.rows > 1 {
				w.batches.Add(1)
			}
			return nil
		}
		if !retriable(err) || attempt >= w.cfg.MaxRetries || w.ctx.Err() != nil {
			return fmt.Errorf("cassandraio: writing %s failed after %d attempt(s): %w", r, attempt+1, err)
		}
		w.retries.Add(1)
		if err := sleep(w.ctx, backoff(attempt, w.cfg.MinBackoff, w.cfg.MaxBackoff)); err != nil {
			return fmt.Errorf("cassandraio: writing %s: canceled while retrying: %w", r, err)
		}
	}
}

// String says what a request writes: "3 rows of one raw_tweets
// partition", "70 rows of 12 partitions of term_index, tweet_identity".
func (r *request) String() string {
	var names []string
	for _, g := range r.groups {
		if n := schemas.CQLTableOf(g.table).Name; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(r.groups) == 1 {
		return fmt.Sprintf("%d rows of one %s partition", r.rows, names[0])
	}
	return fmt.Sprintf("%d rows of %d partitions of %s", r.rows, len(r.groups), strings.Join(names, ", "))
}

func (w *Writer) exec1(r *request, ts int64) error {
	text := func(g *group, i int) string {
		if g.rows[i].del {
			return w.deletes[g.table]
		}
		return w.inserts[g.table]
	}
	if r.rows == 1 {
		g := r.groups[0]
		return w.session.Query(text(g, 0), g.rows[0].vals...).Consistency(w.cl).WithTimestamp(ts).Idempotent(true).ExecContext(w.ctx)
	}
	b := w.session.Batch(gocql.UnloggedBatch).Consistency(w.cl).WithTimestamp(ts)
	b.Entries = make([]gocql.BatchEntry, 0, r.rows)
	for _, g := range r.groups {
		for i := range g.rows {
			b.Query(text(g, i), g.rows[i].vals...)
		}
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
