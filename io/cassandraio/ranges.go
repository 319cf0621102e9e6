package cassandraio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/schemas"
)

// This file reads key ranges of the tables in the embedded store's key
// order (storeio.Store.Scan): a range becomes the CQL partitions that hold
// it, which the table's registry entry names (schemas.TableSpec.CQLRange),
// each read in clustering order and filtered to the range. The query
// engine reads a keyspace through Scan, Lookup and ScanAll, as it reads
// the store, and this file reads every table alike: what is particular to
// a table's partitions is in package schemas.

// RangeBudget is the number of geohash ranges a box question should be
// covered with on Cassandra: each range is a read per spread and day (255
// a day), so fewer, wider ranges than on the embedded store, where a
// range is a seek.
func (r *Reader) RangeBudget() int { return 8 }

// ParallelReads is how many range reads a question should keep in flight
// on Cassandra: each is a round trip, and one connection carries many.
func (r *Reader) ParallelReads() int { return 32 }

// errFound ends Lookup's scan at the first cell.
var errFound = errors.New("found")

// Lookup is Get, except that a raw table key may be a row key alone
// (schemas.RowKeyLen bytes; schemas.LookupRange): Lookup then returns the
// first tweet stored under it (the one with the smallest id; a row key
// holds more than one only after a collision), read as a slice of its
// partition.
func (r *Reader) Lookup(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error) {
	start, end, ok := schemas.LookupRange(table, key)
	if !ok {
		return r.Get(ctx, table, key)
	}
	var value []byte
	err := r.Scan(ctx, table, start, end, func(_, v []byte) error {
		value = append([]byte{}, v...) // non-nil: found
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return nil, false, err
	}
	return value, value != nil, nil
}

// errRange is the error of a range Scan cannot map to partitions.
var errRange = errors.New("cassandraio: range")

// Scan calls fn for every cell of table with start <= key < end, in key
// order, as storeio.Store.Scan does. nil start and end read the whole
// table into memory and sort it (ScanAll streams, unordered). Any other
// range is read as the partitions that hold it (the table's
// schemas.TableSpec.CQLRange), so it must be bounded as the table's
// layout allows (schemas/cqlpartition.go): a time range of raw tweets or
// authors, one term and field over a time range, a range of minutes, one
// spread and day of geo rows, one kind and day of edges, one day and field
// of term counts. The small tables (dead letters, metadata, identity) are
// read whole (ScanAll), filtered and sorted in memory. fn may keep key and
// value.
func (r *Reader) Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error {
	inRange := func(c schemas.Cell) bool {
		return bytes.Compare(c.Key, start) >= 0 && (end == nil || bytes.Compare(c.Key, end) < 0)
	}
	whole := start == nil && end == nil
	if s := table.Spec(); !whole && s != nil {
		if s.CQLRange == nil {
			return fmt.Errorf("cassandraio: table %s has no range reads (schemas.TableSpec.CQLRange)", s.Name)
		}
		rg, err := s.CQLRange(start, end)
		if err != nil {
			return fmt.Errorf("%w: %w", errRange, err)
		}
		if !rg.Whole {
			return r.scanRange(ctx, table, rg, inRange, fn)
		}
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

// scanRange reads the steps of rg in order and calls fn for their cells
// that keep holds, in key order: as they come when rg is Ordered, else
// gathered and sorted a step at a time, rg.Lookahead steps read ahead.
func (r *Reader) scanRange(ctx context.Context, table schemas.Table, rg schemas.CQLRange, keep func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	switch {
	case rg.Ordered:
		emit := func(c schemas.Cell) error {
			if keep(c) {
				return fn(c.Key, c.Value)
			}
			return nil
		}
		for reads := range rg.Steps {
			for _, rd := range reads {
				if err := r.read(ctx, table, rd, emit); err != nil {
					return err
				}
			}
		}
		return nil
	case rg.Lookahead == 0:
		for reads := range rg.Steps {
			cells, err := r.stepCells(ctx, table, reads, keep)
			if err != nil {
				return err
			}
			if err := emitSorted(cells, fn); err != nil {
				return err
			}
		}
		return nil
	}
	return r.scanAhead(ctx, table, rg, keep, fn)
}

// scanAhead reads the steps of rg rg.Lookahead at a time, in parallel,
// and emits each step's cells that keep holds, sorted, in order.
func (r *Reader) scanAhead(ctx context.Context, table schemas.Table, rg schemas.CQLRange, keep func(schemas.Cell) bool, fn func(key, value []byte) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type step struct {
		cells []schemas.Cell
		err   error
		done  chan struct{}
	}
	queue := make(chan *step, rg.Lookahead)
	go func() {
		defer close(queue)
		for reads := range rg.Steps {
			if ctx.Err() != nil {
				return
			}
			out := &step{done: make(chan struct{})}
			select {
			case queue <- out:
			case <-ctx.Done():
				return
			}
			go func() {
				defer close(out.done)
				out.cells, out.err = r.stepCells(ctx, table, reads, keep)
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

// stepCells runs the reads of one step, in parallel, and returns their
// cells that keep holds, in no particular order.
func (r *Reader) stepCells(ctx context.Context, table schemas.Table, reads []schemas.CQLRead, keep func(schemas.Cell) bool) ([]schemas.Cell, error) {
	parts := make([][]schemas.Cell, len(reads))
	g, gctx := errgroup.WithContext(ctx)
	for i, rd := range reads {
		g.Go(func() error {
			return r.read(gctx, table, rd, func(c schemas.Cell) error {
				if keep(c) {
					parts[i] = append(parts[i], c)
				}
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(parts...), nil
}

// read runs one read of a range: a partition, or a slice of it.
func (r *Reader) read(ctx context.Context, table schemas.Table, rd schemas.CQLRead, fn func(schemas.Cell) error) error {
	if rd.Slice {
		return r.ScanSlice(ctx, table, rd.Partition, rd.Lo, rd.Hi, fn)
	}
	return r.ScanPartitionValues(ctx, table, rd.Partition, fn)
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
