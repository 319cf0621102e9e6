package schemas

import (
	"math"
	"strconv"

	"github.com/valyala/fastjson"
)

// point is a tweet's location, if it has one.
type point struct {
	lat, lon float64
	ok       bool
	centre   bool // the centre of a place's bounding box, not exact coordinates
}

// impossible returns the reason of a reject for impossible coordinates.
func impossible(what string) string { return "impossible coordinates: " + what }

// pair reads a GeoJSON position: [lon, lat] (or [lat, lon] when latFirst,
// as in v1.1's deprecated "geo"), with an optional altitude.
func pair(v *fastjson.Value, latFirst bool, what string) (point, string) {
	a, err := v.Array()
	if err != nil || len(a) < 2 || len(a) > 3 {
		return point{}, impossible(what + " is not a coordinate pair")
	}
	x, err1 := number(a[0])
	y, err2 := number(a[1])
	if err1 != nil || err2 != nil {
		return point{}, impossible(what + " holds a non-number")
	}
	lat, lon := y, x
	if latFirst {
		lat, lon = x, y
	}
	if !ValidPoint(lat, lon) {
		return point{}, impossible(what + " lat " + ftoa(lat) + " lon " + ftoa(lon))
	}
	return point{lat: lat, lon: lon, ok: true}, ""
}

