package schemas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// The Go value of each CQL type, in bind values and in scanned rows:
//
//	blob      []byte (never nil: nil would bind null)
//	text      string (valid UTF-8)
//	tinyint   int8
//	smallint  int16
//	int       int32
//	bigint    int64
//	float     float32
//	timestamp time.Time (UTC, whole seconds here)
//	date      time.Time (UTC midnight)
//
// gocql marshals and unmarshals exactly these types.

// CQLValues appends to dst the insert bind values of cell c, one per column
// of its table (CQLTable.Columns order; the TTL is not included). It fails
// for a cell that its table's encoder would not produce byte for byte (so
// that reading it back through CellFromCQL always gives the same bytes), and
// for text that is not valid UTF-8, which Cassandra rejects.
func CQLValues(dst []any, c Cell) ([]any, error) {
	switch c.Table {
	case TableRaw:
		r, err := DecodeRaw(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("raw cell: %w", err)
		}
		return append(dst, minuteTime(r.Key.Seconds()), rawBucket(r.Key), c.Key[:RowKeyLen], int64(r.ID), nonNil(c.Value)), nil
	case TableAuthors:
		r, err := DecodeAuthor(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("authors cell: %w", err)
		}
		if err := canonical(r.Cell(), c); err != nil {
			return dst, fmt.Errorf("authors cell %x: %w", c.Key, err)
		}
		if !utf8.ValidString(r.Lang) || !utf8.ValidString(r.ScreenName) {
			return dst, fmt.Errorf("authors cell %x: language or screen name is not valid UTF-8", c.Key)
		}
		return append(dst, minuteTime(r.Key.Seconds()), rawBucket(r.Key), c.Key[:RowKeyLen], int64(r.ID), r.Lang, r.ScreenName), nil
	case TableEdges:
		r, err := DecodeEdge(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("edges cell: %w", err)
		}
		if !ValidEdgeNode(r.Source) || !ValidEdgeNode(r.Target) {
			return dst, fmt.Errorf("edges cell %q: source or target is not a valid name", c.Key)
		}
		return append(dst, r.Type.Name(), dayTime(Day(r.Key.Seconds())), rawBucket(r.Key), r.Source, r.Target, c.Key[len(c.Key)-RawKeyLen:len(c.Key)-8], int64(r.ID)), nil
	case TableTermDays:
		return termDayValues(dst, c)
	case TableIdentity:
		r, err := DecodeIdentity(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("identity cell: %w", err)
		}
		return append(dst, int64(r.ID), nonNil(c.Value)), nil
	case TableTerms:
		r, err := DecodeTerm(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("terms cell: %w", err)
		}
		if err := canonical(r.Cell(), c); err != nil {
			return dst, fmt.Errorf("terms cell %q: %w", c.Key, err)
		}
		if !utf8.ValidString(r.Field) {
			return dst, fmt.Errorf("terms cell %q: field is not valid UTF-8", c.Key)
		}
		sec := r.Key.Seconds()
		if !ValidDay(sec) {
			return dst, fmt.Errorf("terms cell %q: created_at %d outside the days a uint16 holds", c.Key, sec)
		}
		if r.Freq > math.MaxInt32 {
			return dst, fmt.Errorf("terms cell %q: frequency %d too large", c.Key, r.Freq)
		}
		if !utf8.ValidString(r.Term) {
			return dst, fmt.Errorf("terms cell %q: term is not valid UTF-8", c.Key)
		}
		return append(dst, r.Term, r.Field, dayTime(Day(sec)), int8(sec%86400/3600), c.Key[len(c.Key)-RowKeyLen:], int32(r.Freq)), nil
	case TableFrequency:
		r, err := DecodeFrequency(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("frequency cell: %w", err)
		}
		m, err := time.ParseInLocation(MinuteLayout, r.Minute, time.UTC)
		if err != nil || !ValidDay(m.Unix()) {
			return dst, fmt.Errorf("frequency cell %q: minute %q is not a valid YYYYMMDDhhmm", c.Key, r.Minute)
		}
		if err := canonical(FrequencyRow{Minute: m.Format(MinuteLayout), Lang: r.Lang, Count: r.Count}.Cell(), c); err != nil {
			return dst, fmt.Errorf("frequency cell %q: %w", c.Key, err)
		}
		if !utf8.ValidString(r.Lang) {
			return dst, fmt.Errorf("frequency cell %q: language is not valid UTF-8", c.Key)
		}
		return append(dst, dayTime(Day(m.Unix())), m, r.Lang, r.Count), nil
	case TableGeo:
		r, err := DecodeGeo(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("geo cell: %w", err)
		}
		h := r.Geo.Geohash()
		if !utf8.ValidString(h) {
			return dst, fmt.Errorf("geo cell %x: geohash is not valid UTF-8", c.Key)
		}
		return append(dst, int16(r.Geo.Spread()), dayTime(r.Geo.Day()), h, c.Key[GeoKeyLen:], r.Lat, r.Lon, int8(r.Kind)), nil
	case TableDeadLetter:
		r, err := DecodeDeadLetter(c.Key, c.Value)
		if err != nil {
			return dst, fmt.Errorf("dead-letter cell: %w", err)
		}
		if err := canonical(r.Cell(), c); err != nil {
			return dst, fmt.Errorf("dead-letter cell %q: %w", c.Key, err)
		}
		if r.Item > math.MaxInt32 {
			return dst, fmt.Errorf("dead-letter cell %q: item %d too large", c.Key, r.Item)
		}
		if !utf8.ValidString(r.Origin.Source) || !utf8.ValidString(r.Reason) {
			return dst, fmt.Errorf("dead-letter cell %q: source or reason is not valid UTF-8", c.Key)
		}
		return append(dst, r.Origin.Source, deadLetterChunk(r.Origin.Line), r.Origin.Line, int32(r.Item), r.Reason, nonNil(r.Raw)), nil
	case TableMeta:
		if !utf8.Valid(c.Key) || !utf8.Valid(c.Value) {
			return dst, fmt.Errorf("meta cell %q: name or value is not valid UTF-8", c.Key)
		}
		return append(dst, string(c.Key), string(c.Value)), nil
	}
	return dst, fmt.Errorf("cell of unknown table %q", byte(c.Table))
}

