package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// FuzzDecode checks what must hold for any input: no panic, every record
// accounted for, every tweet and reject well formed, and the cells built
// from them (raw, frequency, geo, dead letter: the ones schemas builds)
// decoding back to what was built and mapping to CQL values (so that no
// key exceeds what Cassandra takes). Seeds: the cases below and the first
// lines of the committed sample. Run at length with make fuzz.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{v1Plain, v1Retweet, v1Archive, v2Page, benchTweet, `[` + v1Plain + `,` + v2Page + `]`,
		`window.YTD.tweets.part0 = [` + v1Archive + `]`, `{"statuses":[` + v1Plain + `]}`, `{"delete":{}}`, "", "[", "{", `{"data":[1]}`,
		`[1,2,3]`, `{"data":[1,{"id":"9"},"s"],"includes":{}}`,
		`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1","lang":"` + strings.Repeat("x", 100) + `"}`,
		`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1","place":{"bounding_box":{"coordinates":[[[177,-21],[177,-12],[-178,-12],[-178,-21]]]}}}`} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"v1-stream-12a.jsonl", "v2-twarc2-pages.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "sample", name))
		if err != nil {
			f.Fatal(err)
		}
		for i, line := range bytes.SplitN(data, []byte{'\n'}, 4) {
			if i < 3 {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Decoder
		var out Decoded
		d.Decode(Record{Origin: Origin{Source: "f", Line: 1}, Data: data}, &out)
		if len(out.Tweets)+out.Controls+len(out.Rejects) == 0 {
			t.Fatalf("%q: nothing accounted for", data)
		}
		lines := int64(bytes.Count(data, []byte{'\n'}))
		for _, tw := range out.Tweets {
			if tw.ID == 0 || !ValidDay(tw.CreatedAt) || tw.Lang == "" {
				t.Fatalf("%q: bad tweet %+v", data, tw)
			}
			if tw.HasPoint && !ValidPoint(tw.Lat, tw.Lon) {
				t.Fatalf("%q: impossible point %v,%v", data, tw.Lat, tw.Lon)
			}
			if tw.Origin.Line < 1 || tw.Origin.Line > 1+lines {
				t.Fatalf("%q: origin %v", data, tw.Origin)
			}
			if len(tw.JSON) == 0 {
				t.Fatalf("%q: empty JSON", data)
			}
			if !within(tw.JSON, data) && !json.Valid(tw.JSON) && json.Valid(data) {
				t.Fatalf("%q: built document %q is not JSON", data, tw.JSON)
			}
			if sec, ok := EventTime(tw.JSON); within(tw.JSON, data) && ok && sec != tw.CreatedAt && json.Valid(tw.JSON) {
				t.Fatalf("%q: EventTime %d, decoded %d", tw.JSON, sec, tw.CreatedAt)
			}
		}
		for _, r := range out.Rejects {
			if r.Reason == "" || !within(r.Raw, data) || r.Origin.Line < 1 || r.Origin.Line > 1+lines {
				t.Fatalf("%q: bad reject %+v", data, r)
			}
		}
		checkCells(t, data, &out)
	})
}

// checkCells builds the cells schemas defines from out and checks that
// each decodes back to its row and maps to CQL values.
func checkCells(t *testing.T, data []byte, out *Decoded) {
	t.Helper()
	var cells []Cell
	for i := range out.Tweets {
		tw := &out.Tweets[i]
		if len(tw.Lang) > MaxLangLen {
			t.Fatalf("%q: lang %q longer than %d bytes", data, tw.Lang, MaxLangLen)
		}
		k := tw.Key()
		raw := RawRow{Key: k, JSON: tw.JSON}
		freq := FrequencyRow{Minute: Minute(tw.CreatedAt), Lang: tw.Lang, Count: 1}
		cells = append(cells, raw.Cell(), freq.Cell())
		if got, err := DecodeRaw(raw.Cell().Key, raw.Cell().Value); err != nil || got.Key != k || !bytes.Equal(got.JSON, tw.JSON) {
			t.Fatalf("%q: raw cell decodes to %+v, %v", data, got, err)
		}
		if got, err := DecodeFrequency(freq.Cell().Key, freq.Cell().Value); err != nil || got != freq {
			t.Fatalf("%q: frequency cell decodes to %+v, %v; built %+v", data, got, err, freq)
		}
		if tw.HasPoint {
			geo := GeoRow{Geo: NewGeoKey(Spread(k.Hash()), Day(tw.CreatedAt), Geohash(tw.Lat, tw.Lon)), Key: k, Lat: float32(tw.Lat), Lon: float32(tw.Lon)}
			if got, err := DecodeGeo(geo.Cell().Key, geo.Cell().Value); err != nil || got != geo {
				t.Fatalf("%q: geo cell decodes to %+v, %v; built %+v", data, got, err, geo)
			}
			cells = append(cells, geo.Cell())
		}
	}
	items := map[Origin]uint32{}
	keys := map[string]bool{}
	for _, r := range out.Rejects {
		dl := DeadLetterRow{Origin: r.Origin, Item: items[r.Origin], Reason: r.Reason, Raw: r.Raw}
		items[r.Origin]++
		c := dl.Cell()
		if keys[string(c.Key)] {
			t.Fatalf("%q: two dead letters with key %q", data, c.Key)
		}
		keys[string(c.Key)] = true
		got, err := DecodeDeadLetter(c.Key, c.Value)
		want := dl // the cell's text is valid UTF-8 (a CQL text column)
		want.Origin.Source, want.Reason = validText(dl.Origin.Source), validText(dl.Reason)
		if err != nil || got.Origin != want.Origin || got.Item != want.Item || got.Reason != want.Reason || !bytes.Equal(got.Raw, want.Raw) {
			t.Fatalf("%q: dead-letter cell decodes to %+v, %v; built %+v", data, got, err, dl)
		}
		cells = append(cells, c)
	}
	for _, c := range cells {
		if _, err := CQLValues(nil, c); err != nil {
			t.Fatalf("%q: %s cell has no CQL values: %v", data, c.Table.Name(), err)
		}
	}
}

// within reports whether b is a slice of data's memory.
func within(b, data []byte) bool {
	if len(b) == 0 {
		return true
	}
	if len(data) == 0 {
		return false
	}
	p, lo, hi := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(data))), uintptr(unsafe.Pointer(unsafe.SliceData(data)))+uintptr(len(data))
	return p >= lo && p+uintptr(len(b)) <= hi
}
