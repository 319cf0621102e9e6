package query

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmcloughlin/geohash"

	"github.com/tweetindex/tweetindex/schemas"
)

// Box is a bounding box in degrees. A box whose MinLon is greater than its
// MaxLon crosses the antimeridian: it runs east from MinLon to 180 and on
// from -180 to MaxLon.
type Box struct {
	MinLon, MinLat, MaxLon, MaxLat float64
}

// ParseBox parses "minLon,minLat,maxLon,maxLat".
func ParseBox(s string) (Box, error) {
	var b Box
	if _, err := fmt.Sscanf(strings.ReplaceAll(s, ",", " "), "%g %g %g %g", &b.MinLon, &b.MinLat, &b.MaxLon, &b.MaxLat); err != nil {
		return b, fmt.Errorf("--bbox wants minLon,minLat,maxLon,maxLat (degrees), got %q", s)
	}
	return b, b.Validate()
}

// Validate checks the box's numbers.
func (b Box) Validate() error {
	switch {
	case b.MinLat < -90 || b.MaxLat > 90 || b.MinLat > b.MaxLat:
		return fmt.Errorf("bbox latitudes %g..%g: want -90 <= minLat <= maxLat <= 90", b.MinLat, b.MaxLat)
	case b.MinLon < -180 || b.MinLon > 180 || b.MaxLon < -180 || b.MaxLon > 180:
		return fmt.Errorf("bbox longitudes %g, %g: want -180..180 (minLon > maxLon crosses the antimeridian)", b.MinLon, b.MaxLon)
	}
	return nil
}

// String renders the box as ParseBox reads it.
func (b Box) String() string {
	return fmt.Sprintf("%g,%g,%g,%g", b.MinLon, b.MinLat, b.MaxLon, b.MaxLat)
}

// Contains reports whether the point is in the box (edges included), at
// the precision the geotemporal index stores points in: float32, whose
// step is at most 2^-16 degrees (1.5e-5, about 1.7 m) near ±180 and 2^-17
// (7.6e-6) for latitudes. The point is rounded to the nearest float32, as
// stored, and each edge of the box outward to the next float32 (MinLat
// and MinLon down, MaxLat and MaxLon up), so that no point in the box is
// missed: a box of ±1e-6 degrees around a tweet's exact coordinates
// finds it, and a point within one float32 step outside an edge counts
// as on it.
func (b Box) Contains(lat, lon float64) bool {
	la, lo := float32(lat), float32(lon)
	minLat, maxLat := down32(b.MinLat), up32(b.MaxLat)
	minLon, maxLon := down32(b.MinLon), up32(b.MaxLon)
	if la < minLat || la > maxLat {
		return false
	}
	if b.MinLon <= b.MaxLon {
		return lo >= minLon && lo <= maxLon
	}
	return lo >= minLon || lo <= maxLon
}

// down32 returns the greatest float32 at or below x.
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// up32 returns the least float32 at or above x.
func up32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// parts splits a box that crosses the antimeridian in two.
func (b Box) parts() []Box {
	if b.MinLon <= b.MaxLon {
		return []Box{b}
	}
	return []Box{{b.MinLon, b.MinLat, 180, b.MaxLat}, {-180, b.MinLat, b.MaxLon, b.MaxLat}}
}

// HashRange is a half-open range [Start, End) of geohash strings; End ""
// is the end of the key space.
type HashRange struct{ Start, End string }

// DefaultBudget is the number of geohash ranges a box is covered with.
const DefaultBudget = 32

// coverSlack is how much larger than the box Cover's cells may be before
// it stops splitting them.
const coverSlack = 2

