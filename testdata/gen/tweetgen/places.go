package tweetgen

import (
	"math"
	"math/rand/v2"
)

// place is a Twitter place: a named bounding box.
type place struct {
	id, name, fullName, country, countryCode, placeType string
	// w, s, e, n bound the place (degrees). No box crosses the antimeridian.
	w, s, e, n float64
}

// centre returns the point the oracle expects for a tweet located only by
// this place: the centre of its bounding box, computed as a reader does,
// from the corners as written.
func (p *place) centre() (lat, lon float64) {
	return (p.s + p.n) / 2, (p.w + p.e) / 2
}

// cities are the places tweets are posted from.
var cities = []*place{
	{"3797791ff9c0e4c6", "Shinjuku-ku", "Shinjuku-ku, Tokyo", "Japan", "JP", "city", 139.6727, 35.6712, 139.7510, 35.7186},
	{"0cd4d8f3c12a5f8b", "Osaka-shi", "Osaka-shi, Osaka", "Japan", "JP", "city", 135.4012, 34.5822, 135.6026, 34.7502},
	{"01a9a39529b27f36", "Manhattan", "Manhattan, NY", "United States", "US", "city", -74.026675, 40.683935, -73.910408, 40.877483},
	{"3b77caf94bfc81fe", "Los Angeles", "Los Angeles, CA", "United States", "US", "city", -118.668404, 33.704538, -118.155409, 34.337041},
	{"457b4814b4240d87", "London", "London, England", "United Kingdom", "GB", "city", -0.510375, 51.28676, 0.334015, 51.691874},
	{"206e932cc0e89fa2", "Madrid", "Madrid, Comunidad de Madrid", "España", "ES", "city", -3.888954, 40.312071, -3.517688, 40.6436},
	{"25530ba03b7d90c6", "Ciudad de México", "Ciudad de México, México", "México", "MX", "admin", -99.364924, 19.048237, -98.940303, 19.592757},
	{"018f1cde6bad9747", "Ciudad Autónoma de Buenos Aires", "Ciudad Autónoma de Buenos Aires, Argentina", "Argentina", "AR", "city", -58.531449, -34.705293, -58.335213, -34.526500},
	{"3ee2c8a4b1f0e5d7", "الرياض", "الرياض, المملكة العربية السعودية", "المملكة العربية السعودية", "SA", "city", 46.5423, 24.4938, 46.9654, 24.9617},
	{"5a1c3f0e9b2d4c68", "Cairo", "Cairo, Egypt", "Egypt", "EG", "city", 31.1152, 29.9511, 31.4893, 30.1986},
	{"68e019afec7d0ba5", "São Paulo", "São Paulo, Brasil", "Brasil", "BR", "city", -46.826039, -24.008814, -46.365052, -23.356792},
	{"0dd4a5f6b3e2c170", "DKI Jakarta", "DKI Jakarta, Indonesia", "Indonesia", "ID", "admin", 106.6894, -6.3706, 106.9746, -6.0886},
	{"7c8e4f1b2a3d5e60", "Seoul", "Seoul, Republic of Korea", "Republic of Korea", "KR", "city", 126.7642, 37.4133, 127.1836, 37.7151},
	{"2b6ff8c22edd9576", "กรุงเทพมหานคร", "กรุงเทพมหานคร, ประเทศไทย", "ประเทศไทย", "TH", "admin", 100.3279, 13.4939, 100.9385, 13.9552},
	{"09f6a7707f18e0b1", "Paris", "Paris, France", "France", "FR", "city", 2.224199, 48.815573, 2.469921, 48.902145},
	{"5e02a0f0d91c76d2", "İstanbul", "İstanbul, Türkiye", "Türkiye", "TR", "admin", 28.5953, 40.8024, 29.4286, 41.3201},
	{"01e4a6d2c8b7f395", "Manila", "Manila, National Capital Region", "Republika ng Pilipinas", "PH", "city", 120.9535, 14.5349, 121.0266, 14.6361},
	{"6d2a4f8e1c0b3a57", "Москва", "Москва, Россия", "Россия", "RU", "city", 37.3193, 55.4899, 37.9457, 55.9575},
	{"3078869807f9dd36", "Berlin", "Berlin, Deutschland", "Deutschland", "DE", "city", 13.088304, 52.338079, 13.760909, 52.675323},
	{"1e2f3a4b5c6d7e8f", "Mumbai", "Mumbai, India", "India", "IN", "city", 72.7757, 18.8928, 72.9863, 19.2695},
	{"7d5e6f8a9b0c1d2e", "Roma", "Roma, Lazio", "Italia", "IT", "city", 12.3426, 41.7695, 12.7306, 42.0505},
}

// cityFor picks a place for a tweet in language l.
func cityFor(r *rand.Rand, l *language) *place {
	if len(l.cities) > 0 && r.IntN(5) > 0 {
		return cities[l.cities[r.IntN(len(l.cities))]]
	}
	return cities[r.IntN(len(cities))]
}

// pointIn returns a GPS-like point inside p, rounded to 6 decimals
// (latitude, longitude).
func pointIn(r *rand.Rand, p *place) (lat, lon float64) {
	lat = round6(p.s + r.Float64()*(p.n-p.s))
	lon = round6(p.w + r.Float64()*(p.e-p.w))
	return lat, lon
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
