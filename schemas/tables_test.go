package schemas_test

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/mmcloughlin/geohash"

	"github.com/tweetindex/tweetindex/schemas"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

var goldenKey = schemas.RowKey(mustHex("000000005bbe5ecc1c94221b"))

// TestCellLayout is the golden test of every table's key and value bytes.
func TestCellLayout(t *testing.T) {
	rk := string(goldenKey[:])
	tests := []struct {
		name       string
		cell       schemas.Cell
		table      schemas.Table
		key, value string
	}{
		{"raw", schemas.RawRow{Key: goldenKey, ID: 0x0e92c5527c95b000, JSON: []byte(`{"a":1}`)}.Cell(), schemas.TableRaw, rk + "\x0e\x92\xc5\x52\x7c\x95\xb0\x00", `{"a":1}`},
		{"authors", schemas.AuthorRow{Key: goldenKey, ID: 0x0e92c5527c95b000, Lang: "en", ScreenName: "U1Scr"}.Cell(), schemas.TableAuthors, rk + "\x0e\x92\xc5\x52\x7c\x95\xb0\x00", "\x02enu1scr"},
		{"authors, no user", schemas.AuthorRow{Key: goldenKey, ID: 1, Lang: "und"}.Cell(), schemas.TableAuthors, rk + "\x00\x00\x00\x00\x00\x00\x00\x01", "\x03und"},
		{"identity", schemas.IdentityRow{ID: 0x0e92c5527c95b000, Key: goldenKey}.Cell(), schemas.TableIdentity, "\x0e\x92\xc5\x52\x7c\x95\xb0\x00", rk},
		{"identity tombstone", schemas.IdentityRow{ID: 0x0e92c5527c95b000, Deleted: true}.Cell(), schemas.TableIdentity, "\x0e\x92\xc5\x52\x7c\x95\xb0\x00", ""},
		{"term freq 1", schemas.TermRow{Term: "#apacheflink", Field: "text", Key: goldenKey, Freq: 1}.Cell(), schemas.TableTerms, "#apacheflink\x00text\x00" + rk, ""},
		{"term freq 2", schemas.TermRow{Term: "and", Field: "text", Key: goldenKey, Freq: 2}.Cell(), schemas.TableTerms, "and\x00text\x00" + rk, "2"},
		{"frequency", schemas.FrequencyRow{Minute: "201810102019", Lang: "en", Count: 42}.Cell(), schemas.TableFrequency, "201810102019en", "42"},
		{
			"geo",
			schemas.GeoRow{Geo: schemas.NewGeoKey(237, 17814, "9q8yyk8y"), Key: goldenKey, Lat: 37.77493, Lon: -122.41942}.Cell(),
			schemas.TableGeo, "\xed\x45\x96" + "9q8yyk8y" + rk, string(mustHex("42171987c2f4d6be")),
		},
		{
			"dead letter",
			schemas.DeadLetterRow{Origin: schemas.Origin{Source: "a.json", Line: 258}, Reason: "invalid UTF-8", Raw: []byte("x\xff")}.Cell(),
			schemas.TableDeadLetter, "a.json\x00" + "\x00\x00\x00\x00\x00\x00\x01\x02", "\x0dinvalid UTF-8x\xff",
		},
		{
			"dead letter, second item of its line",
			schemas.DeadLetterRow{Origin: schemas.Origin{Source: "a.json", Line: 258}, Item: 1, Reason: "not a tweet", Raw: []byte("2")}.Cell(),
			schemas.TableDeadLetter, "a.json\x00" + "\x00\x00\x00\x00\x00\x00\x01\x02" + "\x00\x00\x00\x01", "\x0bnot a tweet2",
		},
		{"meta", schemas.MetaRow{Name: "param/spread", Value: []byte("255")}.Cell(), schemas.TableMeta, "param/spread", "255"},
	}
	for _, tt := range tests {
		if tt.cell.Table != tt.table || string(tt.cell.Key) != tt.key || string(tt.cell.Value) != tt.value {
			t.Errorf("%s: cell %c %q %q, want %c %q %q", tt.name, tt.cell.Table, tt.cell.Key, tt.cell.Value, tt.table, tt.key, tt.value)
		}
	}
}

