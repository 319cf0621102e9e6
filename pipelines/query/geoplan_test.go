package query

import (
	"math/rand/v2"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestCoverHoldsEveryPoint: for boxes of every size, across the
// antimeridian and at the poles, every point in the box (corners, edges
// and random points) has a geohash in one of the ranges, and the ranges
// are sorted, disjoint and within the budget.
func TestCoverHoldsEveryPoint(t *testing.T) {
	boxes := []Box{
		{-180, -90, 180, 90},
		{2.2, 48.8, 2.5, 48.9},
		{-10, 46, 10, 56},
		{179, -20, -179, 70},
		{-180, 89, 180, 90},
		{0, -90, 90, -89},
		{-0.001, -0.001, 0.001, 0.001},
		{139.69, 35.68, 139.70, 35.69},
		{170, 50, 180, 60},
		{-180, -60, -170, -50},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		lat := rng.Float64()*180 - 90
		lon := rng.Float64()*360 - 180
		h, w := rng.ExpFloat64()*5, rng.ExpFloat64()*10
		boxes = append(boxes, Box{MinLon: lon, MinLat: lat, MaxLon: min(lon+w, 180), MaxLat: min(lat+h, 90)})
	}
	for _, budget := range []int{1, 4, DefaultBudget, 200} {
		for _, b := range boxes {
			rs := Cover(b, budget)
			if len(rs) == 0 || (len(rs) > budget && len(rs) > len(Cover(b, 1))) {
				t.Errorf("Cover(%v, %d): %d ranges", b, budget, len(rs))
			}
			for i := 1; i < len(rs); i++ {
				if rs[i-1].End == "" || rs[i-1].End > rs[i].Start {
					t.Fatalf("Cover(%v, %d): ranges %v and %v out of order or overlapping", b, budget, rs[i-1], rs[i])
				}
			}
			width := b.MaxLon - b.MinLon
			if width < 0 {
				width += 360
			}
			points := [][2]float64{{b.MinLat, b.MinLon}, {b.MaxLat, b.MaxLon}, {b.MinLat, b.MaxLon}, {b.MaxLat, b.MinLon}}
			for range 200 {
				lon := b.MinLon + rng.Float64()*width
				if lon > 180 {
					lon -= 360
				}
				points = append(points, [2]float64{b.MinLat + rng.Float64()*(b.MaxLat-b.MinLat), lon})
			}
			for _, p := range points {
				h := schemas.Geohash(p[0], p[1])
				found := false
				for _, r := range rs {
					if h >= r.Start && (r.End == "" || h < r.End) {
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("Cover(%v, %d) = %v misses point %v (geohash %s)", b, budget, rs, p, h)
				}
			}
		}
	}
}

func BenchmarkCover(b *testing.B) {
	boxes := []Box{{2.2, 48.8, 2.5, 48.9}, {-10, 46, 10, 56}, {-125, 24, -66, 50}, {179, -20, -179, 70}}
	for b.Loop() {
		for _, box := range boxes {
			Cover(box, DefaultBudget)
		}
	}
}
