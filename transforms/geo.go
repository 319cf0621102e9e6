package transforms

import "github.com/tweetindex/tweetindex/schemas"

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
