package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// registrySampleRowKey is the row key of the tweet of registrySamples.
var registrySampleRowKey = RowKey{0, 0, 0, 0, 0x5b, 0xbe, 0x5e, 0xcc, 0x1c, 0x94, 0x22, 0x1b}

// registrySamples returns a cell of every table, those of tweet-derived
// tables made for a tweet of row key registrySampleRowKey. A new table
// needs one here.
func registrySamples() map[Table]Cell {
	rk := registrySampleRowKey
	return map[Table]Cell{
		TableRaw:        RawRow{Key: rk, ID: 7, JSON: []byte(`{"id_str":"7"}`)}.Cell(),
		TableTerms:      TermRow{Term: "#x", Field: "text", Key: rk, Freq: 2}.Cell(),
		TableFrequency:  FrequencyRow{Minute: "201810101911", Lang: "en", Count: 3}.Cell(),
		TableGeo:        GeoRow{Geo: NewGeoKey(1, 17814, "9q8yyk8y"), Key: rk, Lat: 1, Lon: 2, Kind: PointExact}.Cell(),
		TableDeadLetter: DeadLetterRow{Origin: Origin{Source: "a.json", Line: 3}, Reason: "broken", Raw: []byte("{")}.Cell(),
		TableMeta:       MetaRow{Name: "param/x", Value: []byte(`{}`)}.Cell(),
		TableIdentity:   IdentityRow{ID: 7, Key: rk}.Cell(),
		TableAuthors:    AuthorRow{Key: rk, ID: 7, Lang: "en", ScreenName: "u"}.Cell(),
		TableEdges:      EdgeRow{Type: EdgeMention, Source: "u", Target: "v", Key: rk, ID: 7}.Cell(),
		TableTermDays:   TermDayRow{Day: 17814, Field: TermFieldHashtag, Term: "#x", Lang: "en", Tweets: 3}.Cell(),
		TableEdgeDays:   EdgeDayRow{Type: EdgeMention, Day: 17814, Source: "u", Target: "v", Tweets: 3}.Cell(),
	}
}

// checkSpec reports what is wrong with a table's spec, given a cell of
// the table (see registrySamples).
func checkSpec(s *TableSpec, sample Cell) error {
	var errs []error
	if s.Name == "" {
		errs = append(errs, errors.New("no name"))
	}
	if s.CQL == nil {
		errs = append(errs, errors.New("no CQL table"))
	} else if s.CQL.Table != s.Table {
		errs = append(errs, fmt.Errorf("CQL table %s stores table %q", s.CQL.Name, byte(s.CQL.Table)))
	}
	if err := checkCQLRow(s, sample); err != nil {
		errs = append(errs, err)
	}
	if s.Dump == nil {
		errs = append(errs, errors.New("no dump decoder"))
	} else if row, err := s.Dump(sample.Key, sample.Value); err != nil {
		errs = append(errs, fmt.Errorf("dump of a cell: %v", err))
	} else if _, err := json.Marshal(row); err != nil {
		errs = append(errs, fmt.Errorf("dump of a cell does not encode: %v", err))
	}
	// A derived cell is keyed by its tweet's row key (which is how the
	// cells of a stored tweet are found to delete them), and no other is.
	if keyed := bytes.Contains(sample.Key, registrySampleRowKey[:]); s.Derived != keyed {
		errs = append(errs, fmt.Errorf("Derived is %t, but the key of a cell holds the tweet's row key: %t", s.Derived, keyed))
	}
	if k, ok := tweetKeyOf(s, sample.Key); s.Derived != ok || ok && k != registrySampleRowKey {
		errs = append(errs, fmt.Errorf("TweetKey of a cell: %v, %t; want the tweet's row key for a derived table, none for another", k, ok))
	}
	// A shared cell's key holds the row key but not the tweet id (the
	// sample's id, 7, as 8 big-endian bytes): both tweets of a collision
	// map to it.
	id := []byte{0, 0, 0, 0, 0, 0, 0, 7}
	if holdsID := s.Derived && bytes.Contains(sample.Key, id); s.Shared == holdsID && s.Derived {
		errs = append(errs, fmt.Errorf("Shared is %t, but the key of a cell holds the tweet id: %t", s.Shared, holdsID))
	}
	if s.Shared && !s.Derived {
		errs = append(errs, errors.New("Shared set on a table not derived from stored tweets"))
	}
	if s.BesideRaw && s.Table == TableRaw {
		errs = append(errs, errors.New("BesideRaw set on the raw table itself"))
	}
	if s.BulkSorted && !s.Derived && !s.BesideRaw {
		errs = append(errs, errors.New("bulk sorted, but neither derived from stored tweets nor written beside them"))
	}
	return errors.Join(errs...)
}

