package schemas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// The CQL partitions that hold a range of a table's keys: what a reader of
// a Cassandra keyspace walks to read a key range of the embedded store's
// layout. Each partition function returns the values of the partition key
// columns (CQLTable.PartitionKey order, CQLValues's Go types), the binds
// of a CQLSelectPartition or CQLSelectSlice; each range function is a
// table's TableSpec.CQLRange (cqlrange.go).
//
//	raw tweets   RawBuckets partitions a minute   CQLRawPartition(minute, bucket)
//	authors      as raw tweets                     CQLRawPartition(minute, bucket)
//	terms        one partition a term, field, hour CQLTermPartition(term, field, hour)
//	frequency    one partition a day               CQLFrequencyPartition(day)
//	geotemporal  one partition a spread and day    CQLGeoPartition(spread, day)
//	edges        RawBuckets partitions a kind and day CQLEdgePartition(kind, day, bucket), edges.go
//	termdays     TermDayBuckets partitions a day and field CQLTermDayPartition(day, field, bucket), termdays.go
//	edgedays     EdgeDayBuckets partitions a kind and day CQLEdgeDayPartition(kind, day, bucket), edgedays.go

// CQLRawPartition returns the partition of raw tweets created in the
// minute that holds Unix second sec, bucket b (0 <= b < RawBuckets): also
// the partition of their TweetAuthors rows, partitioned alike.
func CQLRawPartition(sec int64, b int) []any { return []any{minuteTime(sec), int8(b)} }

// CQLTermPartition returns the partition of term in field for the hour
// that holds Unix second sec.
func CQLTermPartition(term, field string, sec int64) []any {
	return []any{term, field, dayTime(Day(sec)), int8(floorDiv(sec, 3600) % 24)}
}

// CQLFrequencyPartition returns the partition of the frequency rows of
// day d (days since 1970).
func CQLFrequencyPartition(d uint16) []any { return []any{dayTime(d)} }

// CQLGeoPartition returns the partition of the geotemporal rows of a
// spread value and day.
func CQLGeoPartition(spread uint8, d uint16) []any { return []any{int16(spread), dayTime(d)} }

// rawCQLRange reads a range of raw tweets: start and end begin with 8-byte
// times (row keys), and the range is the minutes between (minutesCQLRange),
// or, when it lies within the tweets of one row key, a slice of the one
// partition that holds them.
func rawCQLRange(start, end []byte) (CQLRange, error) {
	if !oneRowKey(start, end) {
		return minutesCQLRange(start, end)
	}
	k := bytes.Clone(start[:RowKeyLen])
	sec := int64(binary.BigEndian.Uint64(k))
	pk := CQLRawPartition(sec, int(Murmur2(k)%RawBuckets))
	// The slice of the clustering column row_key (the id follows it): k,
	// up to the row key after it.
	return CQLRange{Steps: cqlSteps(CQLRead{Partition: pk, Slice: true, Lo: k, Hi: append(bytes.Clone(k), 0)}), Ordered: true}, nil
}

// oneRowKey reports whether the raw range [start, end) lies within the
// tweets of one row key: start's first RowKeyLen bytes.
func oneRowKey(start, end []byte) bool {
	if len(start) < RowKeyLen || len(end) == 0 {
		return false
	}
	next := bytes.Clone(start[:RowKeyLen])
	for i := len(next) - 1; i >= 0; i-- {
		if next[i]++; next[i] != 0 {
			return bytes.Compare(end, next) <= 0
		}
	}
	return true // the last row key: every key after start has its prefix
}

// rawLookahead is how many minutes of raw partitions a reader reads ahead
// of the one it passes on, each minute's RawBuckets partitions at once.
const rawLookahead = 8

