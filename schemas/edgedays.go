package schemas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// EdgeDayRow is a row of EdgeDays, the per-day edge weights: on a UTC day,
// the number of stored tweets that make one edge (kind, source, target)
// of TweetEdges, that is the number of the edge's cells on that day. The
// count is absolute: the whole day's cells, recounted from the edge table
// whenever a run or a delete touches the day (never an increment), so
// rewriting it is idempotent.
//
// The key is the edge cell's key without the tweet: kind (1 B), day (2 B,
// big-endian days since 1970), source, NUL, target. A day of one kind is
// the same key range as in TweetEdges (EdgePrefix), in (source, target)
// order, and holds one row per distinct edge of the day, so a question
// over whole days reads as many rows as there are distinct edges, not
// tweets. The value is the count as a decimal string.
type EdgeDayRow struct {
	Type           EdgeType
	Day            uint16
	Source, Target string
	Tweets         int64
}

// Cell encodes the row.
func (r EdgeDayRow) Cell() Cell {
	k := make([]byte, 0, EdgePrefixLen+len(r.Source)+1+len(r.Target))
	k = append(k, EdgePrefix(r.Type, r.Day)...)
	k = append(append(k, r.Source...), 0)
	k = append(k, r.Target...)
	return Cell{Table: TableEdgeDays, Key: k, Value: strconv.AppendInt(nil, r.Tweets, 10)}
}

// EdgeDayKeyOf returns the EdgeDays key of the edge of a TweetEdges key:
// its first bytes, up to the target (not a copy); ok is false for a
// malformed key.
func EdgeDayKeyOf(edgeKey []byte) ([]byte, bool) {
	src, dst, _, ok := EdgeNodes(edgeKey)
	if !ok {
		return nil, false
	}
	return edgeKey[:EdgePrefixLen+len(src)+1+len(dst)], true
}

