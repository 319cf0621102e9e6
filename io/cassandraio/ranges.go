package cassandraio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/schemas"
)

// This file reads key ranges of the tables in the embedded store's key
// order (storeio.Store.Scan): a range becomes the CQL partitions that hold
// it (schemas.CQLRawPartition and the others), each read in clustering
// order and filtered to the range. It is the only place that knows how the
// tables are partitioned on Cassandra: the query engine reads a keyspace
// through Scan, Lookup and ScanAll, as it reads the store.

// RangeBudget is the number of geohash ranges a box question should be
// covered with on Cassandra: each range is a read per spread and day (255
// a day), so fewer, wider ranges than on the embedded store, where a
// range is a seek.
func (r *Reader) RangeBudget() int { return 8 }

// ParallelReads is how many range reads a question should keep in flight
// on Cassandra: each is a round trip, and one connection carries many.
func (r *Reader) ParallelReads() int { return 32 }

// Lookup is Get, except that a raw table key may be a row key alone
// (schemas.RowKeyLen bytes): Lookup then returns the first tweet stored
// under it (the one with the smallest id; a row key holds more than one
// only after a collision), read as a slice of its partition.
func (r *Reader) Lookup(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error) {
	if table != schemas.TableRaw || len(key) != schemas.RowKeyLen {
		return r.Get(ctx, table, key)
	}
	var value []byte
	err := r.rowKeyCells(ctx, key, func(c schemas.Cell) error {
		if value == nil {
			value = bytes.Clone(c.Value)
			if value == nil {
				value = []byte{} // found, empty
			}
		}
		return nil
	})
	return value, value != nil, err
}

// rowKeyCells calls fn with each raw cell of row key k (its first
// schemas.RowKeyLen bytes), in key order: a slice of the one partition
// that holds them.
func (r *Reader) rowKeyCells(ctx context.Context, k []byte, fn func(schemas.Cell) error) error {
	sec := int64(binary.BigEndian.Uint64(k))
	pk := schemas.CQLRawPartition(sec, int(schemas.Murmur2(k[:schemas.RowKeyLen])%schemas.RawBuckets))
	return r.ScanSlice(ctx, schemas.TableRaw, pk, k[:schemas.RowKeyLen], afterRowKey(k), func(c schemas.Cell) error {
		if bytes.HasPrefix(c.Key, k[:schemas.RowKeyLen]) {
			return fn(c)
		}
		return nil
	})
}

// afterRowKey returns the row key after k: the end of the slice of k's
// tweets (the clustering column row_key; the id follows it).
func afterRowKey(k []byte) []byte { return append(bytes.Clone(k[:schemas.RowKeyLen]), 0) }

// oneRowKey reports whether the raw range [start, end) lies within the
// tweets of one row key: start's first schemas.RowKeyLen bytes.
func oneRowKey(start, end []byte) bool {
	if len(start) < schemas.RowKeyLen || len(end) == 0 {
		return false
	}
	next := bytes.Clone(start[:schemas.RowKeyLen])
	for i := len(next) - 1; i >= 0; i-- {
		if next[i]++; next[i] != 0 {
			return bytes.Compare(end, next) <= 0
		}
	}
	return true // the last row key: every key after start has its prefix
}

// errRange is the error of a range Scan cannot map to partitions.
var errRange = errors.New("cassandraio: range")