// CellFromCQL is the inverse of CQLValues: it rebuilds the cell from the
// values of one row of table t (Columns order, types as CQLValues gives
// them, as CQLRowScanner scans them). It checks that the partition and
// clustering columns the key determines hold what the key says.
func CellFromCQL(t *CQLTable, values []any) (Cell, error) {
	if len(values) != len(t.Columns()) {
		return Cell{}, fmt.Errorf("%s row has %d values, want %d", t.Name, len(values), len(t.Columns()))
	}
	var c Cell
	var err error
	switch t.Table {
	case TableRaw:
		k, kerr := RowKeyFromBytes(asBytes(values[2]))
		c, err = RawRow{Key: k, ID: uint64(asInt(values[3])), JSON: nonNil(asBytes(values[4]))}.Cell(), kerr
	case TableAuthors:
		k, kerr := RowKeyFromBytes(asBytes(values[2]))
		c, err = AuthorRow{Key: k, ID: uint64(asInt(values[3])), Lang: asString(values[4]), ScreenName: asString(values[5])}.Cell(), kerr
	case TableEdges:
		k, kerr := RowKeyFromBytes(asBytes(values[5]))
		typ, ok := EdgeTypeByName(asString(values[0]))
		if !ok {
			kerr = errors.Join(kerr, fmt.Errorf("edge type %q unknown", asString(values[0])))
		}
		c, err = EdgeRow{Type: typ, Source: asString(values[3]), Target: asString(values[4]), Key: k, ID: uint64(asInt(values[6]))}.Cell(), kerr
	case TableTermDays:
		day := asTime(values[0]).Unix() / 86400
		if day < 0 || day > math.MaxUint16 {
			err = fmt.Errorf("day %d out of range", day)
		}
		c = TermDayRow{Day: uint16(day), Field: asString(values[1]), Term: asString(values[3]), Lang: asString(values[4]), Tweets: asInt(values[5])}.Cell()
	case TableIdentity:
		c = Cell{Table: TableIdentity, Key: IdentityKey(uint64(asInt(values[0]))), Value: nonNil(asBytes(values[1]))}
	case TableTerms:
		k, kerr := RowKeyFromBytes(asBytes(values[4]))
		c, err = TermRow{Term: asString(values[0]), Field: asString(values[1]), Key: k, Freq: uint32(asInt(values[5]))}.Cell(), kerr
	case TableFrequency:
		c = FrequencyRow{Minute: asTime(values[1]).UTC().Format(MinuteLayout), Lang: asString(values[2]), Count: asInt(values[3])}.Cell()
	case TableGeo:
		k, kerr := RowKeyFromBytes(asBytes(values[3]))
		day := asTime(values[1]).Unix() / 86400
		if day < 0 || day > math.MaxUint16 {
			kerr = errors.Join(kerr, fmt.Errorf("day %d out of range", day))
		}
		spread := asInt(values[0])
		if spread < 0 || spread > math.MaxUint8 {
			kerr = errors.Join(kerr, fmt.Errorf("spread %d out of range", spread))
		}
		kind := asInt(values[6]) // null (a row written before the column) scans as 0: unknown
		if kind < 0 || kind > int64(PointCentre) {
			kerr = errors.Join(kerr, fmt.Errorf("point_kind %d out of range", kind))
		}
		c, err = GeoRow{Geo: NewGeoKey(uint8(spread), uint16(day), asString(values[2])), Key: k, Lat: asFloat(values[4]), Lon: asFloat(values[5]), Kind: PointKind(kind)}.Cell(), kerr
	case TableDeadLetter:
		item := asInt(values[3])
		if item < 0 || item > math.MaxInt32 {
			err = fmt.Errorf("item %d out of range", item)
		}
		c = DeadLetterRow{Origin: Origin{Source: asString(values[0]), Line: asInt(values[2])}, Item: uint32(item), Reason: asString(values[4]), Raw: nonNil(asBytes(values[5]))}.Cell()
	case TableMeta:
		c = Cell{Table: TableMeta, Key: []byte(asString(values[0])), Value: nonNil(asBytes(values[1]))} // a text column: an empty value reads as []byte{}
	default:
		return Cell{}, fmt.Errorf("unknown CQL table %q", t.Name)
	}
	if err != nil {
		return Cell{}, fmt.Errorf("%s row: %w", t.Name, err)
	}
	// The row must be what writing c gives: this checks the derived
	// partition columns (minute, bucket, day, hour, chunk) and every type.
	want, err := CQLValues(make([]any, 0, len(values)), c)
	if err != nil {
		return Cell{}, fmt.Errorf("%s row: %w", t.Name, err)
	}
	for i, v := range want {
		if !cqlValueEqual(v, values[i]) {
			return Cell{}, fmt.Errorf("%s row: column %s is %v, but the row's key gives %v", t.Name, t.Columns()[i].Name, values[i], v)
		}
	}
	return c, nil
}

