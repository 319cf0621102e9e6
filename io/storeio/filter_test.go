package storeio

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestIdentityFilter writes cells of the identity and the raw table into
// flushed tables and reads them back by key: the filter holds identity
// keys only, yet neither table's point reads miss a key that is there,
// and most reads of absent identity keys (odd ones, amid the even ones
// written) are answered by the filter.
func TestIdentityFilter(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := func(prefix string, i int) []byte { return []byte(fmt.Sprintf("%s%06d", prefix, i)) }
	var cells []schemas.Cell
	for i := range 1000 {
		cells = append(cells,
			schemas.Cell{Table: schemas.TableIdentity, Key: key("id", 2*i), Value: []byte("v")},
			schemas.Cell{Table: schemas.TableRaw, Key: key("raw", i), Value: []byte("{}")})
	}
	if err := s.Write(cells); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		for _, c := range []struct {
			table  schemas.Table
			prefix string
			i      int
		}{{schemas.TableIdentity, "id", 2 * i}, {schemas.TableRaw, "raw", i}} {
			if _, ok, err := s.Get(c.table, key(c.prefix, c.i)); err != nil || !ok {
				t.Fatalf("Get(%c, %s) = %v, %v; want found", c.table, key(c.prefix, c.i), ok, err)
			}
		}
		if _, ok, err := s.Get(schemas.TableIdentity, key("id", 2*i+1)); err != nil || ok {
			t.Fatalf("Get of an absent id = %v, %v; want not found", ok, err)
		}
	}
	m := s.db.Metrics()
	if m.Filter.Hits < 900 {
		t.Errorf("the filter answered %d of 1000 reads of absent ids, want most", m.Filter.Hits)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFilterReadsOlderTables: a table written with a Bloom filter of
// every key (as stores were before identityFilter) is still read through
// its filter.
func TestFilterReadsOlderTables(t *testing.T) {
	o := options(false)
	if o.Filters[bloom.FilterPolicy(10).Name()] == nil || o.Filters[identityFilterName] == nil {
		t.Fatalf("Filters = %v, want both the identity filter and the older Bloom filter", o.Filters)
	}
}
