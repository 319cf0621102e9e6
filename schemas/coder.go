package schemas

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// The Beam coders of Record and Cell, registered here, where the types
// live, so that every pipeline that moves them through a shuffle (the
// sources' records, the sinks' cells) uses these and no other: plain
// length-prefixed fields, several times faster and smaller than Beam's
// reflective schema coder, and stable across runners because they depend
// on nothing but this file and element.go. (transforms registers
// TweetBatch's.)
func init() {
	beam.RegisterCoder(reflect.TypeOf(Record{}), encodeRecord, decodeRecord)
	beam.RegisterCoder(reflect.TypeOf(Cell{}), encodeCell, decodeCell)
}

func encodeRecord(r Record) []byte {
	e := ElementEncoder{B: make([]byte, 0, len(r.Data)+len(r.Origin.Source)+len(r.Fault)+16)}
	e.Str(r.Origin.Source)
	e.Varint(r.Origin.Line)
	e.Bytes(r.Data)
	e.Str(r.Fault)
	e.Varint(r.From)
	e.Varint(r.Start)
	var flags byte
	if r.Gap {
		flags |= 1
	}
	if r.Part != 0 {
		flags |= 2
	}
	e.Byte(flags)
	if r.Part != 0 {
		e.Varint(r.Part)
	}
	return e.B
}

func decodeRecord(p []byte) (Record, error) {
	d := NewElementDecoder(p)
	var r Record
	r.Origin.Source = d.Str()
	r.Origin.Line = d.Varint()
	r.Data = d.Bytes()
	r.Fault = d.Str()
	r.From = d.Varint()
	r.Start = d.Varint()
	flags := d.Byte()
	r.Gap = flags&1 != 0
	if flags&2 != 0 {
		r.Part = d.Varint()
	}
	return r, d.Err()
}

// cellDelete marks a delete cell in the table byte of its encoding (table
// bytes are ASCII letters).
const cellDelete = 0x80

func encodeCell(c Cell) []byte {
	e := ElementEncoder{B: make([]byte, 1, len(c.Key)+len(c.Value)+8)}
	e.B[0] = byte(c.Table)
	if c.Delete {
		e.B[0] |= cellDelete
	}
	e.Bytes(c.Key)
	e.Bytes(c.Value)
	return e.B
}

func decodeCell(p []byte) (Cell, error) {
	d := NewElementDecoder(p)
	t := d.Byte()
	c := Cell{Table: Table(t &^ cellDelete), Delete: t&cellDelete != 0}
	c.Key = d.Bytes()
	c.Value = d.Bytes()
	return c, d.Err()
}
