package query

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// Reader reads key ranges of the tables, in key order.
type Reader interface {
	// Scan calls fn for every cell of table with start <= key < end, in key
	// order. A range of the raw, term and geo tables must lie within what
	// the query planner asks for: one term and field, one spread and day,
	// a time range (see the table layouts in package schemas).
	Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error
	// Get returns the value of one cell, and whether it exists. A raw
	// table key may be a row key alone (schemas.RowKeyLen bytes): Get then
	// returns the first tweet stored under it (the one with the smallest
	// id; a row key holds more than one only after a collision).
	Get(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error)
	// ScanAll calls fn for every cell of table in no particular order:
	// the full scans the index answers are measured against.
	ScanAll(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error
}

// StoreReader reads the embedded store.
type StoreReader struct{ Store *storeio.Store }

// Scan scans a key range.
func (r StoreReader) Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error {
	return r.Store.Scan(ctx, table, start, end, fn)
}

// Get reads one cell.
func (r StoreReader) Get(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error) {
	if table == schemas.TableRaw && len(key) == schemas.RowKeyLen {
		return firstCell(ctx, r, key)
	}
	return r.Store.Get(table, key)
}

// Rows calls fn with the first raw cell of each sorted row key of ks, in
// order, through one cursor: the seeks move forward only, so each starts
// where the last one ended.
func (r StoreReader) Rows(ctx context.Context, ks []schemas.RowKey, fn func(key, value []byte) error) error {
	if len(ks) == 0 {
		return nil
	}
	cur, err := r.Store.NewCursor(ctx, schemas.TableRaw, ks[0][:], afterRowKey(ks[len(ks)-1][:]))
	if err != nil {
		return err
	}
	err = func() error {
		for i := range ks {
			if i%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			k := ks[i][:]
			if !cur.SeekGE(k) || !bytes.HasPrefix(cur.Key(), k) {
				return missingRow(k)
			}
			v, err := cur.Value()
			if err != nil {
				return err
			}
			if err := fn(cur.Key(), v); err != nil {
				return err
			}
		}
		return nil
	}()
	if cerr := cur.Close(); err == nil {
		err = cerr
	}
	return err
}

// firstCell returns the first raw cell whose key begins with row key k.
func firstCell(ctx context.Context, r Reader, k []byte) ([]byte, bool, error) {
	var value []byte
	err := r.Scan(ctx, schemas.TableRaw, k, afterRowKey(k), func(_, v []byte) error {
		value = bytes.Clone(v) // the scan owns v
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, false, err
	}
	return value, value != nil, nil
}

// afterRowKey returns a key after every raw key that begins with row key
// k and before those of the next row key.
func afterRowKey(k []byte) []byte {
	return append(append(make([]byte, 0, schemas.RawKeyLen+1), k[:schemas.RowKeyLen]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
}

// ScanAll scans the whole table.
func (r StoreReader) ScanAll(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error {
	return r.Store.Scan(ctx, table, nil, nil, fn)
}

// CassandraReader reads a Cassandra keyspace. A key range becomes the
// partitions it covers: raw tweets by minute and bucket, terms by hour,
// frequency by day, geo by spread and day; each partition is read in
// clustering order and filtered to the range.
type CassandraReader struct{ Reader *cassandraio.Reader }

// RangeBudget is the geohash ranges a box is covered with on Cassandra:
// each range is a query per spread and day (255 a day), so fewer, wider
// ranges than on the store, where a range is a seek.
func (CassandraReader) RangeBudget() int { return 8 }

// ParallelReads is how many range reads a box search keeps in flight on
// Cassandra: each is a round trip, and one connection carries many.
func (CassandraReader) ParallelReads() int { return 32 }

// Get reads one cell.
func (r CassandraReader) Get(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error) {
	if table == schemas.TableRaw && len(key) == schemas.RowKeyLen {
		return r.getRaw(ctx, key)
	}
	return r.Reader.Get(ctx, table, key)
}

// getRaw reads the first tweet of row key k: a slice of one partition.
func (r CassandraReader) getRaw(ctx context.Context, k []byte) ([]byte, bool, error) {
	vals, err := schemas.CQLKeyValues(nil, schemas.TableRaw, append(k[:schemas.RowKeyLen:schemas.RowKeyLen], make([]byte, 8)...))
	if err != nil {
		return nil, false, err
	}
	var value []byte
	err = r.Reader.ScanSlice(ctx, schemas.TableRaw, vals[:len(schemas.CQLRaw.PartitionKey)], k[:schemas.RowKeyLen], afterRowKey(k)[:schemas.RowKeyLen+1], func(c schemas.Cell) error {
		if value == nil && bytes.HasPrefix(c.Key, k) {
			value = append([]byte{}, c.Value...) // non-nil: found
		}
		return nil
	})
	return value, value != nil, err
}

// ScanAll scans the whole table, page by page.
func (r CassandraReader) ScanAll(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error {
	return r.Reader.Scan(ctx, table, func(c schemas.Cell) error { return fn(c.Key, c.Value) })
}

// Scan reads the partitions of the range.
func (r CassandraReader) Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error {
	inRange := func(c schemas.Cell) bool {
		return bytes.Compare(c.Key, start) >= 0 && (end == nil || bytes.Compare(c.Key, end) < 0)
	}
	switch table {
	case schemas.TableRaw:
		return r.scanRaw(ctx, start, end, inRange, fn)
	case schemas.TableTerms:
		return r.scanTerms(ctx, start, end, inRange, fn)
	case schemas.TableFrequency:
		return r.scanFrequency(ctx, start, end, inRange, fn)
	case schemas.TableGeo:
		if len(start) < 3 || !bytes.Equal(start[:3], end[:min(3, len(end))]) {
			return fmt.Errorf("query: a geo range must lie in one spread and day")
		}
		return r.scanGeo(ctx, start, end, inRange, fn)
	}
	return fmt.Errorf("query: no range reads of table %s on Cassandra", table.Name())
}

// scanGeo reads a geohash range of one (spread, day) partition as a
// slice of its clustering order (geohash >= lo AND geohash < hi), or the
// partition from lo on when the range is open (end is the prefix + 0xff).
func (r CassandraReader) scanGeo(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	vals, err := schemas.CQLKeyValues(nil, schemas.TableGeo, geoPartitionKey(start))
	if err != nil {
		return err
	}
	emit := func(c schemas.Cell) error {
		if inRange(c) {
			return fn(c.Key, c.Value)
		}
		return nil
	}
	lo, hi := string(start[3:]), string(end[3:])
	if !utf8.ValidString(hi) { // open
		return r.Reader.ScanPartitionValues(ctx, schemas.TableGeo, vals, emit)
	}
	return r.Reader.ScanSlice(ctx, schemas.TableGeo, vals, lo, hi, emit)
}

// geoPartitionKey returns a whole geo key in the partition of prefix
// (spread, day, ...).
func geoPartitionKey(prefix []byte) []byte {
	k := make([]byte, schemas.GeoKeyLen+schemas.RowKeyLen)
	copy(k, prefix)
	return k
}

// rawLookahead is how many minutes of raw partitions scanRaw reads ahead
// of the one it emits, each minute's 16 buckets at once.
const rawLookahead = 8

// scanRaw reads the minutes of [start, end) (row keys or their 8-byte
// time prefixes), 16 buckets each, merging the buckets of a minute into
// key order. Minutes are read rawLookahead at a time, in parallel, and
// emitted in order.
func (r CassandraReader) scanRaw(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	from, to, err := timeBounds(start, end)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type minute struct {
		cells []schemas.Cell
		err   error
		done  chan struct{}
	}
	read := func(m int64, out *minute) {
		defer close(out.done)
		key := make([]byte, schemas.RawKeyLen) // the minute's first row key, tweet id 0
		binary.BigEndian.PutUint64(key, uint64(m))
		var mu sync.Mutex
		var wg sync.WaitGroup
		for b := 0; b < schemas.RawBuckets; b++ {
			vals, err := schemas.CQLKeyValues(nil, schemas.TableRaw, key)
			if err != nil {
				out.err = err
				return
			}
			vals[1] = int8(b)
			wg.Add(1)
			go func() {
				defer wg.Done()
				var cells []schemas.Cell
				err := r.Reader.ScanPartitionValues(ctx, schemas.TableRaw, vals, func(c schemas.Cell) error {
					if inRange(c) {
						cells = append(cells, c)
					}
					return nil
				})
				mu.Lock()
				defer mu.Unlock()
				out.cells = append(out.cells, cells...)
				if err != nil && out.err == nil {
					out.err = err
				}
			}()
		}
		wg.Wait()
	}
	queue := make(chan *minute, rawLookahead)
	go func() {
		defer close(queue)
		for m := from - floorMod(from, 60); m < to && ctx.Err() == nil; m += 60 {
			out := &minute{done: make(chan struct{})}
			select {
			case queue <- out:
			case <-ctx.Done():
				return
			}
			go read(m, out)
		}
	}()
	for out := range queue {
		<-out.done
		if out.err != nil {
			return out.err
		}
		if err := emitSorted(out.cells, fn); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// scanTerms reads the hours of a term and field's range.
func (r CassandraReader) scanTerms(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	prefix, rest, ok := termPrefix(start)
	if !ok || !bytes.HasPrefix(end, prefix) {
		return fmt.Errorf("query: a term range must lie in one term and field")
	}
	from, to, err := timeBounds(rest, end[len(prefix):])
	if err != nil {
		return err
	}
	for h := from - floorMod(from, 3600); h < to; h += 3600 {
		key := make([]byte, 0, len(prefix)+schemas.RowKeyLen)
		key = binary.BigEndian.AppendUint64(append(key, prefix...), uint64(h))
		key = append(key, 0, 0, 0, 0)
		err := r.Reader.ScanPartition(ctx, schemas.TableTerms, key, func(c schemas.Cell) error {
			if inRange(c) {
				return fn(c.Key, c.Value)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// scanFrequency reads the days of a range of minutes.
func (r CassandraReader) scanFrequency(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	from, err1 := time.Parse(schemas.MinuteLayout, string(start[:min(len(start), len(schemas.MinuteLayout))]))
	to, err2 := time.Parse(schemas.MinuteLayout, string(end[:min(len(end), len(schemas.MinuteLayout))]))
	if err1 != nil || err2 != nil {
		return fmt.Errorf("query: a frequency range must be bounded by minutes (%q, %q)", start, end)
	}
	for d := from.Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
		vals, err := schemas.CQLKeyValues(nil, schemas.TableFrequency, []byte(d.Format(schemas.MinuteLayout)))
		if err != nil {
			return err
		}
		// The minutes of the range in this day: a slice of its partition.
		lo, hi := maxTime(from, d), minTime(to.Add(time.Minute), d.Add(24*time.Hour))
		var cells []schemas.Cell
		err = r.Reader.ScanSlice(ctx, schemas.TableFrequency, vals, lo, hi, func(c schemas.Cell) error {
			if inRange(c) {
				cells = append(cells, c)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := emitSorted(cells, fn); err != nil { // clustered by (minute timestamp, lang): the same order
			return err
		}
	}
	return nil
}

// termPrefix splits a term key (or key prefix) into term\0field\0 and the rest.
func termPrefix(key []byte) (prefix, rest []byte, ok bool) {
	i := bytes.IndexByte(key, 0)
	if i < 0 {
		return nil, nil, false
	}
	j := bytes.IndexByte(key[i+1:], 0)
	if j < 0 {
		return nil, nil, false
	}
	n := i + 1 + j + 1
	return key[:n], key[n:], true
}

// timeBounds reads [from, to) in Unix seconds from range bounds that start
// with an 8-byte big-endian time (row keys); a bound too short for that is
// an error: Cassandra reads need a time range.
func timeBounds(start, end []byte) (from, to int64, err error) {
	if len(start) < 8 || len(end) < 8 {
		return 0, 0, fmt.Errorf("query: a range of raw or term rows on Cassandra needs a time range")
	}
	from = int64(binary.BigEndian.Uint64(start))
	to = int64(binary.BigEndian.Uint64(end))
	if !bytes.Equal(end[8:], make([]byte, len(end)-8)) {
		to++ // the end key is inside second "to"
	}
	return from, to, nil
}

func emitSorted(cells []schemas.Cell, fn func(key, value []byte) error) error {
	slices.SortFunc(cells, func(a, b schemas.Cell) int { return bytes.Compare(a.Key, b.Key) })
	for _, c := range cells {
		if err := fn(c.Key, c.Value); err != nil {
			return err
		}
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}
