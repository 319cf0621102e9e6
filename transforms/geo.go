package transforms

import (
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x0[TweetBatch, func([]schemas.Cell)](&GeoFn{})
}

// GeoFn turns a batch of tweets into GeoTemporalIndex cells.
type GeoFn struct {
	// Ack acknowledges the batch's tweets after its cells (see RawFn.Ack).
	Ack bool
}

// ProcessElement emits the cells of the batch's geotagged tweets stored,
// the day marker of each day they fall on (schemas.GeoDayMarker), and the
// deletes of the cells of the versions it retracts, if any.
func (f *GeoFn) ProcessElement(b TweetBatch, emit func([]schemas.Cell)) {
	cells := GeoCells(nil, b.Tweets)
	cells = GeoCells(cells, b.Replacements)
	cells = GeoDayMarkers(cells, cells)
	var keep map[string]schemas.Cell // cells the tweets kept make (TweetBatch.Kept)
	if len(b.Kept) > 0 {
		keep = map[string]schemas.Cell{}
		for _, i := range keptOrder(b.Kept) {
			for _, c := range GeoCells(nil, b.Kept[i:i+1]) {
				keep[string(c.Key)] = c
			}
		}
	}
	n := len(cells)
	cells = GeoCells(cells, b.Retracted)
	cells = deletesBut(cells, n, keep)
	if f.Ack {
		cells = appendAcks(cells, &b)
	}
	if len(cells) > 0 {
		emit(cells)
	}
}

// GeoCells appends the GeoTemporalIndex cells of the geotagged tweets among
// tweets to dst.
func GeoCells(dst []schemas.Cell, tweets []schemas.Tweet) []schemas.Cell {
	for i := range tweets {
		t := &tweets[i]
		if !t.HasPoint {
			continue
		}
		geo := schemas.NewGeoKey(schemas.Spread(t.RowKey.Hash()), schemas.Day(t.CreatedAt), schemas.Geohash(t.Lat, t.Lon))
		dst = append(dst, schemas.GeoRow{Geo: geo, Key: t.RowKey, Lat: float32(t.Lat), Lon: float32(t.Lon), Kind: schemas.TweetPointKind(t)}.Cell())
	}
	return dst
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