// Scan calls fn for every cell of table with start <= key < end, in key
// order, as storeio.Store.Scan does. nil start and end read the whole
// table into memory and sort it (ScanAll streams, unordered). Any other
// range is read as the partitions that hold it, so it must be bounded as
// the layout allows:
//
//	raw tweets   start and end begin with 8-byte times (row keys): the
//	             minutes between, RawBuckets partitions each, read
//	             rawLookahead minutes at a time and merged into key order;
//	             a range within one row key's tweets is a slice of its
//	             one partition
//	authors      as raw tweets (a time range), partitioned alike
//	terms        within one term and field (TermPrefix), times as for raw:
//	             one partition an hour
//	frequency    bounded by YYYYMMDDhhmm minutes: a slice of each day
//	edges        within one kind and day (the first 3 key bytes): the
//	             RawBuckets partitions of that kind and day
//	termdays     within one day and field (schemas.TermDayPrefix): the
//	             TermDayBuckets partitions of that day and field, each a
//	             slice of terms when the range is one of terms
//	geotemporal  within one spread and day (the first 3 key bytes): a
//	             slice of geohashes of that partition, or the partition
//	             from start on when end is the prefix followed by 0xff
//
// Any other table is read whole (ScanAll), filtered and sorted in memory:
// they are small. fn may keep key and value.
func (r *Reader) Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error {
	inRange := func(c schemas.Cell) bool {
		return bytes.Compare(c.Key, start) >= 0 && (end == nil || bytes.Compare(c.Key, end) < 0)
	}
	whole := start == nil && end == nil
	switch {
	case whole:
	case table == schemas.TableRaw && oneRowKey(start, end):
		return r.rowKeyCells(ctx, start, func(c schemas.Cell) error {
			if inRange(c) {
				return fn(c.Key, c.Value)
			}
			return nil
		})
	case table == schemas.TableRaw, table == schemas.TableAuthors:
		return r.scanMinutes(ctx, table, start, end, inRange, fn)
	case table == schemas.TableTerms:
		return r.scanTerms(ctx, start, end, inRange, fn)
	case table == schemas.TableFrequency:
		return r.scanFrequency(ctx, start, end, inRange, fn)
	case table == schemas.TableGeo:
		return r.scanGeo(ctx, start, end, inRange, fn)
	case table == schemas.TableEdges:
		return r.scanEdges(ctx, start, end, inRange, fn)
	case table == schemas.TableTermDays:
		return r.scanTermDays(ctx, start, end, inRange, fn)
	}
	var cells []schemas.Cell
	err := r.ScanAll(ctx, table, func(key, value []byte) error {
		if c := (schemas.Cell{Key: key, Value: value}); whole || inRange(c) {
			cells = append(cells, c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return emitSorted(cells, fn)
}

// scanGeo reads a geohash range of one (spread, day) partition as a slice
// of its clustering order (geohash >= lo AND geohash < hi), or the
// partition from lo on when the range is open (hi is not text: the
// prefix and 0xff).
func (r *Reader) scanGeo(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	if len(start) < 3 || len(end) < 3 || !bytes.Equal(start[:3], end[:3]) {
		return fmt.Errorf("%w: a geo range must lie in one spread and day", errRange)
	}
	pk := schemas.CQLGeoPartition(start[0], binary.BigEndian.Uint16(start[1:3]))
	emit := func(c schemas.Cell) error {
		if inRange(c) {
			return fn(c.Key, c.Value)
		}
		return nil
	}
	lo, hi := string(start[3:]), string(end[3:])
	if !utf8.ValidString(hi) { // open
		return r.ScanPartitionValues(ctx, schemas.TableGeo, pk, emit)
	}
	return r.ScanSlice(ctx, schemas.TableGeo, pk, lo, hi, emit)
}

// scanEdges reads a range of one kind and day of edges (the first
// schemas.EdgePrefixLen key bytes): the RawBuckets partitions of that kind
// and day, at once, their rows in the range merged into key order.
func (r *Reader) scanEdges(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	n := schemas.EdgePrefixLen
	if len(start) < n || len(end) < n || !bytes.Equal(start[:n], end[:n]) {
		return fmt.Errorf("%w: an edges range must lie in one kind and day", errRange)
	}
	typ, day := schemas.EdgeType(start[0]), binary.BigEndian.Uint16(start[1:3])
	parts := make([][]schemas.Cell, schemas.RawBuckets)
	g, gctx := errgroup.WithContext(ctx)
	for b := range parts {
		g.Go(func() error {
			return r.ScanPartitionValues(gctx, schemas.TableEdges, schemas.CQLEdgePartition(typ, day, b), func(c schemas.Cell) error {
				if inRange(c) {
					parts[b] = append(parts[b], c)
				}
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return emitSorted(slices.Concat(parts...), fn)
}

// scanTermDays reads a range of one day and field of the term counts
// (schemas.TermDayPrefix): the TermDayBuckets partitions of that day and
// field, at once, each a slice of terms [lo, hi) when the range's ends
// are terms after the prefix (the terms that begin with a prefix), their
// rows in the range merged into key order.
func (r *Reader) scanTermDays(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	i := -1
	if len(start) > 2 {
		i = bytes.IndexByte(start[2:], 0)
	}
	if i < 0 {
		return fmt.Errorf("%w: a termdays range must lie in one day and field", errRange)
	}
	n := 2 + i + 1 // day, field, NUL
	prefix := start[:n]
	day, field := binary.BigEndian.Uint16(start[:2]), string(start[2:n-1])
	var lo, hi string
	slice := false
	if bytes.HasPrefix(end, prefix) {
		lo, hi = string(start[n:]), string(end[n:])
		if j := strings.IndexByte(lo, 0); j >= 0 {
			lo = lo[:j]
		}
		slice = hi != "" && utf8.ValidString(lo) && utf8.ValidString(hi) && !strings.Contains(hi, "\x00")
	} else if !bytes.Equal(end, sinkPrefixEnd(prefix)) {
		return fmt.Errorf("%w: a termdays range must lie in one day and field", errRange)
	}
	parts := make([][]schemas.Cell, schemas.TermDayBuckets)
	g, gctx := errgroup.WithContext(ctx)
	for b := range parts {
		g.Go(func() error {
			keep := func(c schemas.Cell) error {
				if inRange(c) {
					parts[b] = append(parts[b], c)
				}
				return nil
			}
			pk := schemas.CQLTermDayPartition(day, field, b)
			if slice {
				return r.ScanSlice(gctx, schemas.TableTermDays, pk, lo, hi, keep)
			}
			return r.ScanPartitionValues(gctx, schemas.TableTermDays, pk, keep)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return emitSorted(slices.Concat(parts...), fn)
}

// sinkPrefixEnd returns the first key after every key that begins with p
// (sink.PrefixEnd, which this package cannot import).
func sinkPrefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i]++; end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// rawLookahead is how many minutes of raw partitions scanMinutes reads
// ahead of the one it emits, each minute's RawBuckets partitions at once.
const rawLookahead = 8

// scanMinutes reads the minutes of [start, end) (row keys or their 8-byte
// time prefixes) of table, the raw table or the authors table (both
// partitioned by minute and bucket: schemas.CQLRawPartition), RawBuckets
// partitions each, merging the buckets of a minute into key order. Minutes
// are read rawLookahead at a time, in parallel, and emitted in order.
func (r *Reader) scanMinutes(ctx context.Context, table schemas.Table, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
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
			go func() {
				defer close(out.done)
				out.cells, out.err = r.minuteCells(ctx, table, m, inRange)
			}()
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

// minuteCells reads the RawBuckets partitions of table (raw or authors) of
// the minute that begins at Unix second m, in parallel, and returns their
// cells that keep holds, in no particular order.
func (r *Reader) minuteCells(ctx context.Context, table schemas.Table, m int64, keep func(schemas.Cell) bool) ([]schemas.Cell, error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var cells []schemas.Cell
	errs := make([]error, schemas.RawBuckets)
	for b := 0; b < schemas.RawBuckets; b++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var part []schemas.Cell
			errs[b] = r.ScanPartitionValues(ctx, table, schemas.CQLRawPartition(m, b), func(c schemas.Cell) error {
				if keep(c) {
					part = append(part, c)
				}
				return nil
			})
			mu.Lock()
			cells = append(cells, part...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return cells, errors.Join(errs...)
}

// scanTerms reads the hours of a term and field's range, one partition
// each, in time order.
func (r *Reader) scanTerms(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	term, field, prefix, ok := termPrefix(start)
	if !ok || !bytes.HasPrefix(end, prefix) {
		return fmt.Errorf("%w: a term range must lie in one term and field", errRange)
	}
	from, to, err := timeBounds(start[len(prefix):], end[len(prefix):])
	if err != nil {
		return err
	}
	from = max(from, 0) // no term rows before 1970 (schemas.ValidDay)
	for h := from - floorMod(from, 3600); h < to; h += 3600 {
		err := r.ScanPartitionValues(ctx, schemas.TableTerms, schemas.CQLTermPartition(term, field, h), func(c schemas.Cell) error {
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

// scanFrequency reads the days of a range of minutes, a slice of each
// day's partition.
func (r *Reader) scanFrequency(ctx context.Context, start, end []byte, inRange func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	from, err1 := time.Parse(schemas.MinuteLayout, string(start[:min(len(start), len(schemas.MinuteLayout))]))
	to, err2 := time.Parse(schemas.MinuteLayout, string(end[:min(len(end), len(schemas.MinuteLayout))]))
	if err1 != nil || err2 != nil {
		return fmt.Errorf("%w: a frequency range must be bounded by minutes (%q, %q)", errRange, start, end)
	}
	for d := from.Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
		// The minutes of the range in this day: a slice of its partition.
		lo, hi := maxTime(from, d), minTime(to.Add(time.Minute), d.Add(24*time.Hour))
		var cells []schemas.Cell
		err := r.ScanSlice(ctx, schemas.TableFrequency, schemas.CQLFrequencyPartition(schemas.Day(d.Unix())), lo, hi, func(c schemas.Cell) error {
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

// termPrefix splits a term key (or key prefix) term\0field\0... into its
// term, field and prefix term\0field\0.
func termPrefix(key []byte) (term, field string, prefix []byte, ok bool) {
	i := bytes.IndexByte(key, 0)
	if i < 0 {
		return "", "", nil, false
	}
	j := bytes.IndexByte(key[i+1:], 0)
	if j < 0 {
		return "", "", nil, false
	}
	n := i + 1 + j + 1
	return string(key[:i]), string(key[i+1 : n-1]), key[:n], true
}

// timeBounds reads [from, to) in Unix seconds from range bounds that start
// with an 8-byte big-endian time (row keys); a bound too short for that is
// an error: Cassandra reads need a time range.
func timeBounds(start, end []byte) (from, to int64, err error) {
	if len(start) < 8 || len(end) < 8 {
		return 0, 0, fmt.Errorf("%w: a range of raw or term rows on Cassandra needs a time range", errRange)
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

// geoDayReads is how many day markers GeoDays reads at a time; over
// geoDayScan days it reads the whole metadata table instead.
const (
	geoDayReads = 32
	geoDayScan  = 2048
)

// GeoDays returns the days in [from, to] (days since 1970) that may hold
// geo rows, in order, from the day markers of the metadata table
// (schemas.GeoDayMarker): a box question reads the 255 spread partitions
// of these days only. ok is false when the keyspace does not promise a
// marker for every day with geo rows (no schemas.GeoDayMarkersParam: it
// was indexed before markers were written): then every day must be read.
func (r *Reader) GeoDays(ctx context.Context, from, to uint16) (days []uint16, ok bool, err error) {
	if _, ok, err := r.Get(ctx, schemas.TableMeta, []byte(schemas.GeoDayMarkersParam)); err != nil || !ok {
		return nil, false, err
	}
	if from > to {
		return nil, true, nil
	}
	if int(to)-int(from) >= geoDayScan {
		err := r.ScanAll(ctx, schemas.TableMeta, func(key, _ []byte) error {
			if d, ok := markedDay(key); ok && d >= from && d <= to {
				days = append(days, d)
			}
			return nil
		})
		slices.Sort(days)
		return days, true, err
	}
	marked := make([]bool, int(to)-int(from)+1)
	errs := make([]error, len(marked))
	sem := make(chan struct{}, geoDayReads)
	var wg sync.WaitGroup
	for i := range marked {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			_, marked[i], errs[i] = r.Get(ctx, schemas.TableMeta, []byte(schemas.GeoDayName(from+uint16(i))))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, false, err
	}
	for i, m := range marked {
		if m {
			days = append(days, from+uint16(i))
		}
	}
	return days, true, nil
}

// markedDay returns the day of a marker's metadata name.
func markedDay(name []byte) (uint16, bool) {
	s, ok := bytes.CutPrefix(name, []byte(schemas.GeoDayPrefix))
	if !ok {
		return 0, false
	}
	t, err := time.Parse(time.DateOnly, string(s))
	if err != nil || !schemas.ValidDay(t.Unix()) {
		return 0, false
	}
	return schemas.Day(t.Unix()), true
}
