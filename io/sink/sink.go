// Package sink is the one way to read the tables a run writes, from the
// embedded store (package storeio) and from a Cassandra keyspace (package
// cassandraio) alike: Reader, which both implement, and Open, which opens
// either for the steps of a run around its pipeline (run records, marks,
// recounts, forget) and for the commands that read the tables (dump,
// query, --watch, backfill status).
//
// For each table, its key is built and decoded in package schemas (the
// table's Row type: Cell, and DecodeRaw, DecodeTerm and the others), and
// it is read through Reader: a key range of the store is a range of its one
// ordered key space (storeio.Store.Scan); on Cassandra it is the partitions
// that hold the range (which ones: the table's registry entry,
// schemas.TableSpec.CQLRange; read by io/cassandraio/ranges.go).
package sink

import (
	"bytes"
	"context"
	"errors"
	"os"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Reader reads the stored tables. The embedded store (*storeio.Store) and
// a Cassandra keyspace (*cassandraio.Reader, which knows how each table is
// partitioned) implement it; its users know only the key layouts of
// package schemas.
type Reader interface {
	// Scan calls fn for every cell of table with start <= key < end, in key
	// order. nil start and end read the whole table (on Cassandra, into
	// memory, sorted: ScanAll streams). Any other range of a table read
	// by partitions must lie within what its Cassandra partitions allow
	// (schemas.TableSpec.CQLRange): a time range of raw rows or authors (or
	// the tweets of one row key), one term and field over a time range, a
	// range of minutes, one spread and day of geo rows, one kind and day of
	// edges, one day and field of term counts (see cassandraio.Reader.Scan).
	// key and value are valid only during the call.
	Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error
	// Lookup returns the value of one cell, and whether it exists. A raw
	// table key may be a row key alone (schemas.RowKeyLen bytes): Lookup
	// then returns the first tweet stored under it (the one with the
	// smallest id; a row key holds more than one only after a collision).
	Lookup(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error)
	// ScanAll calls fn for every cell of table in no particular order,
	// streaming: full scans, and readers that stop at the first cell.
	ScanAll(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error
}

var (
	_ Reader = (*storeio.Store)(nil)
	_ Reader = (*cassandraio.Reader)(nil)
)

// ScanPrefix calls fn for every cell of table whose key begins with
// prefix, in key order (Scan of the prefix's range).
func ScanPrefix(ctx context.Context, r Reader, table schemas.Table, prefix []byte, fn func(key, value []byte) error) error {
	return r.Scan(ctx, table, prefix, PrefixEnd(prefix), fn)
}

// PrefixEnd returns the first key after every key that begins with p
// (nil: none, when p is empty or all 0xff).
func PrefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i]++; end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// Config names a sink and how to open it.
type Config struct {
	// Store is the embedded store's directory; Cassandra, when it is not
	// nil, names a keyspace instead.
	Store     string
	Cassandra *cassandraio.Config
	// Create creates a store that does not exist (storeio.Open): a run
	// opening the sink it writes. Readers leave it false, and a directory
	// that does not exist or holds no store is an error (rather than a new
	// empty store).
	Create bool
	// CacheSize is a reader's block cache in bytes (storeio.OpenRead; 0:
	// Pebble's default).
	CacheSize int64
	// ReadOnly is for a reader that only reads (dump, query, serve): the
	// store is opened read-only (storeio.OpenReadOnly) and nothing is
	// written to it; Write fails. Readers that write (forget, check
	// --repair) leave it false.
	ReadOnly bool
	// Snapshot lets a reader (a question) read the newest snapshot of a
	// store that a stream holds and publishes snapshots of
	// (storeio.OpenReadOrSnapshot), read-only. Writers, and readers that
	// must see the store itself (forget, dump), leave it false.
	Snapshot bool
	// Served opens, creating it if needed, the store a stream of this
	// process writes and serves (storeio.OpenServed): shared with the
	// stream's writers, read live, and never compacted for its reads.
	Served bool
}

// Sink is an open store or keyspace: read through its Reader, written
// through Write.
type Sink struct {
	// Reader is the *storeio.Store or *cassandraio.Reader itself: pass it
	// (not the Sink) to code that looks for either one's own fast paths.
	Reader
	store *storeio.Store
	cass  *cassandraio.Reader
	cfg   cassandraio.Config
}

// ErrNoStore is the error of a Config that names no sink.
var ErrNoStore = errors.New("no store: pass --store DIR (or --cassandra HOSTS)")

// Open opens the sink of c.
func Open(c Config) (*Sink, error) {
	if c.Cassandra != nil {
		r, err := cassandraio.NewReader(*c.Cassandra)
		if err != nil {
			return nil, err
		}
		return &Sink{Reader: r, cass: r, cfg: *c.Cassandra}, nil
	}
	if c.Store == "" {
		return nil, ErrNoStore
	}
	if c.Served {
		st, err := storeio.OpenServed(c.Store)
		if err != nil {
			return nil, err
		}
		return &Sink{Reader: st, store: st}, nil
	}
	if c.Create {
		st, err := storeio.Open(c.Store)
		if err != nil {
			return nil, err
		}
		return &Sink{Reader: st, store: st}, nil
	}
	if _, err := os.Stat(c.Store); err != nil {
		return nil, errors.New("store " + c.Store + " does not exist: run tweetindex index first")
	}
	open := storeio.OpenRead
	switch {
	case c.Snapshot:
		open = storeio.OpenReadOrSnapshot
	case c.ReadOnly:
		open = storeio.OpenReadOnly
	}
	st, err := open(c.Store, c.CacheSize)
	if err != nil {
		return nil, err
	}
	return &Sink{Reader: st, store: st}, nil
}

// Write writes cells and returns once they are durable.
func (s *Sink) Write(ctx context.Context, cells []schemas.Cell) error {
	if s.store != nil {
		if err := s.store.Write(cells); err != nil {
			return err
		}
		return s.store.Sync()
	}
	return cassandraio.WriteCells(ctx, s.cfg, cells)
}

// Identities returns the sink's identity table and raw tweets as a
// transforms.Identifier reads them.
func (s *Sink) Identities() transforms.Identities {
	if s.store != nil {
		return s.store.Identities()
	}
	return s.cass.Identities()
}

// Close releases the store or the keyspace's session.
func (s *Sink) Close() error {
	if s.store != nil {
		return s.store.Close()
	}
	return s.cass.Close()
}
