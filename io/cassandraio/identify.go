package cassandraio

import (
	"context"
	"errors"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

func init() {
	register.DoFn3x1[context.Context, transforms.TweetBatch, func(transforms.TweetBatch), error](&identifyFn{})
	register.Emitter1[transforms.TweetBatch]()
}

// Identify reconciles deduplicated tweet batches with the tweets the
// keyspace of cfg already holds (transforms.Identifier): a tweet deleted
// by a compliance message stays deleted, a new version of a stored tweet
// replaces it, a delete retracts it. fresh says the keyspace held no
// identity row when the run began (transforms.Identifier.Fresh), ack that
// it passes acknowledgements on (transforms.Identifier.Ack). It panics
// if cfg is invalid, as Write does.
func Identify(s beam.Scope, cfg Config, fresh, ack bool, tweets beam.PCollection) beam.PCollection {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	return beam.ParDo(s.Scope("cassandraio.Identify"), &identifyFn{Config: cfg, Fresh: fresh, Ack: ack}, tweets)
}

// identifyFn is the DoFn of Identify.
type identifyFn struct {
	// Config is the sink's configuration.
	Config Config
	// Fresh: the keyspace held no identity row when the run began.
	Fresh bool
	// Ack passes acknowledgements on (transforms.Identifier.Ack).
	Ack bool

	r *Reader
	x transforms.Identifier
}

func (f *identifyFn) Setup() error {
	r, err := NewReader(f.Config)
	if err != nil {
		return err
	}
	f.r = r
	f.x.Sink, f.x.Fresh, f.x.Ack = cassandraIdentities{r}, f.Fresh, f.Ack
	f.x.Write = func(ctx context.Context, cells []schemas.Cell) error { return WriteCells(ctx, f.Config, cells) }
	return nil
}

// WriteCells writes cells to the keyspace of cfg and returns once every
// one is acknowledged (or with the first error).
func WriteCells(ctx context.Context, cfg Config, cells []schemas.Cell) error {
	w, err := NewWriter(cfg)
	if err != nil {
		return err
	}
	werr := w.Write(ctx, cells)
	if cerr := w.Close(ctx); werr == nil {
		werr = cerr
	}
	return werr
}

func (f *identifyFn) StartBundle(_ func(transforms.TweetBatch)) { f.x.StartBundle() }

func (f *identifyFn) ProcessElement(ctx context.Context, b transforms.TweetBatch, emit func(transforms.TweetBatch)) error {
	out, err := f.x.Identify(ctx, b)
	if err != nil {
		return err
	}
	emit(out)
	return nil
}

func (f *identifyFn) Teardown() error {
	if f.r == nil {
		return nil
	}
	return f.r.Close()
}

// pointReads is how many rows a batch's point reads (Identities,
// Collide) read at a time: each is a round trip.
const pointReads = 32

// eachParallel calls read(i) for i in [0, n), pointReads at a time, and
// returns their errors joined.
func eachParallel(n int, read func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, pointReads)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = read(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Identities returns the keyspace's identity table and raw tweets as a
// transforms.Identifier reads them (tweetindex forget uses it outside a
// pipeline).
func (r *Reader) Identities() transforms.Identities { return cassandraIdentities{r} }

// cassandraIdentities reads the identity table and raw tweets of a
// keyspace.
type cassandraIdentities struct{ r *Reader }

func (ci cassandraIdentities) Identities(ctx context.Context, ids []uint64) (map[uint64]schemas.IdentityRow, error) {
	found := make([]*schemas.IdentityRow, len(ids))
	err := eachParallel(len(ids), func(i int) error {
		key := schemas.IdentityKey(ids[i])
		v, ok, err := ci.r.Get(ctx, schemas.TableIdentity, key)
		if err != nil || !ok {
			return err
		}
		r, err := schemas.DecodeIdentity(key, v)
		found[i] = &r
		return err
	})
	if err != nil {
		return nil, err
	}
	rows := map[uint64]schemas.IdentityRow{}
	for i, r := range found {
		if r != nil {
			rows[ids[i]] = *r
		}
	}
	return rows, nil
}

func (ci cassandraIdentities) RawJSON(ctx context.Context, k schemas.RowKey, id uint64) ([]byte, bool, error) {
	return ci.r.Get(ctx, schemas.TableRaw, schemas.RawRow{Key: k, ID: id}.Cell().Key)
}

func (ci cassandraIdentities) RowTweets(ctx context.Context, k schemas.RowKey, fn func(id uint64, json []byte) error) error {
	return ci.r.Scan(ctx, schemas.TableRaw, k[:], k.RawEnd(), func(key, value []byte) error {
		r, err := schemas.DecodeRaw(key, value)
		if err != nil {
			return err
		}
		return fn(r.ID, r.JSON)
	})
}

// Collide reads the row key of each row (a point read of its partition's
// slice), pointReads at a time.
func (ci cassandraIdentities) Collide(ctx context.Context, rows []schemas.IdentityRow) ([]bool, error) {
	found := make([]bool, len(rows))
	err := eachParallel(len(rows), func(i int) error {
		return ci.RowTweets(ctx, rows[i].Key, func(id uint64, _ []byte) error {
			found[i] = found[i] || id != rows[i].ID
			return nil
		})
	})
	return found, err
}

// Counted reads the minute's slice of its day's frequency partition.
func (ci cassandraIdentities) Counted(ctx context.Context, minute string) (bool, error) {
	return transforms.MinuteCounted(ctx, ci.r.Scan, minute)
}

// ScanMeta scans the names of the metadata rows in [from, to).
func (ci cassandraIdentities) ScanMeta(ctx context.Context, from, to string, fn func(name string) error) error {
	return ci.r.Scan(ctx, schemas.TableMeta, []byte(from), []byte(to), func(key, _ []byte) error { return fn(string(key)) })
}
