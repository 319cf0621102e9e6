package cassandratest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Frame layout of native_protocol_v4.spec, section 2: a 9-byte header
// (version, flags, stream, opcode, length) and a body.
const (
	headerLen     = 9
	protoVersion  = 4
	responseBit   = 0x80
	maxFrameBody  = 256 << 20 // section 2.5
	flagCompress  = 0x01
	flagTracing   = 0x02
	flagPayload   = 0x04
	flagWarning   = 0x08
	cqlVersion    = "3.4.5"
	partitionerID = "org.apache.cassandra.dht.Murmur3Partitioner"
)

// Opcodes (section 2.4).
const (
	opError        = 0x00
	opStartup      = 0x01
	opReady        = 0x02
	opAuthenticate = 0x03
	opOptions      = 0x05
	opSupported    = 0x06
	opQuery        = 0x07
	opResult       = 0x08
	opPrepare      = 0x09
	opExecute      = 0x0A
	opRegister     = 0x0B
	opEvent        = 0x0C
	opBatch        = 0x0D
	opAuthResponse = 0x0F
	opAuthSuccess  = 0x10
)

// Result kinds (section 4.2.5).
const (
	resultVoid         = 0x0001
	resultRows         = 0x0002
	resultSetKeyspace  = 0x0003
	resultPrepared     = 0x0004
	resultSchemaChange = 0x0005
)

// Query flags (section 4.1.4).
const (
	qfValues            = 0x01
	qfSkipMetadata      = 0x02
	qfPageSize          = 0x04
	qfPagingState       = 0x08
	qfSerialConsistency = 0x10
	qfDefaultTimestamp  = 0x20
	qfNamesForValues    = 0x40
)

// Rows metadata flags (section 4.2.5.2).
const (
	mfGlobalTableSpec = 0x0001
	mfHasMorePages    = 0x0002
	mfNoMetadata      = 0x0004
)

type header struct {
	version byte
	flags   byte
	stream  int16
	opcode  byte
	length  int
}

func readHeader(r io.Reader, buf []byte) (header, error) {
	if _, err := io.ReadFull(r, buf[:headerLen]); err != nil {
		return header{}, err
	}
	return header{
		version: buf[0],
		flags:   buf[1],
		stream:  int16(binary.BigEndian.Uint16(buf[2:4])),
		opcode:  buf[4],
		length:  int(int32(binary.BigEndian.Uint32(buf[5:9]))),
	}, nil
}

// errShort is returned when a body ends inside a value: a protocol error.
var errShort = errors.New("frame body too short")

// reader decodes the notations of section 3 from a frame body.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail(errShort)
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) byte() byte {
	p := r.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

func (r *reader) short() uint16 {
	p := r.take(2)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint16(p)
}

func (r *reader) int() int32 {
	p := r.take(4)
	if p == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

func (r *reader) long() int64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

func (r *reader) string() string { return string(r.take(int(r.short()))) }

func (r *reader) longString() string {
	n := r.int()
	if n < 0 {
		r.fail(fmt.Errorf("negative [long string] length %d", n))
		return ""
	}
	return string(r.take(int(n)))
}

func (r *reader) shortBytes() []byte { return r.take(int(r.short())) }

// bytes reads [bytes]; nil for null.
func (r *reader) bytes() []byte {
	n := r.int()
	if n < 0 {
		return nil
	}
	return r.take(int(n))
}

// value reads [value]: bytes, null (nil, false) or not set (nil, true).
func (r *reader) value() (v []byte, unset bool) {
	n := r.int()
	switch {
	case n >= 0:
		p := r.take(int(n))
		if p == nil {
			p = []byte{}
		}
		return p, false
	case n == -1:
		return nil, false
	case n == -2:
		return nil, true
	}
	r.fail(fmt.Errorf("invalid [value] length %d", n))
	return nil, false
}

func (r *reader) stringMap() map[string]string {
	n := int(r.short())
	m := make(map[string]string, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.string()
		m[k] = r.string()
	}
	return m
}

func (r *reader) stringList() []string {
	n := int(r.short())
	l := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		l = append(l, r.string())
	}
	return l
}

func (r *reader) bytesMap() {
	n := int(r.short())
	for i := 0; i < n && r.err == nil; i++ {
		r.string()
		r.bytes()
	}
}

// writer encodes a frame: header first, body after, length patched last.
type writer struct{ b []byte }

func newFrame(stream int16, opcode byte) *writer {
	w := &writer{b: make([]byte, headerLen, 256)}
	w.b[0] = responseBit | protoVersion
	binary.BigEndian.PutUint16(w.b[2:4], uint16(stream))
	w.b[4] = opcode
	return w
}

// finish sets the body length and returns the frame.
func (w *writer) finish() []byte {
	binary.BigEndian.PutUint32(w.b[5:9], uint32(len(w.b)-headerLen))
	return w.b
}

func (w *writer) byte(v byte)    { w.b = append(w.b, v) }
func (w *writer) short(v uint16) { w.b = binary.BigEndian.AppendUint16(w.b, v) }
func (w *writer) int(v int32)    { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }

func (w *writer) string(s string) {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	w.short(uint16(len(s)))
	w.b = append(w.b, s...)
}

func (w *writer) shortBytes(p []byte) {
	w.short(uint16(len(p)))
	w.b = append(w.b, p...)
}

// bytes writes [bytes]; nil is null.
func (w *writer) bytes(p []byte) {
	if p == nil {
		w.int(-1)
		return
	}
	w.int(int32(len(p)))
	w.b = append(w.b, p...)
}

func (w *writer) stringList(l []string) {
	w.short(uint16(len(l)))
	for _, s := range l {
		w.string(s)
	}
}

func (w *writer) stringMultimap(m map[string][]string, order []string) {
	w.short(uint16(len(order)))
	for _, k := range order {
		w.string(k)
		w.stringList(m[k])
	}
}
