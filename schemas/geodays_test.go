package schemas

import "testing"

// TestGeoDayMarkers: one marker per day of the geo cells written, none for
// deletes or other tables.
func TestGeoDayMarkers(t *testing.T) {
	k := NewRowKey(0, nil)
	geo := func(day uint16) Cell {
		return GeoRow{Geo: NewGeoKey(3, day, "u33dc0cp"), Key: k}.Cell()
	}
	del := geo(30)
	del.Value, del.Delete = nil, true
	cells := []Cell{geo(10), geo(10), geo(12), geo(10), del, MetaRow{Name: "x"}.Cell(), geo(12)}
	got := GeoDayMarkers(nil, cells)
	want := []string{GeoDayName(10), GeoDayName(12)}
	if len(got) != len(want) {
		t.Fatalf("%d markers, want %v", len(got), want)
	}
	for i, c := range got {
		if c.Table != TableMeta || string(c.Key) != want[i] {
			t.Errorf("marker %d = %s %q, want meta %q", i, c.Table.Name(), c.Key, want[i])
		}
	}
	if want[0] != "geoday/1970-01-11" {
		t.Errorf("GeoDayName(10) = %q, want geoday/1970-01-11", want[0])
	}
}
