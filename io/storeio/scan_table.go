package storeio

import (
	"context"
	"errors"

	"github.com/tweetindex/tweetindex/schemas"
)

// ScanAll calls fn for every cell of table. On the store that is key
// order (Scan of the whole table); readers of other sinks
// (cassandraio.Reader.ScanAll) promise no order.
func (s *Store) ScanAll(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error {
	return s.Scan(ctx, table, nil, nil, fn)
}

// errFound ends Lookup's scan at the first cell.
var errFound = errors.New("found")

// Lookup is Get, except that a raw table key may be a row key alone
// (schemas.RowKeyLen bytes; schemas.LookupRange): Lookup then returns the
// first tweet stored under it (the one with the smallest id; a row key
// holds more than one only after a collision).
func (s *Store) Lookup(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error) {
	start, end, ok := schemas.LookupRange(table, key)
	if !ok {
		return s.Get(table, key)
	}
	var value []byte
	err := s.Scan(ctx, table, start, end, func(_, v []byte) error {
		value = append([]byte{}, v...) // non-nil: found; the scan owns v
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return nil, false, err
	}
	return value, value != nil, nil
}
