package schemas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"iter"
)

// The reads of a key range on Cassandra: a reader of a keyspace
// (cassandraio.Reader.Scan) reads a range of a table's keys, in the
// embedded store's key order, as the CQL partitions that hold it. Which
// partitions those are is the table's own knowledge: its registry entry's
// CQLRange, which turns the range into steps of partition reads, and the
// reader executes them, whatever the table.

// CQLRead is one read of a table's CQL table: the rows of one partition,
// or a slice of them.
type CQLRead struct {
	// Partition holds the values of the partition key columns
	// (CQLTable.PartitionKey order, CQLValues's Go types): the binds of a
	// CQLSelectPartition.
	Partition []any
	// Slice, when set, reads only the rows whose first clustering column
	// lies in [Lo, Hi), of that column's Go type (CQLSelectSlice).
	Slice  bool
	Lo, Hi any
}

// CQLRange says how to read the cells of a table whose keys lie in a range
// from its CQL table (TableSpec.CQLRange). A reader keeps, of the rows it
// reads, the cells within the range.
type CQLRange struct {
	// Whole says that the range is read as the whole table, filtered and
	// sorted in memory: the small tables, whose partitions follow no key
	// range. Steps is nil then.
	Whole bool
	// Steps yields the reads of the range a step at a time, in key order:
	// every cell of a step's reads sorts before every cell of the next
	// step's. The reads of one step may run at once.
	Steps iter.Seq[[]CQLRead]
	// Ordered says that the reads of each step, one after the other, give
	// their rows in key order (clustering order is key order), so that a
	// reader may pass them on as they come; otherwise it gathers the cells
	// of a step and sorts them.
	Ordered bool
	// Lookahead is how many steps a reader may read ahead of the one whose
	// cells it passes on (0: one step at a time).
	Lookahead int
}

// cqlRangeWhole is the CQLRange of the tables read whole (dead letters,
// metadata, identity).
func cqlRangeWhole(_, _ []byte) (CQLRange, error) { return CQLRange{Whole: true}, nil }

// cqlSteps returns the steps of a range of one step.
func cqlSteps(reads ...CQLRead) iter.Seq[[]CQLRead] {
	return func(yield func([]CQLRead) bool) { yield(reads) }
}

// errTimeRange is the error of a range without the times a partition
// needs.
var errTimeRange = errors.New("a range of raw or term rows on Cassandra needs a time range")

// timeBounds reads [from, to) in Unix seconds from range bounds that start
// with an 8-byte big-endian time (row keys); a bound too short for that is
// an error: Cassandra reads need a time range.
func timeBounds(start, end []byte) (from, to int64, err error) {
	if len(start) < 8 || len(end) < 8 {
		return 0, 0, errTimeRange
	}
	from = int64(binary.BigEndian.Uint64(start))
	to = int64(binary.BigEndian.Uint64(end))
	if !bytes.Equal(end[8:], make([]byte, len(end)-8)) {
		to++ // the end key is inside second "to"
	}
	return from, to, nil
}

// prefixEnd returns the first key after every key that begins with p
// (nil: none, when p is empty or all 0xff), as sink.PrefixEnd.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i]++; end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}
