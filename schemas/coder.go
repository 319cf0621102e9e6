package schemas

import (
	"encoding/binary"
	"errors"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// The Beam coders of Record and Cell, registered here, where the types
// live, so that every pipeline that moves them through a shuffle (the
// sources' records, the sinks' cells) uses these and no other: plain
// length-prefixed fields, several times faster and smaller than Beam's
// reflective schema coder, and stable across runners because they depend
// on nothing but this file. (transforms registers TweetBatch's.)
func init() {
	beam.RegisterCoder(reflect.TypeOf(Record{}), encodeRecord, decodeRecord)
	beam.RegisterCoder(reflect.TypeOf(Cell{}), encodeCell, decodeCell)
}

var errShortElement = errors.New("schemas: truncated element encoding")

func encodeRecord(r Record) []byte {
	b := make([]byte, 0, len(r.Data)+len(r.Origin.Source)+len(r.Fault)+16)
	b = appendBytes(b, []byte(r.Origin.Source))
	b = binary.AppendVarint(b, r.Origin.Line)
	b = appendBytes(b, r.Data)
	b = appendBytes(b, []byte(r.Fault))
	b = binary.AppendVarint(b, r.From)
	b = binary.AppendVarint(b, r.Start)
	if r.Gap {
		return append(b, 1)
	}
	return append(b, 0)
}

func decodeRecord(p []byte) (Record, error) {
	d := elementDecoder{b: p}
	var r Record
	r.Origin.Source = string(d.bytes())
	r.Origin.Line = d.varint()
	r.Data = d.bytes()
	r.Fault = string(d.bytes())
	r.From = d.varint()
	r.Start = d.varint()
	r.Gap = d.byte() == 1
	return r, d.err
}

// cellDelete marks a delete cell in the table byte of its encoding (table
// bytes are ASCII letters).
const cellDelete = 0x80

func encodeCell(c Cell) []byte {
	b := make([]byte, 1, len(c.Key)+len(c.Value)+8)
	b[0] = byte(c.Table)
	if c.Delete {
		b[0] |= cellDelete
	}
	b = appendBytes(b, c.Key)
	return appendBytes(b, c.Value)
}

func decodeCell(p []byte) (Cell, error) {
	if len(p) == 0 {
		return Cell{}, errShortElement
	}
	d := elementDecoder{b: p[1:]}
	c := Cell{Table: Table(p[0] &^ cellDelete), Key: d.bytes(), Value: d.bytes(), Delete: p[0]&cellDelete != 0}
	return c, d.err
}

func appendBytes(b, p []byte) []byte { return append(binary.AppendUvarint(b, uint64(len(p))), p...) }

// elementDecoder reads the fields of an encoding; the first that is short
// sets err, and every field after it is empty.
type elementDecoder struct {
	b   []byte
	err error
}

func (d *elementDecoder) fail() {
	if d.err == nil {
		d.err = errShortElement
	}
	d.b = nil
}

func (d *elementDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *elementDecoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *elementDecoder) bytes() []byte {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)-k) {
		d.fail()
		return nil
	}
	p := d.b[k : k+int(n) : k+int(n)]
	d.b = d.b[k+int(n):]
	return p
}
