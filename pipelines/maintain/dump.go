package maintain

import (
	"context"
	"fmt"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// DumpRows calls fn with every row of table, in key order, as a value of
// decoded fields that encodes (encoding/json) as the row's object in
// tweetindex dump's JSON lines:
//
//	raw:        row_key (hex), tweet_id, created_at (RFC 3339), json
//	terms:      term, field, row_key, freq, positions (text rows)
//	frequency:  minute (YYYYMMDDhhmm), lang, count
//	geo:        spread, day, geohash, row_key, lat, lon, point (exact, place or unknown)
//	deadletter: origin, item (when > 0), reason, raw
//	meta:       name, value
//	identity:   tweet_id, row_key (hex) or deleted
//	authors:    row_key (hex), tweet_id, lang, screen_name (lower-cased)
//
// Each table's schemas.TableSpec.Dump decodes its rows. It returns how
// many rows fn was called with.
func DumpRows(ctx context.Context, src sink.Reader, table schemas.Table, fn func(row any) error) (int64, error) {
	var n int64
	err := src.Scan(ctx, table, nil, nil, func(key, value []byte) error {
		row, err := dumpRow(table, key, value)
		if err != nil {
			return fmt.Errorf("dump %s: row %d: %w", table.Name(), n+1, err)
		}
		n++
		return fn(row)
	})
	return n, err
}

func dumpRow(table schemas.Table, key, value []byte) (any, error) {
	spec := table.Spec()
	if spec == nil {
		return nil, fmt.Errorf("unknown table %q", byte(table))
	}
	return spec.Dump(key, value)
}
