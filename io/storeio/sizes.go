package storeio

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/tweetindex/tweetindex/schemas"
)

// What a reader that chooses how to read a table asks of its size: how
// many bytes a key range takes on disk (EstimateBytes), and keys that cut
// a table into parts of about equal size, to read them in parallel
// (SplitKeys).

// EstimateBytes returns about how many bytes on disk the cells of table
// with start <= key < end take (nil start: from the beginning of the
// table; nil end: to its end). Cells not flushed to disk yet count for
// nothing.
func (s *Store) EstimateBytes(table schemas.Table, start, end []byte) (uint64, error) {
	lower, upper := tableBounds(table, start, end)
	n, err := s.db.EstimateDiskUsage(lower, upper)
	if err != nil {
		return 0, readError(s.dir, "estimate of "+table.Name(), err)
	}
	return n, nil
}

// SplitKeys returns up to n-1 keys of table, in order, that cut it into
// about n parts of equal size on disk, found by bisection over the first
// 8 bytes of its keys (EstimateBytes). A table with nothing on disk gets
// none.
func (s *Store) SplitKeys(table schemas.Table, n int) ([][]byte, error) {
	lower, upper := tableBounds(table, nil, nil)
	total, err := s.db.EstimateDiskUsage(lower, upper)
	if err != nil {
		return nil, readError(s.dir, "estimate of "+table.Name(), err)
	}
	var keys [][]byte
	if n < 2 || total == 0 {
		return keys, nil
	}
	at := func(x uint64) []byte { return binary.BigEndian.AppendUint64([]byte{byte(table)}, x) }
	for part := 1; part < n; part++ {
		target := total / uint64(n) * uint64(part)
		lo, hi := uint64(0), uint64(math.MaxUint64)
		for lo < hi {
			mid := lo + (hi-lo)/2
			size, err := s.db.EstimateDiskUsage(lower, at(mid))
			if err != nil {
				return nil, readError(s.dir, "estimate of "+table.Name(), err)
			}
			if size < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		k := at(lo)[1:]
		if len(keys) == 0 || bytes.Compare(keys[len(keys)-1], k) < 0 {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// BulkLoading reports whether the store has a bulk load whose cells are
// not all ingested yet: Scan and Get read them, a Cursor does not.
func (s *Store) BulkLoading() bool {
	return s.sorted != nil && !s.sorted.done.Load()
}

// tableBounds returns the store's keys of the range [start, end) of table
// (nil start: from its beginning; nil end: to its end).
func tableBounds(table schemas.Table, start, end []byte) (lower, upper []byte) {
	lower = appendKey(nil, table, start)
	if end == nil {
		return lower, []byte{byte(table) + 1}
	}
	return lower, appendKey(nil, table, end)
}