// Cover returns at most budget geohash ranges (and never fewer than the
// cells of the first level the box touches), in order, whose union holds
// every geohash of a point in the box, the way GeoMesa plans Z-curve
// ranges: starting from the whole world, the coarsest cell that
// straddles the box's edge is split into its 32 children (those wholly
// inside are kept whole, those outside dropped, those on the edge split
// again in their turn) as long as the ranges the cells merge into stay
// within the budget. What cannot be split any more is read whole, and a
// reader filters its points by exact coordinates. A box across the
// antimeridian is covered as its two halves; a box touching a pole needs
// nothing special (geohash cells end at ±90; schemas.Geohash keeps the
// pole and lon 180 inside them).
func Cover(b Box, budget int) []HashRange {
	budget = max(budget, 1)
	// Plan for a box a hair larger: a point is matched in float32, and a
	// cell that ends within that rounding of the edge must not be dropped.
	const margin = 1e-4
	boxes := b.parts()
	for i := range boxes {
		boxes[i].MinLat, boxes[i].MaxLat = boxes[i].MinLat-margin, boxes[i].MaxLat+margin
		boxes[i].MinLon, boxes[i].MaxLon = boxes[i].MinLon-margin, boxes[i].MaxLon+margin
	}
	// cells holds every cell of the plan, sorted; joins counts the
	// neighbours among them that merge into one range (mergeCells's rule),
	// so the plan's ranges are len(cells) - joins.
	cells := []string{""}
	joins := 0
	joined := func(i int) int { // 1 if cells[i] and cells[i+1] merge
		if i >= 0 && i+1 < len(cells) && nextHash(cells[i]) == cells[i+1] {
			return 1
		}
		return 0
	}
	// Splitting stops when the cells are within coverSlack of the box's
	// area: more ranges would cost more reads than the rows they spare.
	target := 0.0
	for _, p := range b.parts() {
		target += coverSlack * (p.MaxLat - p.MinLat) * (p.MaxLon - p.MinLon)
	}
	area := 360.0 * 180  // of the cells, in square degrees
	edge := []string{""} // cells on the edge still to split, coarsest first
	for len(edge) > 0 && area > target {
		cell := edge[0]
		edge = edge[1:]
		if len(cell) == schemas.GeohashLen {
			continue
		}
		var children, onEdge []string
		childArea := 0.0
		for _, c := range base32 {
			child := cell + string(c)
			bb := geohash.BoundingBox(child)
			switch overlap(bb, boxes) {
			case inside:
				children = append(children, child)
			case partial:
				children = append(children, child)
				onEdge = append(onEdge, child)
			default:
				continue
			}
			childArea += (bb.MaxLat - bb.MinLat) * (bb.MaxLng - bb.MinLng)
		}
		if len(children) == 0 {
			continue // cannot happen: a cell on the edge has a child there
		}
		// Replace cell by its children (which sort right after it) if the
		// ranges stay within the budget; the world is always split.
		i, _ := slices.BinarySearch(cells, cell)
		lost := joined(i-1) + joined(i)
		gained := 0
		for k := 1; k < len(children); k++ {
			if nextHash(children[k-1]) == children[k] {
				gained++
			}
		}
		if i+1 < len(cells) && nextHash(children[len(children)-1]) == cells[i+1] {
			gained++
		}
		ranges := len(cells) - 1 + len(children) - (joins - lost + gained)
		if cell != "" && ranges > budget {
			continue // splitting it costs more ranges than the budget has: read it whole
		}
		cells = slices.Replace(cells, i, i+1, children...)
		joins += gained - lost
		bb := geohash.BoundingBox(cell)
		if cell == "" {
			bb = geohash.Box{MinLat: -90, MaxLat: 90, MinLng: -180, MaxLng: 180}
		}
		area += childArea - (bb.MaxLat-bb.MinLat)*(bb.MaxLng-bb.MinLng)
		edge = append(edge, onEdge...)
	}
	return mergeCells(cells)
}

// mergeCells returns the ranges of sorted cells, adjacent cells merged
// into one range.
func mergeCells(cells []string) []HashRange {
	var out []HashRange
	for _, p := range cells {
		r := HashRange{Start: p, End: nextHash(p)}
		if n := len(out); n > 0 && out[n-1].End == r.Start {
			out[n-1].End = r.End
			continue
		}
		out = append(out, r)
	}
	return out
}

// base32 is the geohash alphabet, in its (and ASCII's) order.
const base32 = "0123456789bcdefghjkmnpqrstuvwxyz"

// nextHash returns the smallest geohash string after every string with
// prefix p ("" when there is none).
func nextHash(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if j := strings.IndexByte(base32, p[i]); j < len(base32)-1 {
			return p[:i] + string(base32[j+1])
		}
	}
	return ""
}

type overlapKind int

const (
	outside overlapKind = iota
	partial
	inside
)

// overlap says how the cell box bb meets the boxes.
func overlap(bb geohash.Box, boxes []Box) overlapKind {
	kind := outside
	for _, b := range boxes {
		if bb.MaxLat < b.MinLat || bb.MinLat > b.MaxLat || bb.MaxLng < b.MinLon || bb.MinLng > b.MaxLon {
			continue
		}
		if bb.MinLat >= b.MinLat && bb.MaxLat <= b.MaxLat && bb.MinLng >= b.MinLon && bb.MaxLng <= b.MaxLon {
			return inside
		}
		kind = partial
	}
	return kind
}
