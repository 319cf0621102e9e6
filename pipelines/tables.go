package pipelines

import (
	"context"
	"errors"
	"os"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// Tables is an open connection to the tables of one sink, the embedded
// store or a Cassandra keyspace, for the commands that read them (dump,
// query, backfill status) and for the run records of the metadata table.
type Tables interface {
	TableScanner
	// Write writes cells and returns once they are durable.
	Write(ctx context.Context, cells []schemas.Cell) error
	// Close releases the connection.
	Close() error
}

// OpenTables opens the sink a run writes to: the embedded store in dir, or
// the Cassandra keyspace of cass when cass is not nil. With mustExist, a
// store directory that does not exist is an error (readers should not
// create an empty store).
func OpenTables(dir string, cass *cassandraio.Config, mustExist bool) (Tables, error) {
	if cass != nil {
		r, err := cassandraio.NewReader(*cass)
		if err != nil {
			return nil, err
		}
		return &cassandraTables{Reader: r, cfg: *cass}, nil
	}
	var st *storeio.Store
	var err error
	if mustExist {
		st, err = OpenExistingStore(dir)
	} else if dir == "" {
		err = errNoStore
	} else {
		st, err = storeio.Open(dir)
	}
	if err != nil {
		return nil, err
	}
	return storeTables{st}, nil
}

var errNoStore = errors.New("no store: pass --store DIR (or --cassandra HOSTS)")

// OpenExistingStore opens the store in dir for reading: a directory that
// does not exist is an error, not a new empty store.
func OpenExistingStore(dir string) (*storeio.Store, error) { return OpenExistingStoreCache(dir, 0) }

// OpenExistingStoreCache is OpenExistingStore with a block cache of
// cacheSize bytes (storeio.OpenRead; 0: Pebble's default).
func OpenExistingStoreCache(dir string, cacheSize int64) (*storeio.Store, error) {
	if dir == "" {
		return nil, errNoStore
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, errors.New("store " + dir + " does not exist: run tweetindex index first")
	}
	return storeio.OpenRead(dir, cacheSize)
}

// OpenStoreForQuery is OpenExistingStoreCache for questions: when a stream
// holds the store and publishes snapshots, the newest snapshot is opened
// instead (storeio.OpenReadOrSnapshot).
func OpenStoreForQuery(dir string, cacheSize int64) (*storeio.Store, error) {
	if dir == "" {
		return nil, errNoStore
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, errors.New("store " + dir + " does not exist: run tweetindex index first")
	}
	return storeio.OpenReadOrSnapshot(dir, cacheSize)
}

type storeTables struct{ *storeio.Store }

func (t storeTables) Write(_ context.Context, cells []schemas.Cell) error {
	if err := t.Store.Write(cells); err != nil {
		return err
	}
	return t.Store.Sync() // durable, as Tables.Write promises
}

type cassandraTables struct {
	*cassandraio.Reader
	cfg cassandraio.Config
}

func (t *cassandraTables) Write(ctx context.Context, cells []schemas.Cell) error {
	w, err := cassandraio.NewWriter(t.cfg)
	if err != nil {
		return err
	}
	werr := w.Write(ctx, cells)
	if cerr := w.Close(ctx); werr == nil {
		werr = cerr
	}
	return werr
}

// TableScanner reads every cell of a table in key order. The embedded store
// implements it; so does the Cassandra reader (which sorts).
type TableScanner interface {
	ScanTable(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error
}
