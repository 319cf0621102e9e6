package schemas

import (
	"encoding/binary"
	"errors"
)

// The fields of an element encoding, what the project's Beam coders write
// (Record and Cell here, transforms' TweetBatch and MinuteCounts): varints,
// fixed bytes, and byte strings prefixed with their length. Written by
// ElementEncoder and read back by ElementDecoder, in one place.

// ErrTruncatedElement is the error of decoding an element encoding that
// ends inside a field.
var ErrTruncatedElement = errors.New("schemas: truncated element encoding")

// ElementEncoder appends the fields of an element encoding to B. The zero
// value is ready; set B to a slice with room to spare to save growing it.
type ElementEncoder struct {
	// B is the encoding so far.
	B []byte
}

// Uvarint appends v as an unsigned varint.
func (e *ElementEncoder) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Varint appends v as a signed (zig-zag) varint.
func (e *ElementEncoder) Varint(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Byte appends c.
func (e *ElementEncoder) Byte(c byte) { e.B = append(e.B, c) }

// Fixed appends p as it is: the decoder must know its length.
func (e *ElementEncoder) Fixed(p []byte) { e.B = append(e.B, p...) }

// Bytes appends p prefixed with its length.
func (e *ElementEncoder) Bytes(p []byte) { e.Uvarint(uint64(len(p))); e.B = append(e.B, p...) }

// Str appends s prefixed with its length, as Bytes does.
func (e *ElementEncoder) Str(s string) { e.Uvarint(uint64(len(s))); e.B = append(e.B, s...) }

// ElementDecoder reads the fields of an element encoding in the order
// ElementEncoder wrote them. The first field that is short sets Err
// (ErrTruncatedElement), and every field read after it is empty, so that
// a decoder reads all fields and checks Err once.
type ElementDecoder struct {
	b   []byte
	err error
}

// NewElementDecoder returns a decoder of p. Bytes returns slices of p.
func NewElementDecoder(p []byte) ElementDecoder { return ElementDecoder{b: p} }

// Err returns the error of the first short field, if any.
func (d *ElementDecoder) Err() error { return d.err }

// Len returns how many bytes are left.
func (d *ElementDecoder) Len() int { return len(d.b) }

func (d *ElementDecoder) fail() {
	if d.err == nil {
		d.err = ErrTruncatedElement
	}
	d.b = nil
}

// Uvarint reads an unsigned varint.
func (d *ElementDecoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint.
func (d *ElementDecoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Byte reads one byte.
func (d *ElementDecoder) Byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Fixed fills p.
func (d *ElementDecoder) Fixed(p []byte) {
	if len(d.b) < len(p) {
		d.fail()
		return
	}
	copy(p, d.b)
	d.b = d.b[len(p):]
}

// Bytes reads a length-prefixed byte string: a slice of the encoding, with
// no room to append over what follows it.
func (d *ElementDecoder) Bytes() []byte {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)-k) {
		d.fail()
		return nil
	}
	p := d.b[k : k+int(n) : k+int(n)]
	d.b = d.b[k+int(n):]
	return p
}

// Str reads a length-prefixed string.
func (d *ElementDecoder) Str() string { return string(d.Bytes()) }

// Count reads the length of a list that follows: it fails (0) when the
// length is more than the bytes left, every item taking at least one, so
// that a damaged length never makes a decoder allocate more than the
// encoding's size.
func (d *ElementDecoder) Count() int {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}
