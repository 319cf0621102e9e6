package query

import (
	"context"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// Reader reads the stored tables. The embedded store (*storeio.Store) and
// a Cassandra keyspace (*cassandraio.Reader, which knows how each table is
// partitioned) implement it; the engine knows only the key layouts of
// package schemas.
type Reader interface {
	// Scan calls fn for every cell of table with start <= key < end, in key
	// order. A range of the raw, term and geo tables must lie within what
	// the query planner asks for: one term and field, one spread and day,
	// a time range (see cassandraio.Reader.Scan). key and value are valid
	// only during the call.
	Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error
	// Lookup returns the value of one cell, and whether it exists. A raw
	// table key may be a row key alone (schemas.RowKeyLen bytes): Lookup
	// then returns the first tweet stored under it (the one with the
	// smallest id; a row key holds more than one only after a collision).
	Lookup(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error)
	// ScanAll calls fn for every cell of table in no particular order:
	// the full scans the index answers are measured against.
	ScanAll(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error
}

var (
	_ Reader = (*storeio.Store)(nil)
	_ Reader = (*cassandraio.Reader)(nil)
)
