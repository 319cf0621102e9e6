package schemas

import (
	"encoding/binary"
	"errors"
)

// TableAck is not a stored table: a cell of it is an acknowledgement (Ack)
// riding with the cells of a sink's batch. A sink that is asked to
// acknowledge (storeio.WriteAcked, cassandraio.WriteAcked) writes the other
// cells of the batch and, once they are durable, hands the acknowledgements
// on; no sink ever stores one.
const TableAck Table = 'a'

// Ack is an acknowledgement of work done for one record of a Kafka
// partition: a read that commits offsets commits an offset only once every
// record before it is acknowledged in full (kafkaio.CommitAcked).
//
// The parse stage sends one expectation per record (Expect set): the units
// of work the record needs (UnitsPerTweet for each tweet and each delete it
// holds, one for each dead letter or notice row, none for a record that is
// skipped), the offsets it accounts for, [From, Offset+1), and the offset
// the read began at (Start). Every other Ack reports Done units: a table's
// sink, once it has written a tweet's cells, reports one; a stage that
// drops a tweet (a duplicate, a deleted tweet) passes its units on to be
// reported, so that they are reported once the sinks have written what the
// batch carries. A record is finished when the units done reach the units
// expected.
type Ack struct {
	// Source names the partition, "kafka:TOPIC/PARTITION" (Origin.Source).
	Source string
	// Offset is the record's offset (Origin.Line).
	Offset int64
	// Done is the units of work done.
	Done int32

	// Expect, From and Start are set on the record's expectation only.
	Expect      bool
	Units       int32 // the units the record needs
	From, Start int64 // see Record.From and Record.Start
}

// UnitsPerTweet is the units of work of a tweet (or a delete): one for each
// of the tables whose sink acknowledges it, the tables derived from stored
// tweets that are not written beside the raw cell: raw (with identity and
// authors) and each of transforms.DerivedTables (terms, geo, edges), a step
// of the graph each. (Frequency counts are rebuilt from the raw rows after
// a crash: see transforms.RawFn.MarkCounting.)
var UnitsPerTweet = func() int32 {
	var n int32
	for _, s := range registry {
		if s.Derived && !s.BesideRaw {
			n++
		}
	}
	return n
}()

// Cell encodes the acknowledgement as a TableAck cell.
func (a Ack) Cell() Cell {
	v := make([]byte, 0, 32)
	v = binary.AppendVarint(v, a.Offset)
	v = binary.AppendVarint(v, int64(a.Done))
	if a.Expect {
		v = binary.AppendVarint(v, int64(a.Units))
		v = binary.AppendVarint(v, a.From)
		v = binary.AppendVarint(v, a.Start)
	}
	return Cell{Table: TableAck, Key: []byte(a.Source), Value: v}
}

var errAck = errors.New("schemas: malformed acknowledgement")

// DecodeAck decodes a TableAck cell.
func DecodeAck(c Cell) (Ack, error) {
	a := Ack{Source: string(c.Key)}
	v := c.Value
	var vals [5]int64
	n := 0
	for len(v) > 0 && n < len(vals) {
		x, k := binary.Varint(v)
		if k <= 0 {
			return Ack{}, errAck
		}
		vals[n], v, n = x, v[k:], n+1
	}
	switch n {
	case 2:
	case 5:
		a.Expect, a.Units, a.From, a.Start = true, int32(vals[2]), vals[3], vals[4]
	default:
		return Ack{}, errAck
	}
	if c.Table != TableAck || len(v) > 0 {
		return Ack{}, errAck
	}
	a.Offset, a.Done = vals[0], int32(vals[1])
	return a, nil
}

// AppendAckCells appends to dst the acknowledgement of done units for
// every tweet of ts (one per origin, however many of its tweets ts holds).
func AppendAckCells(dst []Cell, ts []Tweet, done int32) []Cell {
	for i := range ts {
		o := ts[i].Origin
		dst = append(dst, Ack{Source: o.Source, Offset: o.Line, Done: done}.Cell())
	}
	return dst
}

// AckSet gathers acknowledgements by source and offset, summing the units
// done: what a sink hands on after a bundle.
type AckSet map[string]map[int64]*Ack

// Add adds a to the set.
func (s AckSet) Add(a Ack) {
	m := s[a.Source]
	if m == nil {
		m = map[int64]*Ack{}
		s[a.Source] = m
	}
	old := m[a.Offset]
	if old == nil {
		m[a.Offset] = &a
		return
	}
	old.Done += a.Done
	if a.Expect {
		old.Expect, old.Units, old.From, old.Start = true, a.Units, a.From, a.Start
	}
}

// Encode calls fn with each source of the set and its acknowledgements,
// encoded for DecodeAcks, and empties the set.
func (s AckSet) Encode(fn func(source string, data []byte)) {
	for src, m := range s {
		var data []byte
		for _, a := range m {
			v := a.Cell().Value
			data = binary.AppendUvarint(data, uint64(len(v)))
			data = append(data, v...)
		}
		fn(src, data)
		delete(s, src)
	}
}

// Release ends a sink's bundle whose writes returned err: if err is nil
// (the writes are durable) it hands the set's acknowledgements on with
// Encode; otherwise it drops them, for the records to be read again, and
// returns err. Both sinks' WriteAcked end their bundles with it.
func (s AckSet) Release(err error, fn func(source string, data []byte)) error {
	if err != nil {
		clear(s)
		return err
	}
	s.Encode(fn)
	return nil
}

// DecodeAcks calls fn with each acknowledgement of data, as AckSet.Encode
// encoded them for source.
func DecodeAcks(source string, data []byte, fn func(Ack)) error {
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || n > uint64(len(data)-k) {
			return errAck
		}
		a, err := DecodeAck(Cell{Table: TableAck, Key: []byte(source), Value: data[k : k+int(n)]})
		if err != nil {
			return err
		}
		fn(a)
		data = data[k+int(n):]
	}
	return nil
}

// SplitAcks moves the acknowledgements among cells into set and returns
// the other cells (cells itself when it holds none).
func SplitAcks(cells []Cell, set AckSet) ([]Cell, error) {
	i := 0
	for i < len(cells) && cells[i].Table != TableAck {
		i++
	}
	if i == len(cells) {
		return cells, nil
	}
	rest := make([]Cell, i, len(cells))
	copy(rest, cells[:i])
	for _, c := range cells[i:] {
		if c.Table != TableAck {
			rest = append(rest, c)
			continue
		}
		a, err := DecodeAck(c)
		if err != nil {
			return nil, err
		}
		set.Add(a)
	}
	return rest, nil
}
