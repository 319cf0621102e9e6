package query

import (
	"fmt"
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

// Contains reports whether the point is in the box (edges included). The
// point is compared as the geotemporal index stores it, in float32.
func (b Box) Contains(lat, lon float64) bool {
	lat, lon = float64(float32(lat)), float64(float32(lon))
	if lat < b.MinLat || lat > b.MaxLat {
		return false
	}
	if b.MinLon <= b.MaxLon {
		return lon >= b.MinLon && lon <= b.MaxLon
	}
	return lon >= b.MinLon || lon <= b.MaxLon
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

// Cover returns at most about budget geohash ranges, in order, whose union
// holds every geohash of a point in the box, the way GeoMesa plans Z-curve
// ranges: cells of the box's size are split into their 32 children while
// the budget allows, cells wholly inside the box are kept whole, and the
// cells at the finest level reached that straddle the edge are kept too (a
// reader filters their points by exact coordinates). Adjacent cells merge
// into one range. A box across the antimeridian is covered as its two
// halves; a box touching a pole needs nothing special (geohash cells end
// at ±90).
func Cover(b Box, budget int) []HashRange {
	if budget < 1 {
		budget = 1
	}
	boxes := b.parts()
	var keep []string
	level := []string{""}
	for depth := 0; depth < schemas.GeohashLen && len(level) > 0; depth++ {
		if len(keep)+32*len(level) > budget && depth > 0 {
			keep = append(keep, level...) // out of budget: straddling cells stay whole
			level = nil
			break
		}
		var next []string
		for _, cell := range level {
			for _, c := range base32 {
				child := cell + string(c)
				bb := geohash.BoundingBox(child)
				switch overlap(bb, boxes) {
				case inside:
					keep = append(keep, child)
				case partial:
					next = append(next, child)
				}
			}
		}
		level = next
	}
	keep = append(keep, level...) // straddling cells at full precision
	slices.Sort(keep)
	var out []HashRange
	for _, p := range keep {
		r := HashRange{Start: p, End: nextHash(p)}
		if n := len(out); n > 0 && (out[n-1].End == r.Start) {
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
