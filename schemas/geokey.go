package schemas

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mmcloughlin/geohash"
)

// Geotemporal index parameters, fixed by the table layout (docs/tables.md)
// and recorded in the metadata table so that readers never guess
// them.
const (
	// SpreadCount is the number of spread values: one day's writes are spread
	// evenly over this many partitions.
	SpreadCount = 255
	// GeohashLen is the geohash precision in characters (about 38 m x 19 m).
	GeohashLen = 8
	// GeoKeyLen is the length of a geotemporal row: spread, day, geohash.
	GeoKeyLen = 1 + 2 + GeohashLen
)

// Spread is the spread byte of a tweet: the Murmur2 of its stored JSON modulo
// 255, in unsigned arithmetic, so 0..254.
func Spread(hash uint32) uint8 { return uint8(hash % SpreadCount) }

// Day is the number of whole days since 1970-01-01 UTC of Unix second sec, as
// a uint16. It overflows on 2149-06-07 (day 65536); ValidDay reports whether a
// time is representable.
func Day(sec int64) uint16 { return uint16(floorDiv(sec, 86400)) }

// ValidDay reports whether Unix second sec falls in 1970-01-01 .. 2149-06-06,
// the days a uint16 can hold.
func ValidDay(sec int64) bool { return sec >= 0 && sec/86400 <= math.MaxUint16 }

// DayStart returns the Unix second at which day d begins.
func DayStart(d uint16) int64 { return int64(d) * 86400 }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ValidPoint reports whether lat, lon is a possible point on Earth.
func ValidPoint(lat, lon float64) bool {
	return !math.IsNaN(lat) && !math.IsNaN(lon) && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
}

// Geohash returns the 8-character geohash of a point. The north pole
// (lat 90) and the antimeridian seen from the east (lon 180) are encoded
// as the cells just below and west of them: the geohash library wraps
// them to the cells of lat -90 and lon -180, where no box search that
// touches the pole or ends at 180 would look.
func Geohash(lat, lon float64) string {
	const edge = 1e-7 // degrees: about 1 cm, above the library's 32-bit quantum
	if lat > 90-edge {
		lat = 90 - edge
	}
	if lon > 180-edge {
		lon = 180 - edge
	}
	return geohash.EncodeWithPrecision(lat, lon, GeohashLen)
}

// GeoKey is the row of the geotemporal index: spread byte, big-endian day,
// then the 8-character geohash.
type GeoKey [GeoKeyLen]byte

// NewGeoKey builds a geotemporal row.
func NewGeoKey(spread uint8, day uint16, hash string) GeoKey {
	var k GeoKey
	k[0] = spread
	binary.BigEndian.PutUint16(k[1:3], day)
	copy(k[3:], hash)
	return k
}

// Spread returns the key's spread byte.
func (k GeoKey) Spread() uint8 { return k[0] }

// Day returns the key's day since 1970.
func (k GeoKey) Day() uint16 { return binary.BigEndian.Uint16(k[1:3]) }

// Geohash returns the key's geohash.
func (k GeoKey) Geohash() string { return string(k[3:]) }

// String renders the key for people: "spread/day/geohash".
func (k GeoKey) String() string { return fmt.Sprintf("%d/%d/%s", k.Spread(), k.Day(), k.Geohash()) }