// checkCQLRow reports what is wrong with a table's CQL row mapping and
// range reads, given a cell of the table: the mapping must give a value of
// every column and the same cell back from them, and the reads of a range
// of the cell's key alone must read the partition (and the slice) that
// holds its row.
func checkCQLRow(s *TableSpec, sample Cell) error {
	if s.CQL == nil {
		return nil // reported by checkSpec
	}
	if s.CQLRow.Values == nil || s.CQLRow.Cell == nil {
		return errors.New("no CQL row mapping (CQLRow)")
	}
	values, err := s.CQLRow.Values(nil, sample)
	if err != nil {
		return fmt.Errorf("CQL values of a cell: %v", err)
	}
	if len(values) != len(s.CQL.Columns()) {
		return fmt.Errorf("CQL values of a cell: %d, want one per column (%d)", len(values), len(s.CQL.Columns()))
	}
	c, err := s.CQLRow.Cell(values)
	if err != nil {
		return fmt.Errorf("cell of a CQL row: %v", err)
	}
	if c.Table != sample.Table || !bytes.Equal(c.Key, sample.Key) || !bytes.Equal(c.Value, sample.Value) {
		return fmt.Errorf("cell of a CQL row is %s %q=%q, want %s %q=%q", c.Table.Name(), c.Key, c.Value, sample.Table.Name(), sample.Key, sample.Value)
	}
	if s.CQLRange == nil {
		return errors.New("no CQL range reads (CQLRange)")
	}
	rg, err := s.CQLRange(sample.Key, append(bytes.Clone(sample.Key), 0))
	if err != nil {
		return fmt.Errorf("CQL range reads of a cell's key: %v", err)
	}
	if rg.Whole {
		return nil
	}
	if rg.Steps == nil {
		return errors.New("CQL range reads of a cell's key: no steps")
	}
	n := len(s.CQL.PartitionKey)
	steps := 0
	for reads := range rg.Steps {
		for _, rd := range reads {
			if len(rd.Partition) != n || !slices.EqualFunc(rd.Partition, values[:n], cqlValueEqual) {
				continue
			}
			if !rd.Slice || cqlCompare(rd.Lo, values[n]) <= 0 && cqlCompare(values[n], rd.Hi) < 0 {
				return nil
			}
		}
		if steps++; steps > 1000 {
			break
		}
	}
	return fmt.Errorf("CQL range reads of a cell's key: none reads its partition %v (and clustering value %v)", values[:n], values[n])
}

// cqlCompare compares two CQL values of one type (of a clustering column).
func cqlCompare(a, b any) int {
	switch a := a.(type) {
	case []byte:
		b, _ := b.([]byte)
		return bytes.Compare(a, b)
	case string:
		b, _ := b.(string)
		return strings.Compare(a, b)
	case time.Time:
		b, _ := b.(time.Time)
		return a.Compare(b)
	}
	panic(fmt.Sprintf("cqlCompare of %T", a))
}

