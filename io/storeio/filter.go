package storeio

import (
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/tweetindex/tweetindex/schemas"
)

// identityFilter is a Bloom filter (10 bits a key, about 1% false
// positives) of the identity table's keys only. Point reads are asked of
// the identity table, for every tweet a run sees, and mostly for ids that
// are not there; the other tables are scanned by range, and a filter of
// their keys (23 term rows a tweet) cost a hash per key at every flush
// and compaction for nothing. Keys of other tables are always "maybe
// there".
type identityFilter struct{}

// identityFilterName is written into each table that has the filter.
const identityFilterName = "tweetindex.IdentityBloom10"

var identityBloom = bloom.FilterPolicy(10)

func (identityFilter) Name() string { return identityFilterName }

func (identityFilter) MayContain(ftype pebble.FilterType, filter, key []byte) bool {
	if !isIdentityKey(key) {
		return true
	}
	return identityBloom.MayContain(ftype, filter, key)
}

func (identityFilter) NewWriter(ftype pebble.FilterType) pebble.FilterWriter {
	return identityFilterWriter{identityBloom.NewWriter(ftype)}
}

type identityFilterWriter struct{ pebble.FilterWriter }

func (w identityFilterWriter) AddKey(key []byte) {
	if isIdentityKey(key) {
		w.FilterWriter.AddKey(key)
	}
}

func isIdentityKey(key []byte) bool {
	return len(key) > 0 && key[0] == byte(schemas.TableIdentity)
}
