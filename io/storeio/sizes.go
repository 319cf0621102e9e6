package storeio

import (
	"bytes"
	"slices"

	"github.com/cockroachdb/pebble/v2"

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
// about n parts of equal size on disk: the first keys of its files on
// disk (Pebble's sstables) that come closest to each n-th of the bytes.
// A small table, in one file or none, gets none.
func (s *Store) SplitKeys(table schemas.Table, n int) ([][]byte, error) {
	if n < 2 {
		return nil, nil
	}
	lower, upper := tableBounds(table, nil, nil)
	levels, err := s.db.SSTables(pebble.WithKeyRangeFilter(lower, upper))
	if err != nil {
		return nil, readError(s.dir, "files of "+table.Name(), err)
	}
	type file struct {
		first []byte
		size  uint64
	}
	var files []file
	var total uint64
	for _, level := range levels {
		for _, f := range level {
			total += f.Size
			if k := f.Smallest.UserKey; bytes.Compare(k, lower) > 0 && bytes.Compare(k, upper) < 0 {
				files = append(files, file{first: bytes.Clone(k[1:]), size: f.Size})
			} else {
				files = append(files, file{size: f.Size}) // begins before the table: no key of it
			}
		}
	}
	slices.SortFunc(files, func(a, b file) int { return bytes.Compare(a.first, b.first) })
	var keys [][]byte
	var before uint64
	for _, f := range files {
		if f.first != nil && before*uint64(n) >= total*uint64(len(keys)+1) {
			if len(keys) == 0 || !bytes.Equal(keys[len(keys)-1], f.first) {
				keys = append(keys, f.first)
			}
			if len(keys) == n-1 {
				break
			}
		}
		before += f.size
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
