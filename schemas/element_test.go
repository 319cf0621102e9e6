package schemas

import (
	"bytes"
	"errors"
	"testing"
)

// TestElementRoundTrip writes every kind of field and reads it back; every
// truncation of the encoding is ErrTruncatedElement.
func TestElementRoundTrip(t *testing.T) {
	var e ElementEncoder
	e.Uvarint(1 << 40)
	e.Varint(-7)
	e.Byte(0x80)
	e.Fixed([]byte{1, 2, 3})
	e.Bytes([]byte("key"))
	e.Str("")
	e.Uvarint(2) // a count of the two bytes that follow
	e.Fixed([]byte{9, 9})
	read := func(p []byte) (ElementDecoder, bool) {
		d := NewElementDecoder(p)
		var fixed [3]byte
		u, v, c := d.Uvarint(), d.Varint(), d.Byte()
		d.Fixed(fixed[:])
		b, s, n := d.Bytes(), d.Str(), d.Count()
		d.Fixed(make([]byte, n))
		return d, u == 1<<40 && v == -7 && c == 0x80 && fixed == [3]byte{1, 2, 3} && bytes.Equal(b, []byte("key")) && s == "" && n == 2
	}
	if d, ok := read(e.B); !ok || d.Err() != nil || d.Len() != 0 {
		t.Fatalf("round trip: ok %v, err %v, %d bytes left", ok, d.Err(), d.Len())
	}
	for n := range len(e.B) {
		if d, _ := read(e.B[:n]); !errors.Is(d.Err(), ErrTruncatedElement) {
			t.Errorf("%d of %d bytes: err %v, want ErrTruncatedElement", n, len(e.B), d.Err())
		}
	}
}

// TestElementCountBounded: a count larger than the bytes left is an error,
// not an allocation.
func TestElementCountBounded(t *testing.T) {
	var e ElementEncoder
	e.Uvarint(1 << 50)
	e.Byte(0)
	d := NewElementDecoder(e.B)
	if n := d.Count(); n != 0 || !errors.Is(d.Err(), ErrTruncatedElement) {
		t.Errorf("Count = %d, %v; want 0, ErrTruncatedElement", n, d.Err())
	}
	if b := d.Bytes(); b != nil {
		t.Errorf("a field after the error: %q, want empty", b)
	}
}
