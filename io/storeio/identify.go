package storeio

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cockroachdb/pebble/v2"

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

func (f *identifyFn) StartBundle(_ func(transforms.TweetBatch)) { f.x.StartBundle() }

func (f *identifyFn) ProcessElement(ctx context.Context, b transforms.TweetBatch, emit func(transforms.TweetBatch)) error {
	out, err := f.x.Identify(ctx, b)
	if err != nil {
		return validUTF8(err)
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

// Identities reads the identity rows of ids in id order through one
// iterator (a Get each would set up the tables' iterators again for each
// id): SeekPrefixGE consults the tables' Bloom filters as Get does.
func (si storeIdentities) Identities(ctx context.Context, ids []uint64) (map[uint64]schemas.IdentityRow, error) {
	rows := map[uint64]schemas.IdentityRow{}
	if len(ids) == 0 {
		return rows, nil
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(ids)))
	it, err := si.s.db.NewIterWithContext(ctx, &pebble.IterOptions{
		LowerBound: appendKey(nil, schemas.TableIdentity, schemas.IdentityKey(sorted[0])),
		UpperBound: append(appendKey(nil, schemas.TableIdentity, schemas.IdentityKey(sorted[len(sorted)-1])), 0),
	})
	if err != nil {
		return nil, fmt.Errorf("store %s: identities: %w", si.s.dir, err)
	}
	defer it.Close()
	var k []byte
	for _, id := range sorted {
		k = appendKey(k[:0], schemas.TableIdentity, schemas.IdentityKey(id))
		if !it.SeekPrefixGE(k) || !bytes.Equal(it.Key(), k) {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, fmt.Errorf("store %s: identities: %w", si.s.dir, err)
		}
		r, err := schemas.DecodeIdentity(k[1:], v)
		if err != nil {
			return nil, err
		}
		rows[id] = r
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("store %s: identities: %w", si.s.dir, err)
	}
	return rows, nil
}

// Collide reads the keys of the rows' row keys in key order, through one
// iterator of the database: of the authors table, keyed as the raw table
// but a few bytes a tweet, if every stored tweet has its authors row
// (schemas.AuthorsParam), of the raw table if not. Reading the raw table
// cost a block of tweets' JSON (16 KB) for each new tweet whose second
// the store holds tweets of: 1 M new tweets over the days of a store of
// 1 M took 1.9 times a fresh run. A row key the bulk load may hold cells
// of (a tweet of this run under it, written or deleted) is read through
// the load as well (RowTweets), which a run's own new tweets almost never
// need (mayHoldRow).
func (si storeIdentities) Collide(ctx context.Context, rows []schemas.IdentityRow) ([]bool, error) {
	found := make([]bool, len(rows))
	if len(rows) == 0 {
		return found, nil
	}
	table := schemas.TableRaw
	if _, ok, err := si.s.Get(schemas.TableMeta, []byte(schemas.AuthorsParam)); err != nil {
		return nil, err
	} else if ok {
		table = schemas.TableAuthors
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(rows[a].Key[:], rows[b].Key[:]) })
	first, last := rows[order[0]].Key, rows[order[len(order)-1]].Key
	it, err := si.s.db.NewIterWithContext(ctx, &pebble.IterOptions{
		LowerBound: appendKey(nil, table, first[:]),
		UpperBound: appendKey(nil, table, last.RawEnd()),
	})
	if err != nil {
		return nil, fmt.Errorf("store %s: collisions: %w", si.s.dir, err)
	}
	defer it.Close()
	var k []byte
	for _, i := range order {
		row := rows[i]
		if si.s.loading(schemas.TableRaw, row.Key[:], row.Key.RawEnd()) != nil {
			err := si.RowTweets(ctx, row.Key, func(id uint64, _ []byte) error {
				found[i] = found[i] || id != row.ID
				return nil
			})
			if err != nil {
				return nil, err
			}
			continue
		}
		k = appendKey(k[:0], table, row.Key[:])
		for ok := it.SeekGE(k); ok && bytes.HasPrefix(it.Key(), k); ok = it.Next() {
			if key := it.Key(); len(key) != len(k)+8 || binary.BigEndian.Uint64(key[len(k):]) != row.ID {
				found[i] = true
				break
			}
		}
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("store %s: collisions: %w", si.s.dir, err)
	}
	return found, nil
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

// Counted scans the minute's frequency cells, up to the first.
func (si storeIdentities) Counted(ctx context.Context, minute string) (bool, error) {
	return transforms.MinuteCounted(ctx, si.s.Scan, minute)
}

// ScanMeta scans the names of the metadata rows in [from, to).
func (si storeIdentities) ScanMeta(ctx context.Context, from, to string, fn func(name string) error) error {
	return si.s.Scan(ctx, schemas.TableMeta, []byte(from), []byte(to), func(key, _ []byte) error { return fn(string(key)) })
}