// CQLKeyValues appends to dst the primary key values (partition key, then
// clustering columns) of the row that holds the cell with this key in
// table t: the binds of CQLSelectRow.
func CQLKeyValues(dst []any, t Table, key []byte) ([]any, error) {
	ct := CQLTableOf(t)
	if ct == nil {
		return dst, fmt.Errorf("unknown table %q", byte(t))
	}
	n := len(dst)
	dst, err := CQLValues(dst, Cell{Table: t, Key: key, Value: sampleValue(t)})
	if err != nil {
		return dst[:n], err
	}
	return dst[:n+ct.KeyColumns()], nil
}

// sampleValue returns a valid value of table t, so that the key alone can
// be mapped.
func sampleValue(t Table) []byte {
	if s := t.Spec(); s != nil {
		return s.cqlSampleValue
	}
	return nil
}

// AppendCQLPartition appends to dst a byte string that identifies the CQL
// partition of cell c: two cells have equal strings exactly when they are
// in the same partition of the same table. Sinks use it to group writes.
// values are c's CQLValues.
func AppendCQLPartition(dst []byte, c Cell, values []any) []byte {
	ct := CQLTableOf(c.Table)
	dst = append(dst, byte(c.Table))
	for _, v := range values[:len(ct.PartitionKey)] {
		switch v := v.(type) {
		case []byte:
			dst = binary.AppendUvarint(dst, uint64(len(v)))
			dst = append(dst, v...)
		case string:
			dst = binary.AppendUvarint(dst, uint64(len(v)))
			dst = append(dst, v...)
		case int8:
			dst = append(dst, byte(v))
		case int16:
			dst = binary.BigEndian.AppendUint16(dst, uint16(v))
		case int64:
			dst = binary.BigEndian.AppendUint64(dst, uint64(v))
		case time.Time:
			dst = binary.BigEndian.AppendUint64(dst, uint64(v.UnixMilli()))
		}
	}
	return dst
}

