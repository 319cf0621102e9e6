package storeio

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

func init() {
	register.DoFn3x1[context.Context, transforms.TweetBatch, func(transforms.TweetBatch), error](&identifyFn{})
	register.Emitter1[transforms.TweetBatch]()
}

// Identify reconciles deduplicated tweet batches with the tweets the store
// in dir already holds (transforms.Identifier): a tweet deleted by a
// compliance message stays deleted, a new version of a stored tweet
// replaces it, a delete retracts it. bulk says whether the store's writers
// open it with OpenBulk (BulkWrite); fresh that the store held no identity
// row when the run began (transforms.Identifier.Fresh); ack that it passes
// acknowledgements on (transforms.Identifier.Ack).
func Identify(s beam.Scope, dir string, bulk, fresh, ack bool, tweets beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("storeio.Identify"), &identifyFn{Dir: absDir(dir), Bulk: bulk, Fresh: fresh, Ack: ack}, tweets)
}

// identifyFn is the DoFn of Identify.
type identifyFn struct {
	// Dir is the store directory (absolute).
	Dir string
	// Bulk opens the store with OpenBulk, as BulkWrite's writers do.
	Bulk bool
	// Fresh: the store held no identity row when the run began.
	Fresh bool
	// Ack passes acknowledgements on (transforms.Identifier.Ack).
	Ack bool

	store *Store
	x     transforms.Identifier
}

func (f *identifyFn) Setup() error {
	s, err := open(f.Dir, f.Bulk)
	if err != nil {
		return err
	}
	f.store = s
	f.x.Sink, f.x.Fresh, f.x.Ack = storeIdentities{s}, f.Fresh, f.Ack
	f.x.Write = s.writeDurably
	return nil
}

// writeDurably writes cells as one batch and syncs the log. A bulk store
// has no log: its memtable's writes become durable in the order they were
// made, when it is flushed, and what its sorted load holds (raw, term and
// authors cells) only at the end of the load. So there the cells go both
// ways: into the memtable, so that a retraction is durable before the
// identity row written after it (a tombstone flushed without the deletes
// before it would hide a tweet's cells from every later run), and into the
// load, so that it also overrides what the load holds of the same keys.
func (s *Store) writeDurably(_ context.Context, cells []schemas.Cell) error {
	if l := s.sorted; l != nil {
		if _, err := l.Take(cells); err != nil {
			return fmt.Errorf("store %s: %w", s.dir, err)
		}
		b := s.NewBatch(0)
		defer b.Close()
		b.addAround(cells)
		return b.Commit()
	}
	if err := s.Write(cells); err != nil {
		return err
	}
	return s.Sync()
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
	if f.store == nil {
		return nil
	}
	err := f.store.Close()
	f.store = nil
	return err
}

// Identities returns the store's identity table and raw tweets as a
// transforms.Identifier reads them (tweetindex forget uses it outside a
// pipeline).
func (s *Store) Identities() transforms.Identities { return storeIdentities{s} }

// storeIdentities reads the identity table and raw tweets of a store.
type storeIdentities struct{ s *Store }

func (si storeIdentities) Identities(_ context.Context, ids []uint64) (map[uint64]schemas.IdentityRow, error) {
	rows := map[uint64]schemas.IdentityRow{}
	for _, id := range ids {
		key := schemas.IdentityKey(id)
		v, ok, err := si.s.Get(schemas.TableIdentity, key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		r, err := schemas.DecodeIdentity(key, v)
		if err != nil {
			return nil, err
		}
		rows[id] = r
	}
	return rows, nil
}

func (si storeIdentities) RawJSON(_ context.Context, k schemas.RowKey, id uint64) ([]byte, bool, error) {
	return si.s.Get(schemas.TableRaw, schemas.RawRow{Key: k, ID: id}.Cell().Key)
}

func (si storeIdentities) RowTweets(ctx context.Context, k schemas.RowKey, fn func(id uint64, json []byte) error) error {
	return si.s.Scan(ctx, schemas.TableRaw, k[:], k.RawEnd(), func(key, value []byte) error {
		r, err := schemas.DecodeRaw(key, value)
		if err != nil {
			return err
		}
		return fn(r.ID, r.JSON)
	})
}

// errCounted stops Counted's scan at the first count.
var errCounted = errors.New("counted")

// Counted scans the minute's frequency cells, up to the first.
func (si storeIdentities) Counted(ctx context.Context, minute string) (bool, error) {
	at, err := time.ParseInLocation(schemas.MinuteLayout, minute, time.UTC)
	if err != nil {
		return false, fmt.Errorf("counted: minute %q: %w", minute, err)
	}
	err = si.s.Scan(ctx, schemas.TableFrequency, []byte(minute), []byte(schemas.Minute(at.Unix()+60)), func(_, _ []byte) error { return errCounted })
	if errors.Is(err, errCounted) {
		return true, nil
	}
	return false, err
}

// ScanMeta scans the names of the metadata rows in [from, to).
func (si storeIdentities) ScanMeta(ctx context.Context, from, to string, fn func(name string) error) error {
	return si.s.Scan(ctx, schemas.TableMeta, []byte(from), []byte(to), func(key, _ []byte) error { return fn(string(key)) })
}
