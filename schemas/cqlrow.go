package schemas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
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

// CQLRow maps the cells of one table to and from the rows of its CQL
// table (TableSpec.CQLRow): which column holds which part of a cell.
type CQLRow struct {
	// Values appends to dst the insert bind values of cell c, a cell of
	// the table, one per column (CQLValues).
	Values func(dst []any, c Cell) ([]any, error)
	// Cell rebuilds the cell of a row from its values, one per column
	// (CellFromCQL, which counts them before and checks after that the
	// cell's values are the row's).
	Cell func(values []any) (Cell, error)
}

// CQLValues appends to dst the insert bind values of cell c, one per column
// of its table (CQLTable.Columns order; the TTL is not included): its
// table's CQLRow.Values. It fails for a cell that its table's encoder would
// not produce byte for byte (so that reading it back through CellFromCQL
// always gives the same bytes), and for text that is not valid UTF-8,
// which Cassandra rejects.
func CQLValues(dst []any, c Cell) ([]any, error) {
	s := c.Table.Spec()
	if s == nil || s.CQLRow.Values == nil {
		return dst, fmt.Errorf("cell of unknown table %q", byte(c.Table))
	}
	return s.CQLRow.Values(dst, c)
}

// CellFromCQL is the inverse of CQLValues: it rebuilds the cell from the
// values of one row of table t (Columns order, types as CQLValues gives
// them, as CQLRowScanner scans them), with its table's CQLRow.Cell. It
// checks that the partition and clustering columns the key determines hold
// what the key says.
func CellFromCQL(t *CQLTable, values []any) (Cell, error) {
	if len(values) != len(t.Columns()) {
		return Cell{}, fmt.Errorf("%s row has %d values, want %d", t.Name, len(values), len(t.Columns()))
	}
	s := t.Table.Spec()
	if s == nil || s.CQLRow.Cell == nil {
		return Cell{}, fmt.Errorf("unknown CQL table %q", t.Name)
	}
	c, err := s.CQLRow.Cell(values)
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