// CQLRowScanner scans rows of one table through a driver's Scan(dest...)
// and turns each into its cell.
type CQLRowScanner struct {
	table  *CQLTable
	dest   []any
	values []any
}

// NewCQLRowScanner returns a scanner for rows of all columns of t.
func NewCQLRowScanner(t *CQLTable) *CQLRowScanner {
	s := &CQLRowScanner{table: t, values: make([]any, len(t.Columns()))}
	for _, c := range t.Columns() {
		s.dest = append(s.dest, newCQLTarget(c.Type))
	}
	return s
}

// Dest returns the scan targets: pointers to the Go values of the column
// types. Pass them to the driver's Scan.
func (s *CQLRowScanner) Dest() []any { return s.dest }

// Cell returns the cell of the row last scanned into Dest.
func (s *CQLRowScanner) Cell() (Cell, error) {
	for i, d := range s.dest {
		switch d := d.(type) {
		case *[]byte:
			// The driver may scan the next row into the same slice:
			// hand this one over and start the next from nil.
			s.values[i] = *d
			*d = nil
		case *string:
			s.values[i] = *d
		case *int8:
			s.values[i] = *d
		case *int16:
			s.values[i] = *d
		case *int32:
			s.values[i] = *d
		case *int64:
			s.values[i] = *d
		case *float32:
			s.values[i] = *d
		case *time.Time:
			s.values[i] = *d
		}
	}
	return CellFromCQL(s.table, s.values)
}

func newCQLTarget(t CQLType) any {
	switch t {
	case CQLBlob:
		return new([]byte)
	case CQLText:
		return new(string)
	case CQLTinyint:
		return new(int8)
	case CQLSmallint:
		return new(int16)
	case CQLInt:
		return new(int32)
	case CQLBigint:
		return new(int64)
	case CQLFloat:
		return new(float32)
	case CQLTimestamp, CQLDate:
		return new(time.Time)
	}
	panic("schemas: no Go type for " + t.String())
}

func minuteTime(sec int64) time.Time { return time.Unix(floorDiv(sec, 60)*60, 0).UTC() }

func dayTime(d uint16) time.Time { return time.Unix(DayStart(d), 0).UTC() }

func rawBucket(k RowKey) int8 { return int8(Murmur2(k[:]) % RawBuckets) }

func deadLetterChunk(line int64) int64 { return floorDiv(line, DeadLetterChunk) }

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func canonical(want, got Cell) error {
	if !bytes.Equal(want.Key, got.Key) || !bytes.Equal(want.Value, got.Value) {
		return errors.New("not in the canonical encoding of its table")
	}
	return nil
}

func asBytes(v any) []byte {
	switch v := v.(type) {
	case []byte:
		return v
	case string:
		return []byte(v)
	}
	return nil
}

func asString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

func asInt(v any) int64 {
	switch v := v.(type) {
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case int64:
		return v
	case int:
		return int64(v)
	}
	return 0
}

func asFloat(v any) float32 {
	f, _ := v.(float32)
	return f
}

func asTime(v any) time.Time {
	t, _ := v.(time.Time)
	return t
}

func cqlValueEqual(a, b any) bool {
	switch a := a.(type) {
	case []byte:
		bb, ok := b.([]byte)
		return ok && bytes.Equal(a, bb)
	case time.Time:
		bt, ok := b.(time.Time)
		return ok && a.Equal(bt)
	case float32:
		bf, ok := b.(float32)
		return ok && math.Float32bits(a) == math.Float32bits(bf)
	}
	return a == b
}
