package schemas

import (
	"slices"
	"time"
)

// Day markers of the geotemporal index: a metadata row per day that holds
// geo rows, so that a reader of a sink whose geo table is not one ordered
// key space (Cassandra: 255 spread partitions a day) can skip the days
// with none instead of reading 255 partitions of each.
//
// A marker is written with the geo rows of its day (GeoDayMarkers, the
// geo table's transforms.DerivedTable.Markers) and never removed: a day
// whose geo rows were all deleted keeps its marker, which costs a read and
// never an answer. Markers can be trusted to be
// complete only in a sink whose every geo row was written with one:
// GeoDayMarkersParam says so, written when indexing began into an empty
// sink (job.Run).
const (
	// GeoDayPrefix begins the names of the day markers: "geoday/YYYY-MM-DD".
	GeoDayPrefix = "geoday/"
	// GeoDayMarkersParam is the metadata row saying that every geo row of
	// the sink has its day marker.
	GeoDayMarkersParam = "param/geo-days"
)

// GeoDayMarkersValue is the value of GeoDayMarkersParam.
var GeoDayMarkersValue = []byte(`{"complete":true}`)

// GeoDayName returns the metadata name of the marker of day d (days since
// 1970).
func GeoDayName(d uint16) string {
	return GeoDayPrefix + time.Unix(DayStart(d), 0).UTC().Format(time.DateOnly)
}

// GeoDayMarker returns the metadata cell that marks day d as holding geo
// rows.
func GeoDayMarker(d uint16) Cell { return MetaRow{Name: GeoDayName(d), Value: []byte{}}.Cell() }

// GeoDayMarkers appends to dst the day marker of each day the geo cells
// among cells fall on, once each: the markers the geo cells a run writes
// imply (transforms.DerivedTable.Markers).
func GeoDayMarkers(dst, cells []Cell) []Cell {
	var last uint16
	var days []uint16
	for i := range cells {
		c := &cells[i]
		if c.Table != TableGeo || c.Delete || len(c.Key) < GeoKeyLen {
			continue
		}
		d := GeoKey(c.Key[:GeoKeyLen]).Day()
		if len(days) > 0 && d == last || slices.Contains(days, d) {
			continue
		}
		days, last = append(days, d), d
	}
	for _, d := range days {
		dst = append(dst, GeoDayMarker(d))
	}
	return dst
}