func TestRegistry(t *testing.T) {
	samples := registrySamples()
	for _, table := range Tables {
		n := 0
		for _, s := range Registry() {
			if s.Table == table {
				n++
			}
		}
		if n != 1 {
			t.Errorf("table %q has %d registry entries, want 1", byte(table), n)
		}
	}
	names, cqlNames := map[string]bool{}, map[string]bool{}
	for i, s := range Registry() {
		if i >= len(Tables) || Tables[i] != s.Table {
			t.Errorf("registry entry %d is table %q: the registry must list Tables, in their order", i, byte(s.Table))
		}
		sample, ok := samples[s.Table]
		if !ok {
			t.Errorf("table %q: no sample cell in registrySamples", byte(s.Table))
			continue
		}
		if err := checkSpec(s, sample); err != nil {
			t.Errorf("table %q (%s): %v", byte(s.Table), s.Name, err)
		}
		if s.Table.Spec() != s || s.Table.Name() != s.Name {
			t.Errorf("table %q: Spec or Name disagree with the registry", byte(s.Table))
		}
		if got, ok := TableByName(s.Name); !ok || got != s.Table {
			t.Errorf("TableByName(%q) = %q, %t", s.Name, byte(got), ok)
		}
		if names[s.Name] || s.CQL != nil && cqlNames[s.CQL.Name] {
			t.Errorf("table %q: name %q or its CQL table's name used twice", byte(s.Table), s.Name)
		}
		names[s.Name] = true
		if s.CQL != nil {
			cqlNames[s.CQL.Name] = true
		}
	}
	if Table(0).Spec() != nil {
		t.Error("Table(0).Spec() is not nil")
	}
	// A table derived from stored tweets must be deleted with them (the
	// retractions of transforms.RawFn and DeriveBatch, which forget and
	// a run share) and rebuilt with them (pipelines/maintain/recount.go): a new one is added
	// to those, then here.
	var derived []string
	for _, s := range Registry() {
		if s.Derived {
			derived = append(derived, s.Name)
		}
	}
	if want := []string{"raw", "terms", "geo", "authors", "edges"}; !slices.Equal(derived, want) {
		t.Errorf("derived tables %q, want %q", derived, want)
	}
}

// TestCheckSpec makes sure checkSpec finds what it is for.
func TestCheckSpec(t *testing.T) {
	samples := registrySamples()
	for _, broken := range []struct {
		name  string
		table Table
		edit  func(*TableSpec)
	}{
		{"no name", TableTerms, func(s *TableSpec) { s.Name = "" }},
		{"no dump decoder", TableGeo, func(s *TableSpec) { s.Dump = nil }},
		{"no CQL table", TableMeta, func(s *TableSpec) { s.CQL = nil }},
		{"another CQL table", TableMeta, func(s *TableSpec) { s.CQL = CQLRaw }},
		{"derived table not flagged", TableAuthors, func(s *TableSpec) { s.Derived = false }},
		{"table flagged derived", TableIdentity, func(s *TableSpec) { s.Derived = true }},
		{"sorted, not per tweet", TableFrequency, func(s *TableSpec) { s.BulkSorted = true }},
		{"raw beside itself", TableRaw, func(s *TableSpec) { s.BesideRaw = true }},
		{"no CQL row mapping", TableGeo, func(s *TableSpec) { s.CQLRow = CQLRow{} }},
		{"no CQL row decoder", TableEdges, func(s *TableSpec) { s.CQLRow.Cell = nil }},
		{"another table's CQL row mapping", TableAuthors, func(s *TableSpec) { s.CQLRow = CQLRow{rawCQLValues, rawFromCQL} }},
		{"no CQL range reads", TableTermDays, func(s *TableSpec) { s.CQLRange = nil }},
		{"range reads of another table", TableEdges, func(s *TableSpec) { s.CQLRange = geoCQLRange }},
		{"range reads of another layout", TableTerms, func(s *TableSpec) { s.CQLRange = minutesCQLRange }},
	} {
		s := *broken.table.Spec()
		broken.edit(&s)
		if err := checkSpec(&s, samples[broken.table]); err == nil {
			t.Errorf("%s: checkSpec passed", broken.name)
		}
	}
}

// tweetKeyOf is spec.TweetKey(key), false without one.
func tweetKeyOf(s *TableSpec, key []byte) (RowKey, bool) {
	if s.TweetKey == nil {
		return RowKey{}, false
	}
	return s.TweetKey(key)
}
