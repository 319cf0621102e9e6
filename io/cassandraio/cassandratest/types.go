package cassandratest

import (
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/tweetindex/tweetindex/schemas"
)

// ctype is a column type as the [option] of section 4.2.5.2 encodes it.
type ctype struct {
	id    uint16
	elems []ctype // list and set: one; map: key and value
}

// Native and collection type ids of section 4.2.5.2 that the system tables
// use besides the schemas.CQLType ones.
const (
	idBoolean = 0x0004
	idDouble  = 0x0007
	idUUID    = 0x000C
	idInet    = 0x0010
	idList    = 0x0020
	idMap     = 0x0021
	idSet     = 0x0022
)

var (
	tText      = ctype{id: uint16(schemas.CQLText)}
	tInt       = ctype{id: uint16(schemas.CQLInt)}
	tBlob      = ctype{id: uint16(schemas.CQLBlob)}
	tBoolean   = ctype{id: idBoolean}
	tDouble    = ctype{id: idDouble}
	tTimestamp = ctype{id: uint16(schemas.CQLTimestamp)}
	tUUID      = ctype{id: idUUID}
	tInet      = ctype{id: idInet}
	tSetText   = ctype{id: idSet, elems: []ctype{tText}}
	tListTxt   = ctype{id: idList, elems: []ctype{tText}}
	tMapText   = ctype{id: idMap, elems: []ctype{tText, tText}}
	tMapUUID   = ctype{id: idMap, elems: []ctype{tUUID, tBlob}}
	tMapBlob   = ctype{id: idMap, elems: []ctype{tText, tBlob}}
)

func typeOf(t schemas.CQLType) ctype { return ctype{id: uint16(t)} }

func (t ctype) write(w *writer) {
	w.short(t.id)
	for _, e := range t.elems {
		e.write(w)
	}
}

// validate checks a bound value of a catalog column as Cassandra's type
// validation does.
func validate(t schemas.CQLType, v []byte) error {
	want := 0
	switch t {
	case schemas.CQLBigint, schemas.CQLTimestamp:
		want = 8
	case schemas.CQLInt, schemas.CQLDate, schemas.CQLFloat:
		want = 4
	case schemas.CQLSmallint:
		want = 2
	case schemas.CQLTinyint:
		want = 1
	case schemas.CQLText:
		if !utf8.Valid(v) {
			return fmt.Errorf("invalid UTF-8 bytes for %s", t)
		}
		return nil
	case schemas.CQLBlob:
		return nil
	default:
		return fmt.Errorf("unsupported type %s", t)
	}
	if len(v) != want {
		return fmt.Errorf("expected %d bytes for %s, got %d", want, t, len(v))
	}
	return nil
}

// appendOrdered appends an encoding of value v of type t whose byte order
// is the CQL order of the type, and which is self-delimiting, so that a
// concatenation of encoded columns sorts as the composite key does.
func appendOrdered(dst []byte, t schemas.CQLType, v []byte) []byte {
	switch t {
	case schemas.CQLBigint, schemas.CQLTimestamp, schemas.CQLInt, schemas.CQLSmallint, schemas.CQLTinyint:
		// Two's complement, big-endian: flipping the sign bit orders it.
		dst = append(dst, v[0]^0x80)
		return append(dst, v[1:]...)
	case schemas.CQLDate:
		return append(dst, v...) // unsigned days centered at 2^31
	case schemas.CQLFloat:
		bits := binary.BigEndian.Uint32(v)
		if bits&(1<<31) != 0 {
			bits = ^bits
		} else {
			bits |= 1 << 31
		}
		return binary.BigEndian.AppendUint32(dst, bits)
	}
	// blob and text order by their bytes: escape 0x00 as 00 ff, end with 00 01.
	for _, c := range v {
		if c == 0 {
			dst = append(dst, 0, 0xff)
		} else {
			dst = append(dst, c)
		}
	}
	return append(dst, 0, 1)
}

// decodeValue returns the Go value of a stored value, as schemas.CQLValues
// gives them.
func decodeValue(t schemas.CQLType, v []byte) any {
	switch t {
	case schemas.CQLBlob:
		return append([]byte{}, v...)
	case schemas.CQLText:
		return string(v)
	case schemas.CQLTinyint:
		return int8(v[0])
	case schemas.CQLSmallint:
		return int16(binary.BigEndian.Uint16(v))
	case schemas.CQLInt:
		return int32(binary.BigEndian.Uint32(v))
	case schemas.CQLBigint:
		return int64(binary.BigEndian.Uint64(v))
	case schemas.CQLFloat:
		return math.Float32frombits(binary.BigEndian.Uint32(v))
	case schemas.CQLTimestamp:
		return time.UnixMilli(int64(binary.BigEndian.Uint64(v))).UTC()
	case schemas.CQLDate:
		days := int64(binary.BigEndian.Uint32(v)) - 1<<31
		return time.Unix(days*86400, 0).UTC()
	}
	return nil
}

// encodeSystem serializes a Go value of a system table column.
func encodeSystem(v any) []byte {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(v)
	case int:
		return binary.BigEndian.AppendUint32(nil, uint32(int32(v)))
	case float64:
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v))
	case bool:
		if v {
			return []byte{1}
		}
		return []byte{0}
	case [16]byte:
		return v[:]
	case net.IP:
		if v4 := v.To4(); v4 != nil {
			return []byte(v4)
		}
		return []byte(v.To16())
	case []string:
		b := binary.BigEndian.AppendUint32(nil, uint32(len(v)))
		for _, s := range v {
			b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
			b = append(b, s...)
		}
		return b
	case map[string]string:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b := binary.BigEndian.AppendUint32(nil, uint32(len(keys)))
		for _, k := range keys {
			b = binary.BigEndian.AppendUint32(b, uint32(len(k)))
			b = append(b, k...)
			b = binary.BigEndian.AppendUint32(b, uint32(len(v[k])))
			b = append(b, v[k]...)
		}
		return b
	}
	panic(fmt.Sprintf("cassandratest: no encoding for system value %T", v))
}
