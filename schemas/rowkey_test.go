package schemas_test

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestRowKeyLayout is the golden test of the 12-byte row key: 8-byte
// big-endian seconds, then the 4-byte big-endian Murmur2 of the JSON.
func TestRowKeyLayout(t *testing.T) {
	sec := time.Date(2018, 10, 10, 20, 19, 24, 0, time.UTC).Unix() // 0x5bbe5ecc
	tests := []struct {
		json string
		want string
	}{
		{"abc", "000000005bbe5ecc1c94221b"}, // murmur2("abc") = 479470107
		{"21", "000000005bbe5eccc5f2f8ec"},  // murmur2("21") = -973932308
	}
	for _, tt := range tests {
		k := schemas.NewRowKey(sec, []byte(tt.json))
		if got := hex.EncodeToString(k[:]); got != tt.want || k.String() != tt.want {
			t.Errorf("NewRowKey(%d, %q) = %s, want %s", sec, tt.json, got, tt.want)
		}
		if k.Seconds() != sec || !k.Time().Equal(time.Unix(sec, 0)) || k.Hash() != schemas.Murmur2([]byte(tt.json)) {
			t.Errorf("key %s decodes to %d %v %x", k, k.Seconds(), k.Time(), k.Hash())
		}
		back, err := schemas.RowKeyFromBytes(k[:])
		if err != nil || back != k {
			t.Errorf("RowKeyFromBytes(%s) = %s, %v", k, back, err)
		}
	}
	if _, err := schemas.RowKeyFromBytes(make([]byte, 11)); err == nil {
		t.Error("RowKeyFromBytes accepted 11 bytes")
	}
}

// TestRowKeyOrder checks that keys sort by time first, so a time range is a
// key range starting at RowKeyStart.
func TestRowKeyOrder(t *testing.T) {
	a := schemas.NewRowKey(100, []byte("zzzz"))
	b := schemas.NewRowKey(101, []byte("a"))
	if bytes.Compare(a[:], b[:]) >= 0 {
		t.Errorf("%s does not sort before %s", a, b)
	}
	start := schemas.RowKeyStart(101)
	if bytes.Compare(start[:], a[:]) <= 0 || bytes.Compare(start[:], b[:]) > 0 {
		t.Errorf("RowKeyStart(101) = %s is not between %s and %s", start, a, b)
	}
}

// TestRawEnd: every raw key of a row key (any id) lies in [k, k.RawEnd()),
// and the next row key's do not.
func TestRawEnd(t *testing.T) {
	k := schemas.RowKeyStart(100) // hash 0: the next row key adds 1
	end := k.RawEnd()
	for _, id := range []uint64{0, 1, 1 << 63, ^uint64(0)} {
		key := schemas.RawRow{Key: k, ID: id}.Cell().Key
		if bytes.Compare(key, k[:]) < 0 || bytes.Compare(key, end) >= 0 {
			t.Errorf("raw key of id %d (%x) outside [%x, %x)", id, key, k[:], end)
		}
	}
	next := k
	next[schemas.RowKeyLen-1]++
	if first := (schemas.RawRow{Key: next}).Cell().Key; bytes.Compare(first, end) < 0 {
		t.Errorf("the next row key's first raw key %x is before %x", first, end)
	}
}

// TestTweetKeyStable checks that a decoded tweet's key is the key of its
// stored bytes, on every decode.
func TestTweetKeyStable(t *testing.T) {
	line := []byte(`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1","text":"abc"}`)
	var d schemas.Decoder
	var keys []schemas.RowKey
	for i := 0; i < 2; i++ {
		var out schemas.Decoded
		d.Decode(schemas.Record{Data: line}, &out)
		keys = append(keys, out.Tweets[0].Key())
	}
	want := schemas.NewRowKey(1539202764, line)
	if keys[0] != want || keys[1] != want {
		t.Errorf("keys %v, want %v", keys, want)
	}
}
