package cassandraio

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

// Reader reads the tables of a keyspace back as cells, byte for byte the
// cells that were written (schemas.CellFromCQL checks every row).
type Reader struct {
	cfg     Config
	session *gocql.Session
	release func()
}

// NewReader validates cfg and returns a Reader over the process's shared
// session for cfg's cluster. Close it when done.
func NewReader(cfg Config) (*Reader, error) {
	cfg, s, release, err := openSession(cfg)
	if err != nil {
		return nil, err
	}
	return &Reader{cfg: cfg, session: s, release: release}, nil
}

// Close releases the session.
func (r *Reader) Close() error {
	if r.release != nil {
		r.release()
		r.release = nil
	}
	return nil
}

// ScanAll calls fn for every cell of table, in no particular key order:
// partitions come in the cluster's token order (the test server's own
// order), the rows of a partition in clustering order. It pages through
// the table (Config.PageSize rows a page) and retries a page that failed
// with a retriable error. It stops at the first error of fn. fn may keep
// key and value.
func (r *Reader) ScanAll(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error {
	ct := schemas.CQLTableOf(table)
	if ct == nil {
		return fmt.Errorf("cassandraio: unknown table %q", byte(table))
	}
	stmt := schemas.CQLSelectStatement(r.cfg.Keyspace, ct, schemas.CQLSelectAll)
	return r.pages(ctx, stmt.Text, nil, ct, func(c schemas.Cell) error { return fn(c.Key, c.Value) })
}

// ScanPartition calls fn for every row of the partition that holds key in
// table (any key of the partition will do), in clustering order: e.g. all
// tweets of a term in one hour, in time order.
func (r *Reader) ScanPartition(ctx context.Context, table schemas.Table, key []byte, fn func(schemas.Cell) error) error {
	ct := schemas.CQLTableOf(table)
	if ct == nil {
		return fmt.Errorf("cassandraio: unknown table %q", byte(table))
	}
	vals, err := schemas.CQLKeyValues(nil, table, key)
	if err != nil {
		return fmt.Errorf("cassandraio: %w", err)
	}
	stmt := schemas.CQLSelectStatement(r.cfg.Keyspace, ct, schemas.CQLSelectPartition)
	return r.pages(ctx, stmt.Text, vals[:len(ct.PartitionKey)], ct, fn)
}

// ScanPartitionValues is ScanPartition with the partition named by the
// values of its partition key columns (in schemas.CQLKeyValues's types and
// order) rather than by a key: a reader that walks every bucket of a minute
// of raw tweets names partitions no key it holds belongs to.
func (r *Reader) ScanPartitionValues(ctx context.Context, table schemas.Table, vals []any, fn func(schemas.Cell) error) error {
	ct := schemas.CQLTableOf(table)
	if ct == nil {
		return fmt.Errorf("cassandraio: unknown table %q", byte(table))
	}
	if len(vals) < len(ct.PartitionKey) {
		return fmt.Errorf("cassandraio: %s: %d partition key values, want %d", ct.Name, len(vals), len(ct.PartitionKey))
	}
	stmt := schemas.CQLSelectStatement(r.cfg.Keyspace, ct, schemas.CQLSelectPartition)
	return r.pages(ctx, stmt.Text, vals[:len(ct.PartitionKey)], ct, fn)
}

// ScanSlice calls fn for the rows of one partition (named by the values
// of its partition key columns, as in ScanPartitionValues) whose first
// clustering column lies in [lo, hi), in clustering order: one geohash
// prefix of a (spread, day) of the geotemporal index, say. lo and hi are
// of that column's type (schemas.CQLKeyValues).
func (r *Reader) ScanSlice(ctx context.Context, table schemas.Table, vals []any, lo, hi any, fn func(schemas.Cell) error) error {
	ct := schemas.CQLTableOf(table)
	if ct == nil {
		return fmt.Errorf("cassandraio: unknown table %q", byte(table))
	}
	if len(ct.Clustering) == 0 {
		return fmt.Errorf("cassandraio: %s has no clustering columns to slice", ct.Name)
	}
	if len(vals) < len(ct.PartitionKey) {
		return fmt.Errorf("cassandraio: %s: %d partition key values, want %d", ct.Name, len(vals), len(ct.PartitionKey))
	}
	stmt := schemas.CQLSelectStatement(r.cfg.Keyspace, ct, schemas.CQLSelectSlice)
	binds := append(slices.Clone(vals[:len(ct.PartitionKey)]), lo, hi)
	return r.pages(ctx, stmt.Text, binds, ct, fn)
}

// Get returns the value of the cell with key in table, and whether it exists.
func (r *Reader) Get(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error) {
	ct := schemas.CQLTableOf(table)
	if ct == nil {
		return nil, false, fmt.Errorf("cassandraio: unknown table %q", byte(table))
	}
	vals, err := schemas.CQLKeyValues(nil, table, key)
	if err != nil {
		return nil, false, fmt.Errorf("cassandraio: %w", err)
	}
	stmt := schemas.CQLSelectStatement(r.cfg.Keyspace, ct, schemas.CQLSelectRow)
	if len(ct.Clustering) == 0 {
		stmt = schemas.CQLSelectStatement(r.cfg.Keyspace, ct, schemas.CQLSelectPartition)
	}
	var value []byte
	found := false
	err = r.pages(ctx, stmt.Text, vals, ct, func(c schemas.Cell) error {
		value, found = c.Value, true
		return nil
	})
	return value, found, err
}

// pages runs a select page by page, retrying a failed page.
func (r *Reader) pages(ctx context.Context, text string, binds []any, ct *schemas.CQLTable, fn func(schemas.Cell) error) error {
	cl := r.cfg.consistency()
	if cl == gocql.Any {
		cl = gocql.One // ANY is for writes only
	}
	sc := schemas.NewCQLRowScanner(ct)
	var state []byte
	for {
		var next []byte
		var cells []schemas.Cell
		var err error
		for attempt := 0; ; attempt++ {
			cells, next, err = r.page(ctx, text, binds, cl, state, sc)
			if err == nil || !retriable(err) || attempt >= r.cfg.MaxRetries || ctx.Err() != nil {
				break
			}
			if err := sleep(ctx, backoff(attempt, r.cfg.MinBackoff, r.cfg.MaxBackoff)); err != nil {
				return fmt.Errorf("cassandraio: read %s: %w", ct.Name, err)
			}
		}
		if err != nil {
			return fmt.Errorf("cassandraio: read %s: %w", ct.Name, err)
		}
		for _, c := range cells {
			if err := fn(c); err != nil {
				return err
			}
		}
		if len(next) == 0 {
			return nil
		}
		state = next
	}
}

// page reads one page: its cells and the paging state of the next.
func (r *Reader) page(ctx context.Context, text string, binds []any, cl gocql.Consistency, state []byte, sc *schemas.CQLRowScanner) ([]schemas.Cell, []byte, error) {
	iter := r.session.Query(text, binds...).Consistency(cl).PageSize(r.cfg.PageSize).PageState(state).IterContext(ctx)
	next := bytes.Clone(iter.PageState())
	var cells []schemas.Cell
	var cerr error
	for iter.Scan(sc.Dest()...) {
		c, err := sc.Cell()
		if err != nil && cerr == nil {
			cerr = err
		}
		cells = append(cells, c)
	}
	if err := iter.Close(); err != nil {
		return nil, nil, err
	}
	if cerr != nil {
		return nil, nil, cerr
	}
	return cells, next, nil
}