// TestCellRoundTrip encodes a row of every table and decodes it back.
func TestCellRoundTrip(t *testing.T) {
	raw := schemas.RawRow{Key: goldenKey, JSON: []byte(`{"data":{"id":"1"}}`)}
	if c := raw.Cell(); !roundTrip(t, raw, func() (any, error) { return schemas.DecodeRaw(c.Key, c.Value) }) {
		t.Error("raw")
	}
	for _, a := range []schemas.AuthorRow{
		{Key: goldenKey, ID: 7, Lang: "en", ScreenName: "u1scr"},
		{Key: goldenKey, ID: 1 << 63, Lang: "zh-cn", ScreenName: "東京_tower"},
		{Key: goldenKey, ID: 8, Lang: "und", ScreenName: ""},
	} {
		c := a.Cell()
		roundTrip(t, a, func() (any, error) { return schemas.DecodeAuthor(c.Key, c.Value) })
	}
	for _, term := range []schemas.TermRow{
		{Term: "and", Field: "text", Key: goldenKey, Freq: 1},
		{Term: "東京", Field: "text", Key: goldenKey, Freq: 7},
		{Term: "u1scr", Field: "user", Key: goldenKey, Freq: 4294967295},
	} {
		c := term.Cell()
		roundTrip(t, term, func() (any, error) { return schemas.DecodeTerm(c.Key, c.Value) })
	}
	freq := schemas.FrequencyRow{Minute: "214906042359", Lang: "zh-cn", Count: 1 << 40}
	c := freq.Cell()
	roundTrip(t, freq, func() (any, error) { return schemas.DecodeFrequency(c.Key, c.Value) })
	geo := schemas.GeoRow{Geo: schemas.NewGeoKey(254, 65535, schemas.Geohash(-33.8688, 151.2093)), Key: goldenKey, Lat: -33.8688, Lon: 151.2093}
	c = geo.Cell()
	roundTrip(t, geo, func() (any, error) { return schemas.DecodeGeo(c.Key, c.Value) })
	if len(c.Value) != 8 {
		t.Errorf("a geo row of unknown point kind has a %d-byte value, want 8 (as written before the kind)", len(c.Value))
	}
	for _, kind := range []schemas.PointKind{schemas.PointExact, schemas.PointCentre} {
		g := geo
		g.Kind = kind
		c := g.Cell()
		roundTrip(t, g, func() (any, error) { return schemas.DecodeGeo(c.Key, c.Value) })
		if len(c.Value) != 9 || c.Value[8] != byte(kind) {
			t.Errorf("geo row of kind %v: value %x, want lat, lon and the kind byte %d", kind, c.Value, kind)
		}
		if _, err := schemas.DecodeGeo(c.Key, append(c.Value[:8:8], 7)); err == nil {
			t.Error("DecodeGeo accepted point kind 7")
		}
	}
	// A tweet with coordinates is exact; one with only a place is its centre.
	for _, tc := range []struct {
		json string
		want schemas.PointKind
	}{
		{`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1","coordinates":{"type":"Point","coordinates":[2.35,48.85]},"place":{"bounding_box":{"coordinates":[[[2,48],[3,48],[3,49],[2,49]]]}}}`, schemas.PointExact},
		{`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"2","place":{"bounding_box":{"coordinates":[[[2,48],[3,48],[3,49],[2,49]]]}}}`, schemas.PointCentre},
		{`{"data":{"id":"3","created_at":"2018-10-10T20:19:24.000Z","text":"x","geo":{"place_id":"p"}},"includes":{"places":[{"id":"p","geo":{"bbox":[2,48,3,49]}}]}}`, schemas.PointCentre},
	} {
		var dec schemas.Decoder
		var out schemas.Decoded
		dec.Decode(schemas.Record{Data: []byte(tc.json)}, &out)
		if len(out.Tweets) != 1 || !out.Tweets[0].HasPoint {
			t.Fatalf("%s: decoded %+v", tc.json, out)
		}
		if got := schemas.TweetPointKind(&out.Tweets[0]); got != tc.want {
			t.Errorf("%s: point kind %v, want %v", tc.json, got, tc.want)
		}
	}
	dl := schemas.DeadLetterRow{Origin: schemas.Origin{Source: "kafka:tweets/3", Line: 1 << 40}, Reason: "broken JSON: missing '}'", Raw: []byte(`{"a":`)}
	c = dl.Cell()
	roundTrip(t, dl, func() (any, error) { return schemas.DecodeDeadLetter(c.Key, c.Value) })
	for _, dl := range []schemas.DeadLetterRow{
		{Origin: schemas.Origin{Source: "page.json", Line: 3}, Item: 7, Reason: "not a tweet: JSON number", Raw: []byte("7")},
		{Origin: schemas.Origin{Source: "a.zip!x\x00y.json", Line: 1}, Reason: "r", Raw: []byte{}},
		{Origin: schemas.Origin{Source: "a.zip!x\x00yzw", Line: 1}, Item: 2, Reason: "r", Raw: []byte{}},
		{Origin: schemas.Origin{Source: "", Line: 0}, Item: 0, Reason: "", Raw: []byte{}},
		{Origin: schemas.Origin{Source: "", Line: 0}, Item: 1 << 31, Reason: "", Raw: []byte{}},
	} {
		c := dl.Cell()
		roundTrip(t, dl, func() (any, error) { return schemas.DecodeDeadLetter(c.Key, c.Value) })
	}
}

