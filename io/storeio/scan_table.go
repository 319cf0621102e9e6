package storeio

import (
	"context"

	"github.com/tweetindex/tweetindex/schemas"
)

// ScanTable calls fn for every cell of table, in key order.
func (s *Store) ScanTable(ctx context.Context, table schemas.Table, fn func(key, value []byte) error) error {
	return s.Scan(ctx, table, nil, nil, fn)
}