// minutesCQLRange reads a time range of the tables partitioned by minute
// and bucket (CQLRawPartition: raw tweets and authors), start and end row
// keys or their 8-byte time prefixes: the RawBuckets partitions of each
// minute, a minute a step, rawLookahead minutes ahead.
func minutesCQLRange(start, end []byte) (CQLRange, error) {
	from, to, err := timeBounds(start, end)
	if err != nil {
		return CQLRange{}, err
	}
	steps := func(yield func([]CQLRead) bool) {
		for m := floorDiv(from, 60) * 60; m < to; m += 60 {
			reads := make([]CQLRead, RawBuckets)
			for b := range reads {
				reads[b] = CQLRead{Partition: CQLRawPartition(m, b)}
			}
			if !yield(reads) {
				return
			}
		}
	}
	return CQLRange{Steps: steps, Lookahead: rawLookahead}, nil
}

// termsCQLRange reads a range within one term and field (TermPrefix),
// times as for raw tweets: the partition of each hour, in time order.
func termsCQLRange(start, end []byte) (CQLRange, error) {
	term, field, prefix, ok := termPrefix(start)
	if !ok || !bytes.HasPrefix(end, prefix) {
		return CQLRange{}, errors.New("a term range must lie in one term and field")
	}
	from, to, err := timeBounds(start[len(prefix):], end[len(prefix):])
	if err != nil {
		return CQLRange{}, err
	}
	from = max(from, 0) // no term rows before 1970 (ValidDay)
	steps := func(yield func([]CQLRead) bool) {
		for h := floorDiv(from, 3600) * 3600; h < to; h += 3600 {
			if !yield([]CQLRead{{Partition: CQLTermPartition(term, field, h)}}) {
				return
			}
		}
	}
	return CQLRange{Steps: steps, Ordered: true}, nil
}

// termPrefix splits a term key (or key prefix) term\0field\0... into its
// term, field and prefix term\0field\0.
func termPrefix(key []byte) (term, field string, prefix []byte, ok bool) {
	i := bytes.IndexByte(key, 0)
	if i < 0 {
		return "", "", nil, false
	}
	j := bytes.IndexByte(key[i+1:], 0)
	if j < 0 {
		return "", "", nil, false
	}
	n := i + 1 + j + 1
	return string(key[:i]), string(key[i+1 : n-1]), key[:n], true
}

// frequencyCQLRange reads a range bounded by YYYYMMDDhhmm minutes: a slice
// of each day's partition, a day a step.
func frequencyCQLRange(start, end []byte) (CQLRange, error) {
	from, err1 := time.Parse(MinuteLayout, string(start[:min(len(start), len(MinuteLayout))]))
	to, err2 := time.Parse(MinuteLayout, string(end[:min(len(end), len(MinuteLayout))]))
	if err1 != nil || err2 != nil {
		return CQLRange{}, fmt.Errorf("a frequency range must be bounded by minutes (%q, %q)", start, end)
	}
	steps := func(yield func([]CQLRead) bool) {
		for d := from.Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
			// The minutes of the range in this day: a slice of its
			// partition, clustered by (minute timestamp, lang).
			lo, hi := maxTime(from, d), minTime(to.Add(time.Minute), d.Add(24*time.Hour))
			if !yield([]CQLRead{{Partition: CQLFrequencyPartition(Day(d.Unix())), Slice: true, Lo: lo, Hi: hi}}) {
				return
			}
		}
	}
	return CQLRange{Steps: steps}, nil
}

// geoCQLRange reads a range within one spread and day (the first 3 key
// bytes): a slice of the geohashes of that partition (geohash >= lo AND
// geohash < hi), or the partition when the range is open (the end is not
// text: the prefix and 0xff).
func geoCQLRange(start, end []byte) (CQLRange, error) {
	if len(start) < 3 || len(end) < 3 || !bytes.Equal(start[:3], end[:3]) {
		return CQLRange{}, errors.New("a geo range must lie in one spread and day")
	}
	pk := CQLGeoPartition(start[0], binary.BigEndian.Uint16(start[1:3]))
	lo, hi := string(start[3:]), string(end[3:])
	if !utf8.ValidString(hi) { // open
		return CQLRange{Steps: cqlSteps(CQLRead{Partition: pk}), Ordered: true}, nil
	}
	return CQLRange{Steps: cqlSteps(CQLRead{Partition: pk, Slice: true, Lo: lo, Hi: hi}), Ordered: true}, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
