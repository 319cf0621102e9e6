package transforms

import (
	"slices"

	"github.com/tweetindex/tweetindex/schemas"
)

// geoMaker makes GeoTemporalIndex cells (DerivedTables).
type geoMaker struct{}

func (geoMaker) Cells(dst []schemas.Cell, t *schemas.Tweet) []schemas.Cell {
	return appendGeoCell(dst, t)
}

// GeoCells appends the GeoTemporalIndex cells of the geotagged tweets among
// tweets to dst.
func GeoCells(dst []schemas.Cell, tweets []schemas.Tweet) []schemas.Cell {
	for i := range tweets {
		dst = appendGeoCell(dst, &tweets[i])
	}
	return dst
}

// appendGeoCell appends the GeoTemporalIndex cell of t to dst, if t is
// geotagged.
func appendGeoCell(dst []schemas.Cell, t *schemas.Tweet) []schemas.Cell {
	if !t.HasPoint {
		return dst
	}
	geo := schemas.NewGeoKey(schemas.Spread(t.RowKey.Hash()), schemas.Day(t.CreatedAt), schemas.Geohash(t.Lat, t.Lon))
	return append(dst, schemas.GeoRow{Geo: geo, Key: t.RowKey, Lat: float32(t.Lat), Lon: float32(t.Lon), Kind: schemas.TweetPointKind(t)}.Cell())
}

// GeoDayMarkers appends to dst the day marker of each day the geo cells
// among cells fall on, once each.
func GeoDayMarkers(dst, cells []schemas.Cell) []schemas.Cell {
	var last uint16
	var days []uint16
	for i := range cells {
		c := &cells[i]
		if c.Table != schemas.TableGeo || c.Delete || len(c.Key) < schemas.GeoKeyLen {
			continue
		}
		d := schemas.GeoKey(c.Key[:schemas.GeoKeyLen]).Day()
		if len(days) > 0 && d == last || slices.Contains(days, d) {
			continue
		}
		days, last = append(days, d), d
	}
	for _, d := range days {
		dst = append(dst, schemas.GeoDayMarker(d))
	}
	return dst
}