func roundTrip(t *testing.T, want any, decode func() (any, error)) bool {
	t.Helper()
	got, err := decode()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("round trip of %+v: got %+v, %v", want, got, err)
		return false
	}
	return true
}

// TestCellDecodeErrors checks that malformed cells are refused.
func TestCellDecodeErrors(t *testing.T) {
	if _, err := schemas.DecodeRaw(make([]byte, 5), nil); err == nil {
		t.Error("DecodeRaw accepted a short key")
	}
	if _, err := schemas.DecodeAuthor(make([]byte, 12), []byte("\x02en")); err == nil {
		t.Error("DecodeAuthor accepted a key without the tweet id")
	}
	for _, v := range []string{"", "\x03en"} {
		if _, err := schemas.DecodeAuthor(make([]byte, schemas.RawKeyLen), []byte(v)); err == nil {
			t.Errorf("DecodeAuthor accepted value %q", v)
		}
	}
	if _, err := schemas.DecodeTerm([]byte("short"), nil); err == nil {
		t.Error("DecodeTerm accepted a short key")
	}
	if _, err := schemas.DecodeTerm(append([]byte("and\x00text\x00"), goldenKey[:]...), []byte("x")); err == nil {
		t.Error("DecodeTerm accepted a non-numeric frequency")
	}
	if _, err := schemas.DecodeFrequency([]byte("2018"), []byte("1")); err == nil {
		t.Error("DecodeFrequency accepted a short key")
	}
	if _, err := schemas.DecodeGeo(make([]byte, 22), make([]byte, 7)); err == nil {
		t.Error("DecodeGeo accepted a short value")
	}
	if _, err := schemas.DecodeDeadLetter([]byte("a\x00\x00"), nil); err == nil {
		t.Error("DecodeDeadLetter accepted a short key")
	}
	if _, err := schemas.DecodeDeadLetter(append([]byte("a\x00"), make([]byte, 8)...), []byte{50, 'x'}); err == nil {
		t.Error("DecodeDeadLetter accepted a reason longer than the value")
	}
}

