package query

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/mmcloughlin/geohash"

	"github.com/tweetindex/tweetindex/schemas"
)

// HeatCell is one cell of a heatmap: a geohash and how many geotagged
// tweets of the question have their point in it.
type HeatCell struct {
	Geohash string `json:"geohash"`
	Count   int64  `json:"tweets"`
}

// Bounds returns the cell's extent in degrees.
func (c HeatCell) Bounds() (minLat, minLon, maxLat, maxLon float64) {
	b := geohash.BoundingBox(c.Geohash)
	return b.MinLat, b.MinLng, b.MaxLat, b.MaxLng
}

// MaxHeatPrecision is the longest geohash a heatmap cell may have: the
// geo table's (schemas.GeohashLen) is the finest it knows.
const MaxHeatPrecision = schemas.GeohashLen

// CheckHeatPrecision says what is wrong with a heatmap's precision.
func CheckHeatPrecision(p int) error {
	if p < 1 || p > MaxHeatPrecision {
		return fmt.Errorf("precision %d: want a geohash length of 1 to %d (1: 5,000 km cells, 4: 39 km by 20 km, 6: 1.2 km by 0.6 km)", p, MaxHeatPrecision)
	}
	return nil
}

// heatCell is the geohash of precision characters of a stored point (the
// geo table's float32 coordinates, as GeoHit holds them).
func heatCell(lat, lon float32, precision int) string {
	return geohash.EncodeWithPrecision(float64(lat), float64(lon), uint(precision))
}

// Heatmap answers "where, as a map": the geotagged tweets in box (all of
// them with box nil) counted by the geohash cell of precision characters
// their point lies in, cells in geohash order. It reads what CountGeo
// reads and counts each tweet CountGeo counts, in the cell of the point
// the box search kept for it, so the cells' counts add up to CountGeo's
// answer.
func (e *Engine) Heatmap(ctx context.Context, f Filter, box *Box, precision int) ([]HeatCell, error) {
	if err := CheckHeatPrecision(precision); err != nil {
		return nil, err
	}
	coll, err := e.collided(ctx)
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	var dec decoder
	err = e.geoHits(ctx, f, box, func(hits []GeoHit) error {
		var read []schemas.RowKey
		points := map[schemas.RowKey][]GeoHit{}
		for _, h := range hits {
			if !coll[h.Key] {
				counts[heatCell(h.Lat, h.Lon, precision)]++
				continue
			}
			if len(points[h.Key]) == 0 {
				read = append(read, h.Key) // hits come in row key order
			}
			points[h.Key] = append(points[h.Key], h)
		}
		// A row key recorded as a collision: its tweets, each where
		// CountGeo counts it (answering), in the cell of its own point.
		match := geoMatcher(points)
		return e.rows(ctx, read, fetchChunk, func(k []byte, values [][]byte) error {
			var key schemas.RowKey
			copy(key[:], k)
			return answering(&dec, k, values, match, false, func(v []byte) error {
				t, err := dec.decode(k, v)
				if err != nil {
					return err
				}
				if f.Lang != "" && t.Lang != f.Lang {
					return nil
				}
				if len(values) == 1 { // the row key holds one tweet after all: the kept point
					p := points[key][0]
					counts[heatCell(p.Lat, p.Lon, precision)]++
					return nil
				}
				counts[heatCell(float32(t.Lat), float32(t.Lon), precision)]++
				return nil
			})
		})
	})
	if err != nil {
		return nil, err
	}
	return heatCells(counts), nil
}

// heatCells returns counts as cells in geohash order.
func heatCells(counts map[string]int64) []HeatCell {
	cells := make([]HeatCell, 0, len(counts))
	for _, h := range slices.Sorted(maps.Keys(counts)) {
		cells = append(cells, HeatCell{Geohash: h, Count: counts[h]})
	}
	return cells
}

// Heatmap answers Engine.Heatmap by a scan: the tweets Geo finds, by the
// cell of their point.
func (sc Scanner) Heatmap(ctx context.Context, f Filter, box *Box, precision int) ([]HeatCell, error) {
	if err := CheckHeatPrecision(precision); err != nil {
		return nil, err
	}
	hits, err := sc.Geo(ctx, f, box)
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for _, h := range hits {
		counts[heatCell(h.Lat, h.Lon, precision)]++
	}
	return heatCells(counts), nil
}

// HeatTotal is the tweets a heatmap counts, and its largest cell's count.
func HeatTotal(cells []HeatCell) (total, largest int64) {
	for _, c := range cells {
		total += c.Count
		largest = max(largest, c.Count)
	}
	return total, largest
}