// number returns the value of a JSON number; NaN and infinities (which the
// parser tolerates) come back as they are, for ValidPoint to refuse.
func number(v *fastjson.Value) (float64, error) {
	return v.Float64()
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// isNull reports whether v is absent or JSON null.
func isNull(v *fastjson.Value) bool { return v == nil || v.Type() == fastjson.TypeNull }

// geoJSONPoint reads a GeoJSON Point object {"type": "Point", "coordinates":
// [...]}, or a bare position array. A null or absent position is no point.
func geoJSONPoint(v *fastjson.Value, latFirst bool, what string) (point, string) {
	switch v.Type() {
	case fastjson.TypeArray:
		return pair(v, latFirst, what)
	case fastjson.TypeObject:
		c := v.Get("coordinates")
		if isNull(c) {
			return point{}, ""
		}
		return pair(c, latFirst, what+".coordinates")
	}
	return point{}, impossible(what + " is a " + v.Type().String())
}

// polygonCentre returns the centre of the bounding box of every position
// in a GeoJSON polygon's coordinates (v1.1 place.bounding_box). Positions
// more than 180 degrees of longitude apart make a box that crosses the
// antimeridian (a place in Fiji, Chukotka or the Aleutians): its west edge
// is the least eastern longitude and its east edge the greatest western
// one, as in a v2 bbox.
func polygonCentre(v *fastjson.Value, what string) (point, string) {
	inf := math.Inf(1)
	b := bbox{minLat: inf, maxLat: -inf, minLon: inf, maxLon: -inf, minEast: inf, maxWest: -inf}
	if reason := b.add(v, what, 0); reason != "" {
		return point{}, reason
	}
	if b.minLat > b.maxLat {
		return point{}, "" // no positions
	}
	w, e := b.minLon, b.maxLon
	if e-w > 180 { // then some longitudes are >= 0 and some < 0
		w, e = b.minEast, b.maxWest
	}
	return boxCentre(w, b.minLat, e, b.maxLat), ""
}

// bbox collects the extent of positions: latitudes and longitudes, and the
// least eastern (>= 0) and greatest western (< 0) longitudes.
type bbox struct{ minLat, maxLat, minLon, maxLon, minEast, maxWest float64 }

// boxCentre returns the centre of the box [west, south, east, north]. A box
// whose west edge is east of its east edge crosses the antimeridian: its
// centre is halfway from west eastwards to east, in [-180, 180].
func boxCentre(w, s, e, n float64) point {
	lon := (w + e) / 2
	if w > e {
		lon += 180
		if lon > 180 {
			lon -= 360
		}
	}
	return point{lat: (s + n) / 2, lon: lon, ok: true, centre: true}
}

// add extends b by the positions in v, an array nested up to 3 levels deep.
func (b *bbox) add(v *fastjson.Value, what string, depth int) string {
	a, err := v.Array()
	if err != nil || depth > 3 {
		return impossible(what + " is not a polygon")
	}
	if len(a) > 0 && a[0].Type() == fastjson.TypeNumber {
		p, reason := pair(v, false, what)
		if reason != "" {
			return reason
		}
		b.minLat, b.maxLat = min(b.minLat, p.lat), max(b.maxLat, p.lat)
		b.minLon, b.maxLon = min(b.minLon, p.lon), max(b.maxLon, p.lon)
		if p.lon >= 0 {
			b.minEast = min(b.minEast, p.lon)
		} else {
			b.maxWest = max(b.maxWest, p.lon)
		}
		return ""
	}
	for _, e := range a {
		if reason := b.add(e, what, depth+1); reason != "" {
			return reason
		}
	}
	return ""
}

// bboxCentre returns the centre of a v2 place's geo.bbox [west, south,
// east, north]. A box whose west edge is east of its east edge crosses the
// antimeridian.
func bboxCentre(v *fastjson.Value, what string) (point, string) {
	a, err := v.Array()
	if err != nil || len(a) != 4 {
		return point{}, impossible(what + " is not [west, south, east, north]")
	}
	var c [4]float64
	for i, e := range a {
		if c[i], err = number(e); err != nil {
			return point{}, impossible(what + " holds a non-number")
		}
	}
	w, s, e, n := c[0], c[1], c[2], c[3]
	if !ValidPoint(s, w) || !ValidPoint(n, e) {
		return point{}, impossible(what + " " + ftoa(w) + "," + ftoa(s) + "," + ftoa(e) + "," + ftoa(n))
	}
	return boxCentre(w, s, e, n), ""
}

// v1Point returns the point of a v1.1 tweet: "coordinates" ([lon, lat]),
// else the deprecated "geo" ([lat, lon]), else the centre of
// place.bounding_box.
func v1Point(f *fields) (point, string) {
	if !isNull(f.coordinates) {
		return geoJSONPoint(f.coordinates, false, "coordinates")
	}
	if !isNull(f.geo) {
		return geoJSONPoint(f.geo, true, "geo")
	}
	if f.place != nil && f.place.Type() == fastjson.TypeObject {
		bb := f.place.Get("bounding_box")
		if isNull(bb) {
			return point{}, ""
		}
		c := bb.Get("coordinates")
		if isNull(c) {
			return point{}, ""
		}
		return polygonCentre(c, "place.bounding_box")
	}
	return point{}, ""
}

// v2Point returns the point of a v2 tweet: geo.coordinates ([lon, lat]),
// else the centre of its place's geo.bbox: the place inlined by twarc2
// (geo.place, or the place's members merged into geo), or the place
// includes.places holds for geo.place_id.
func v2Point(geo *fastjson.Value, inc *includes) (point, string) {
	if geo == nil || geo.Type() != fastjson.TypeObject {
		return point{}, ""
	}
	if c := geo.Get("coordinates"); !isNull(c) {
		return geoJSONPoint(c, false, "geo.coordinates")
	}
	var place *fastjson.Value
	what := ""
	switch {
	case geo.Get("place") != nil && geo.Get("place").Type() == fastjson.TypeObject:
		place, what = geo.Get("place"), "geo.place.geo.bbox"
	case geo.Get("geo") != nil:
		place, what = geo, "geo.geo.bbox"
	default:
		if id := geo.GetStringBytes("place_id"); id != nil && inc != nil {
			if i := inc.find(inc.places, id); i >= 0 {
				place, what = inc.places[i].v, "includes.places.geo.bbox"
			}
		}
	}
	if place == nil {
		return point{}, ""
	}
	bb := place.Get("geo", "bbox")
	if isNull(bb) {
		return point{}, ""
	}
	return bboxCentre(bb, what)
}