// TestGeoKeyLayout checks the geotemporal row against the spread and day
// of a known tweet and an independently computed geohash.
func TestGeoKeyLayout(t *testing.T) {
	json := []byte("abc")
	spread := schemas.Spread(schemas.Murmur2(json)) // 479470107 mod 255
	day := schemas.Day(1539202764)                  // 2018-10-10
	hash := schemas.Geohash(37.77493, -122.41942)
	if spread != 237 || day != 17814 || hash != "9q8yyk8y" {
		t.Fatalf("spread %d day %d geohash %s, want 237 17814 9q8yyk8y", spread, day, hash)
	}
	k := schemas.NewGeoKey(spread, day, hash)
	if !bytes.Equal(k[:], []byte("\xed\x45\x969q8yyk8y")) || k.Spread() != spread || k.Day() != day || k.Geohash() != hash {
		t.Errorf("geo key %q (%s)", k[:], k)
	}
}

// TestGeohashOfEdges: points on the north pole and on the antimeridian
// (lon 180) get the geohash of a cell that holds them, not the cell at
// the other end of the world the geohash library wraps them to.
func TestGeohashOfEdges(t *testing.T) {
	tests := []struct{ lat, lon float64 }{
		{90, 0}, {90, 180}, {90, -180}, {-90, 0}, {-90, 180}, {0, 180}, {65.2, 180}, {0, -180}, {45, 90},
	}
	for _, tc := range tests {
		h := schemas.Geohash(tc.lat, tc.lon)
		b := geohash.BoundingBox(h)
		if tc.lat < b.MinLat || tc.lat > b.MaxLat || tc.lon < b.MinLng || tc.lon > b.MaxLng {
			t.Errorf("Geohash(%g, %g) = %s, a cell of lat %g..%g, lon %g..%g: not the point's", tc.lat, tc.lon, h, b.MinLat, b.MaxLat, b.MinLng, b.MaxLng)
		}
	}
}

// TestTableBytesDistinct: every table, and the acknowledgements that ride
// with a sink's cells (schemas.TableAck, never stored), has a byte of its
// own: a sink tells them apart by it alone.
func TestTableBytesDistinct(t *testing.T) {
	seen := map[schemas.Table]string{schemas.TableAck: "ack"}
	for _, tb := range schemas.Tables {
		if other, ok := seen[tb]; ok {
			t.Errorf("table %s has the byte %q of %s", tb.Name(), byte(tb), other)
		}
		seen[tb] = tb.Name()
	}
}

// TestTermAppendCell appends the cells of several rows to one buffer
// (one too small at first, so that it grows while they are appended, and
// one large enough for all) and checks each is the row's Cell and stays
// so after the rest are appended, even when a caller appends to a key:
// no cell's bytes are overwritten by another's.
func TestTermAppendCell(t *testing.T) {
	rows := []schemas.TermRow{
		{Term: "flink", Field: "text", Key: schemas.RowKey{1, 2, 3}, Freq: 1},
		{Term: "#apacheflink", Field: "text", Key: schemas.RowKey{4}, Freq: 12},
		{Term: "bad\xffutf8", Field: "user", Key: schemas.RowKey{5}, Freq: 3},
		{Term: "a", Field: "user", Key: schemas.RowKey{6}, Freq: 1000000},
	}
	for _, size := range []int{8, 1024} {
		buf := make([]byte, 0, size)
		var got []schemas.Cell
		for _, r := range rows {
			var c schemas.Cell
			c, buf = r.AppendCell(buf)
			got = append(got, c)
			_ = append(got[0].Key, 'x')
			_ = append(got[1%len(got)].Value, 'x')
		}
		for i, r := range rows {
			if want := r.Cell(); !reflect.DeepEqual(got[i], want) {
				t.Errorf("buffer of %d: row %d: AppendCell = %q %q, Cell = %q %q", size, i, got[i].Key, got[i].Value, want.Key, want.Value)
			}
		}
	}
}
