package storeio

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

// Retractions of an earlier run's cells during a bulk load.
//
// The identity stage writes the deletes of a retracted version's term and
// authors cells before its raw delete, and that before its identity row,
// so that a crash never leaves cells without the rows that lead to them
// (transforms.Identifier). A bulk store has no log: its memtable's writes
// reach disk in the order they were made, when it is flushed, but the
// raw, term and authors cells go to the sorted load (bulkload.go), on
// disk only when it is ingested at the end of the run, after any number
// of flushes. For a version this run stored, that is as it should be: a
// crash loses its cells with the identity rows' reason to exist. For a
// version an earlier run stored, whose cells the database holds, the
// writes must reach disk in order, so the identity stage records them,
// before it goes on, as an intent: one row of the store's own, under
// intentPrefix, written through the memtable (writeDurably). The sorted
// load takes them too, and its ingestion leaves every key as this run's
// writes in order do; the intents are then cleared (clearIntents). A
// store opened with intents left was cut off before it: when no ingestion
// is left to complete, its load is lost, and the intents are applied
// (replayIntents); when one is (recoverIngest), they are cleared with
// it.
//
// The intents used to be the cells themselves, written to the memtable:
// its flushes then wrote first-level files spanning the sorted tables
// (the identity table to the raw one, the meta table to the authors
// one), and the end's compaction of the memtable's tables rewrote the
// sorted tables they overlapped: 50 of the 97 s of 2 M tweets of the
// same hours as the store's, of which 11 replaced stored ones. The
// intents' prefix sorts among the tables written through the memtable
// (TestMemtableTablesSortBelowSorted), so its files span none of the
// sorted tables.
const intentPrefix = 'p'

// intentLog numbers a load's intents, in the order they are written.
type intentLog struct {
	mu      sync.Mutex
	seq     uint64
	written atomic.Bool // an intent was written: the end clears them
}

// writeDurably writes cells as one batch and syncs the log; in a bulk
// load, the cells of the sorted tables whose keys the database holds
// are first recorded as an intent.
func (s *Store) writeDurably(_ context.Context, cells []schemas.Cell) error {
	if err := s.recordIntent(cells); err != nil {
		return err
	}
	if err := s.Write(cells); err != nil {
		return err
	}
	return s.Sync()
}

// recordIntent writes, when the store is bulk loading, the cells of the
// sorted tables among cells whose key the database holds (an earlier
// run's) as one intent, committed before it returns.
func (s *Store) recordIntent(cells []schemas.Cell) error {
	l := s.sorted
	if l == nil || l.done.Load() {
		return nil
	}
	var rec, k []byte
	for i := range cells {
		c := &cells[i]
		if !sortedTables[c.Table] {
			continue
		}
		// The database's cell, not the load's view of it (Get).
		k = appendKey(k[:0], c.Table, c.Key)
		_, closer, err := s.db.Get(k)
		if errors.Is(err, pebble.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store %s: get: %w", s.dir, err)
		}
		closer.Close()
		rec = appendIntentCell(rec, k, c.Value, c.Delete)
	}
	if rec == nil {
		return nil
	}
	l.intents.mu.Lock()
	defer l.intents.mu.Unlock()
	l.intents.seq++
	key := binary.BigEndian.AppendUint64([]byte{intentPrefix}, l.intents.seq)
	defer stopOnPanic(s.dir)
	if err := s.db.Set(key, rec, pebble.NoSync); err != nil {
		return fmt.Errorf("store %s: intent: %w", s.dir, err)
	}
	l.intents.written.Store(true)
	return nil
}

// An intent is its cells one after the other: a byte (1: a delete), the
// whole key (the table's byte first) and the value, each after its
// length as a uvarint.
func appendIntentCell(dst, key, value []byte, del bool) []byte {
	flag := byte(0)
	if del {
		flag = 1
	}
	dst = append(dst, flag)
	dst = binary.AppendUvarint(dst, uint64(len(key)))
	dst = append(dst, key...)
	dst = binary.AppendUvarint(dst, uint64(len(value)))
	return append(dst, value...)
}

// applyIntent adds the cells of intent rec to b, in order.
func applyIntent(b *pebble.Batch, rec []byte) error {
	next := func() ([]byte, bool) {
		n, w := binary.Uvarint(rec)
		if w <= 0 || uint64(len(rec)-w) < n {
			return nil, false
		}
		v := rec[w : w+int(n)]
		rec = rec[w+int(n):]
		return v, true
	}
	for len(rec) > 0 {
		del := rec[0] == 1
		rec = rec[1:]
		k, ok := next()
		v, ok2 := next()
		if !ok || !ok2 {
			return errors.New("a broken intent")
		}
		var err error
		if del {
			err = b.Delete(k, nil)
		} else {
			err = b.Set(k, v, nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// intentBounds are the bounds of the intents' keys.
var intentBounds = [2][]byte{{intentPrefix}, {intentPrefix + 1}}

// replayIntents applies the intents of a bulk load that was cut off
// before its ingestion, in order, and removes them, in one batch, on disk
// when it returns. It reports whether there were any.
func replayIntents(db *pebble.DB) (bool, error) {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: intentBounds[0], UpperBound: intentBounds[1]})
	if err != nil {
		return false, err
	}
	b := db.NewBatch()
	defer b.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := applyIntent(b, it.Value()); err != nil {
			it.Close()
			return false, fmt.Errorf("intent %x: %w", it.Key(), err)
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return false, err
	}
	if b.Empty() {
		return false, nil
	}
	return true, commitAndFlush(db, b)
}

// clearIntents removes the intents, on disk when it returns: the load
// they were written for is ingested.
func clearIntents(db *pebble.DB) error {
	b := db.NewBatch()
	defer b.Close()
	return commitAndFlush(db, b)
}

// commitAndFlush commits b with a delete of every intent and flushes the
// memtable: the store may have no log.
func commitAndFlush(db *pebble.DB, b *pebble.Batch) error {
	if err := b.DeleteRange(intentBounds[0], intentBounds[1], nil); err != nil {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return err
	}
	return db.Flush()
}