// EdgeDayNodes splits an EdgeDays key into its source and target, without
// copying; ok is false for a malformed key.
func EdgeDayNodes(key []byte) (source, target []byte, ok bool) {
	if len(key) < EdgePrefixLen {
		return nil, nil, false
	}
	rest := key[EdgePrefixLen:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 || bytes.IndexByte(rest[i+1:], 0) >= 0 {
		return nil, nil, false
	}
	return rest[:i], rest[i+1:], true
}

// DecodeEdgeDay decodes an EdgeDays cell.
func DecodeEdgeDay(key, value []byte) (EdgeDayRow, error) {
	src, dst, ok := EdgeDayNodes(key)
	if !ok {
		return EdgeDayRow{}, fmt.Errorf("edgedays key %q malformed", key)
	}
	t := EdgeType(key[0])
	if t == 0 || t >= numEdgeTypes {
		return EdgeDayRow{}, fmt.Errorf("edgedays key %q: unknown kind %d", key, key[0])
	}
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil {
		return EdgeDayRow{}, fmt.Errorf("edgedays count %q: %w", value, err)
	}
	return EdgeDayRow{Type: t, Day: binary.BigEndian.Uint16(key[1:3]), Source: string(src), Target: string(dst), Tweets: n}, nil
}

// EdgeDayMarkPrefix begins the metadata rows that mark the days whose
// EdgeDays rows are to be recounted (EdgeDayMark): written with the edge
// rows of the tweets a run stores (transforms.DerivedTables' marks), and
// for the days of the minutes marked for a recount (a stored tweet
// removed); each is recounted from the edge table, every kind, and its
// mark removed once the run's pipeline is done.
const EdgeDayMarkPrefix = "edgeday/"

// EdgeDayMark returns the metadata name of the mark of day d.
func EdgeDayMark(d uint16) string { return dayName(EdgeDayMarkPrefix, d) }

// ParseEdgeDayMark returns the day of a mark's name (EdgeDayMark).
func ParseEdgeDayMark(name string) (uint16, bool) { return parseDayName(EdgeDayMarkPrefix, name) }

// EdgeDaysParam is the metadata row saying that every day of the edge
// table has its EdgeDays rows: written when indexing began into an empty
// sink (as EdgesParam). A sink indexed before the table existed never
// gets it, and questions about edges read the edge cells of every day.
const EdgeDaysParam = "param/edgedays"

// EdgeDaysValue is the value of EdgeDaysParam.
var EdgeDaysValue = []byte(`{"complete":true}`)

type edgeDayDump struct {
	Type   string `json:"type"`
	Day    string `json:"day"`
	Source string `json:"source"`
	Target string `json:"target"`
	Tweets int64  `json:"tweets"`
}

func dumpEdgeDay(key, value []byte) (any, error) {
	r, err := DecodeEdgeDay(key, value)
	if err != nil {
		return nil, err
	}
	return edgeDayDump{Type: r.Type.Name(), Day: dayTime(r.Day).Format(time.DateOnly), Source: r.Source, Target: r.Target, Tweets: r.Tweets}, nil
}

// edgeDaysCQLValues returns the CQL values of an EdgeDays cell
// (TableSpec.CQLRow).
func edgeDaysCQLValues(dst []any, c Cell) ([]any, error) {
	r, err := DecodeEdgeDay(c.Key, c.Value)
	if err != nil {
		return dst, fmt.Errorf("edgedays cell: %w", err)
	}
	if err := canonical(r.Cell(), c); err != nil {
		return dst, fmt.Errorf("edgedays cell %q: %w", c.Key, err)
	}
	if !ValidEdgeNode(r.Source) || !ValidEdgeNode(r.Target) {
		return dst, fmt.Errorf("edgedays cell %q: source or target is not a valid name", c.Key)
	}
	return append(dst, r.Type.Name(), dayTime(r.Day), edgeDayBucket(r.Source, r.Target), r.Source, r.Target, r.Tweets), nil
}

// edgeDaysFromCQL returns the EdgeDays cell of a row's CQL values.
func edgeDaysFromCQL(values []any) (Cell, error) {
	var err error
	typ, ok := EdgeTypeByName(asString(values[0]))
	if !ok {
		err = fmt.Errorf("edge type %q unknown", asString(values[0]))
	}
	day := asTime(values[1]).Unix() / 86400
	if day < 0 || day > math.MaxUint16 {
		err = errors.Join(err, fmt.Errorf("day %d out of range", day))
	}
	return EdgeDayRow{Type: typ, Day: uint16(day), Source: asString(values[3]), Target: asString(values[4]), Tweets: asInt(values[5])}.Cell(), err
}

// EdgeDayBuckets is the number of partitions a day of one kind of EdgeDays
// is spread over on Cassandra: bucket = Murmur2(source, NUL, target) mod
// EdgeDayBuckets.
const EdgeDayBuckets = 16

// edgeDayBucket is the bucket of an edge's EdgeDays rows on Cassandra.
func edgeDayBucket(source, target string) int8 {
	k := make([]byte, 0, len(source)+1+len(target))
	k = append(append(append(k, source...), 0), target...)
	return int8(Murmur2(k) % EdgeDayBuckets)
}

// CQLEdgeDayPartition returns the partition of the EdgeDays rows of kind t
// on day d, bucket b (0 <= b < EdgeDayBuckets).
func CQLEdgeDayPartition(t EdgeType, d uint16, b int) []any {
	return []any{t.Name(), dayTime(d), int8(b)}
}

// edgeDaysCQLRange reads a range within one kind and day of edge weights
// (the first EdgePrefixLen key bytes, up to the first key of the next day
// for a whole day): the EdgeDayBuckets partitions of that kind and day,
// at once (TableSpec.CQLRange).
func edgeDaysCQLRange(start, end []byte) (CQLRange, error) {
	n := EdgePrefixLen
	if len(start) < n || len(end) < n || !bytes.Equal(start[:n], end[:n]) && !bytes.Equal(end, prefixEnd(start[:n])) {
		return CQLRange{}, errors.New("an edgedays range must lie in one kind and day")
	}
	typ, day := EdgeType(start[0]), binary.BigEndian.Uint16(start[1:3])
	reads := make([]CQLRead, EdgeDayBuckets)
	for b := range reads {
		reads[b] = CQLRead{Partition: CQLEdgeDayPartition(typ, day, b)}
	}
	return CQLRange{Steps: cqlSteps(reads...)}, nil
}
