package schemas

import (
	"bytes"
	"encoding/json"
	"testing"
	"unsafe"
)

// FuzzDecode checks what must hold for any input: no panic, every record
// accounted for, and every tweet and reject well formed.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{v1Plain, v1Retweet, v1Archive, v2Page, benchTweet, `[` + v1Plain + `,` + v2Page + `]`,
		`window.YTD.tweets.part0 = [` + v1Archive + `]`, `{"statuses":[` + v1Plain + `]}`, `{"delete":{}}`, "", "[", "{", `{"data":[1]}`} {
		f.Add([]byte(s))
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
	})
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
