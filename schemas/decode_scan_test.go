package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestSkipValue(t *testing.T) {
	tests := []struct {
		in   string
		want int // end of the value at index 0, or -1
	}{
		{`"abc" x`, 5},
		{`"a\"b" x`, 6},
		{`"a\\" x`, 5},
		{`"a\\\"" x`, 7},
		{`"unterminated`, -1},
		{`"ends in escape\"`, -1},
		{`{"a":[1,{"b":"}"}]} x`, 19},
		{`[[],[[]]],`, 9},
		{`{"a":"b"`, -1},
		{`123.5e-3,`, 8},
		{`true}`, 4},
		{`null]`, 4},
		{`-7 `, 2},
		{`}`, -1},
		{`,`, -1},
		{``, -1},
	}
	for _, tt := range tests {
		if got := skipValue([]byte(tt.in), 0); got != tt.want {
			t.Errorf("skipValue(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestEachMember(t *testing.T) {
	doc := []byte(` { "a" : 1 , "b\"c" :{"x":[1,2]}, "d":"}" } `)
	var keys, values []string
	ok := eachMember(doc, 1, func(k []byte, v span) bool {
		keys = append(keys, string(k))
		values = append(values, string(doc[v.start:v.end]))
		return true
	})
	if !ok || fmt.Sprint(keys) != `[a b\"c d]` || fmt.Sprint(values) != `[1 {"x":[1,2]} "}"]` {
		t.Errorf("ok %v keys %q values %q", ok, keys, values)
	}
	for _, bad := range []string{`{"a" 1}`, `{"a":1 "b":2}`, `{a:1}`, `{"a":1,}`, `{"a":`, `[1]`} {
		if eachMember([]byte(bad), 0, func([]byte, span) bool { return true }) {
			t.Errorf("eachMember(%q) = true, want false", bad)
		}
	}
	if s, ok := memberSpan([]byte(`{"k":1,"k":22}`), 0, "k"); !ok || s != (span{11, 13}) {
		t.Errorf("memberSpan of a duplicate key = %v %v, want the last", s, ok)
	}
}

func TestKeyEqual(t *testing.T) {
	tests := []struct {
		raw, key string
		want     bool
	}{
		{`data`, "data", true},
		{`d\u0061ta`, "data", true},
		{`\u0064\u0061\u0074\u0061`, "data", true},
		{`dat`, "data", false},
		{`d\"ata`, `d"ata`, true},
		{`\ud83d\ude00`, "😀", true},
		{`\u00e9`, "é", true},
		{`\x`, "x", false},
		{`\u12`, "x", false},
	}
	for _, tt := range tests {
		if got := keyEqual([]byte(tt.raw), tt.key); got != tt.want {
			t.Errorf("keyEqual(%q, %q) = %v, want %v", tt.raw, tt.key, got, tt.want)
		}
	}
}

// TestElementSpansRandom checks the scanner against encoding/json on random
// documents: each span must hold exactly its element.
func TestElementSpansRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 500; n++ {
		elems := make([]any, r.IntN(6))
		for i := range elems {
			elems[i] = randomJSON(r, 3)
		}
		doc, err := json.MarshalIndent(elems, "  ", "\t")
		if err != nil {
			t.Fatal(err)
		}
		spans, ok := elementSpans(doc, 0, nil)
		if !ok || len(spans) != len(elems) {
			t.Fatalf("%s: ok %v, %d spans, want %d", doc, ok, len(spans), len(elems))
		}
		for i, s := range spans {
			want, _ := json.Marshal(elems[i])
			var got bytes.Buffer
			if err := json.Compact(&got, doc[s.start:s.end]); err != nil || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("element %d: span %q, want %s", i, doc[s.start:s.end], want)
			}
		}
	}
}

func randomJSON(r *rand.Rand, depth int) any {
	switch k := r.IntN(7); {
	case depth > 0 && k == 0:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomJSON(r, depth-1)
		}
		return a
	case depth > 0 && k == 1:
		m := map[string]any{}
		for i := r.IntN(4); i > 0; i-- {
			m[randomString(r)] = randomJSON(r, depth-1)
		}
		return m
	case k == 2:
		return r.NormFloat64() * 1e6
	case k == 3:
		return r.IntN(2) == 0
	case k == 4:
		return nil
	}
	return randomString(r)
}

func randomString(r *rand.Rand) string {
	const chars = `ab"\{}[],: é東🎉` + "\n\t\x01"
	rs := []rune(chars)
	b := make([]rune, r.IntN(8))
	for i := range b {
		b[i] = rs[r.IntN(len(rs))]
	}
	return string(b)
}
