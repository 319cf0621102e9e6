package schemas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// TermDayRow is a row of TermDays, the per-day term counts: on a UTC day,
// the number of stored tweets of one language whose term index holds a
// term in one field. The fields are those the questions ask for
// (TermDayFields): the term index's "text" field split into hashtags
// ("#..."), mentions ("@...") and the other terms, then "user" and "url".
// The count is absolute: the whole day's stored tweets, recounted from the
// raw table whenever a run or a delete touches the day (never an
// increment), so rewriting it is idempotent.
//
// The key is the day (uint16 days since 1970, big-endian), the field, NUL,
// the term, NUL, the language: a day of one field is a key range in term
// order, and the terms of a day and field that begin with a prefix are a
// range too. The value is the count as a decimal string.
type TermDayRow struct {
	Day    uint16
	Field  string
	Term   string
	Lang   string
	Tweets int64
}

// The fields of TermDays.
const (
	TermFieldHashtag = "hashtag"
	TermFieldMention = "mention"
	TermFieldText    = "text"
	TermFieldUser    = "user"
	TermFieldURL     = "url"
)

// TermDayFields lists the fields of TermDays, as query top --field takes them.
func TermDayFields() []string {
	return []string{TermFieldHashtag, TermFieldMention, TermFieldText, TermFieldUser, TermFieldURL}
}

// TermDayField returns the TermDays field of a term of the term index's
// field indexField: hashtags and mentions of "text" apart, every other
// field as it is.
func TermDayField(indexField, term string) string {
	if indexField == TermFieldText && term != "" {
		switch term[0] {
		case '#':
			return TermFieldHashtag
		case '@':
			return TermFieldMention
		}
	}
	return indexField
}

// TermIndexField returns the term index's field of a TermDays field: the
// field a question about the tweets of its terms asks.
func TermIndexField(field string) string {
	switch field {
	case TermFieldHashtag, TermFieldMention:
		return TermFieldText
	}
	return field
}

// TermDayPrefix returns the key prefix of the rows of one day and field.
func TermDayPrefix(day uint16, field string) []byte {
	b := make([]byte, 0, 3+len(field))
	b = binary.BigEndian.AppendUint16(b, day)
	b = append(b, field...)
	return append(b, 0)
}

// TermDayDayPrefix returns the key prefix of every row of one day.
func TermDayDayPrefix(day uint16) []byte { return binary.BigEndian.AppendUint16(nil, day) }

// Cell encodes the row. The term is text (a CQL text column): bytes of it
// that are not UTF-8 become U+FFFD.
func (r TermDayRow) Cell() Cell {
	k := TermDayPrefix(r.Day, r.Field)
	k = append(k, validText(r.Term)...)
	k = append(k, 0)
	k = append(k, r.Lang...)
	return Cell{Table: TableTermDays, Key: k, Value: strconv.AppendInt(nil, r.Tweets, 10)}
}

// AppendCell is Cell with the key and value appended to buf, so that the
// cells of many rows can share one allocation: it returns the cell, whose
// Key and Value are in buf, and buf.
func (r TermDayRow) AppendCell(buf []byte) (Cell, []byte) {
	start := len(buf)
	buf = binary.BigEndian.AppendUint16(buf, r.Day)
	buf = append(buf, r.Field...)
	buf = append(buf, 0)
	buf = append(buf, validText(r.Term)...)
	buf = append(buf, 0)
	buf = append(buf, r.Lang...)
	k := buf[start:len(buf):len(buf)]
	start = len(buf)
	buf = strconv.AppendInt(buf, r.Tweets, 10)
	return Cell{Table: TableTermDays, Key: k, Value: buf[start:len(buf):len(buf)]}, buf
}

// SplitTermKey splits a TermIndex key (TermRow) into its head, the term,
// NUL, the field, NUL (the same for every row of a term and field), the
// term and field within it, and the row key, without copying and without
// reading the value; ok is false for a malformed key.
func SplitTermKey(key []byte) (head, term, field []byte, k RowKey, ok bool) {
	n := len(key) - RowKeyLen
	if n < 2 || key[n-1] != 0 {
		return nil, nil, nil, k, false
	}
	head = key[:n]
	i := bytes.IndexByte(head, 0)
	if i == n-1 {
		return nil, nil, nil, k, false
	}
	copy(k[:], key[n:])
	return head, head[:i], head[i+1 : n-1], k, true
}

// TermDayKey splits a TermDays key into its day, field, term and
// language, without copying; ok is false for a malformed key.
func TermDayKey(key []byte) (day uint16, field, term, lang []byte, ok bool) {
	if len(key) < 4 {
		return 0, nil, nil, nil, false
	}
	day = binary.BigEndian.Uint16(key)
	rest := key[2:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return 0, nil, nil, nil, false
	}
	field, rest = rest[:i], rest[i+1:]
	j := bytes.LastIndexByte(rest, 0)
	if j < 0 {
		return 0, nil, nil, nil, false
	}
	return day, field, rest[:j], rest[j+1:], true
}

// DecodeTermDay decodes a TermDays cell.
func DecodeTermDay(key, value []byte) (TermDayRow, error) {
	day, field, term, lang, ok := TermDayKey(key)
	if !ok {
		return TermDayRow{}, errors.New("termdays key malformed")
	}
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil {
		return TermDayRow{}, fmt.Errorf("termdays count %q: %w", value, err)
	}
	return TermDayRow{Day: day, Field: string(field), Term: string(term), Lang: string(lang), Tweets: n}, nil
}

// TermDayMarkPrefix begins the metadata rows that mark the days whose
// TermDays rows are to be recounted (TermDayMark): written with the term
// rows of the tweets a run stores (transforms.DerivedTables' markers), and
// for the days of the minutes marked for a recount (a stored tweet
// removed); each is recounted from the raw table and its mark removed once
// the run's pipeline is done.
const TermDayMarkPrefix = "termday/"

// TermDayMark returns the metadata name of the mark of day d.
func TermDayMark(d uint16) string { return dayName(TermDayMarkPrefix, d) }

// ParseTermDayMark returns the day of a mark's name (TermDayMark).
func ParseTermDayMark(name string) (uint16, bool) { return parseDayName(TermDayMarkPrefix, name) }

// dayName returns prefix followed by day d as YYYY-MM-DD: the name of a
// metadata row about one day.
func dayName(prefix string, d uint16) string { return prefix + dayTime(d).Format(time.DateOnly) }

// parseDayName returns the day of a name dayName made with prefix.
func parseDayName(prefix, name string) (uint16, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	t, err := time.ParseInLocation(time.DateOnly, s, time.UTC)
	if err != nil || !ValidDay(t.Unix()) {
		return 0, false
	}
	return Day(t.Unix()), true
}

// TermDaysParam is the metadata row saying that every day of stored tweets
// has its TermDays rows: written when indexing began into an empty sink
// (as EdgesParam). A sink indexed before the table existed never gets it,
// and questions about top and trending terms refuse it.
const TermDaysParam = "param/termdays"

// TermDaysValue is the value of TermDaysParam.
var TermDaysValue = []byte(`{"complete":true}`)

type termDayDump struct {
	Day    string `json:"day"`
	Field  string `json:"field"`
	Term   string `json:"term"`
	Lang   string `json:"lang"`
	Tweets int64  `json:"tweets"`
}

func dumpTermDay(key, value []byte) (any, error) {
	r, err := DecodeTermDay(key, value)
	if err != nil {
		return nil, err
	}
	return termDayDump{Day: dayTime(r.Day).Format(time.DateOnly), Field: r.Field, Term: r.Term, Lang: r.Lang, Tweets: r.Tweets}, nil
}

// termDaysCQLValues returns the CQL values of a TermDays cell
// (TableSpec.CQLRow).
func termDaysCQLValues(dst []any, c Cell) ([]any, error) {
	r, err := DecodeTermDay(c.Key, c.Value)
	if err != nil {
		return dst, fmt.Errorf("termdays cell: %w", err)
	}
	if err := canonical(r.Cell(), c); err != nil {
		return dst, fmt.Errorf("termdays cell %q: %w", c.Key, err)
	}
	if !utf8.ValidString(r.Field) || !utf8.ValidString(r.Term) || !utf8.ValidString(r.Lang) {
		return dst, fmt.Errorf("termdays cell %q: field, term or language is not valid UTF-8", c.Key)
	}
	return append(dst, dayTime(r.Day), r.Field, termDayBucket(r.Term), r.Term, r.Lang, r.Tweets), nil
}

// termDaysFromCQL returns the TermDays cell of a row's CQL values.
func termDaysFromCQL(values []any) (Cell, error) {
	var err error
	day := asTime(values[0]).Unix() / 86400
	if day < 0 || day > math.MaxUint16 {
		err = fmt.Errorf("day %d out of range", day)
	}
	return TermDayRow{Day: uint16(day), Field: asString(values[1]), Term: asString(values[3]), Lang: asString(values[4]), Tweets: asInt(values[5])}.Cell(), err
}

// termDayBucket is the bucket of a term's TermDays rows on Cassandra.
func termDayBucket(term string) int8 {
	return int8(Murmur2([]byte(term)) % TermDayBuckets)
}

// TermDayBuckets is the number of partitions a day and field of TermDays
// is spread over on Cassandra: bucket = Murmur2(term) mod TermDayBuckets.
const TermDayBuckets = 16

// CQLTermDayPartition returns the partition of the TermDays rows of day d,
// field, bucket b (0 <= b < TermDayBuckets).
func CQLTermDayPartition(d uint16, field string, b int) []any {
	return []any{dayTime(d), field, int8(b)}
}

// termDaysCQLRange reads a range within one day and field (TermDayPrefix):
// the TermDayBuckets partitions of that day and field, at once, each a
// slice of terms [lo, hi) when the range's ends are terms after the
// prefix (the terms that begin with a prefix), else whole
// (TableSpec.CQLRange).
func termDaysCQLRange(start, end []byte) (CQLRange, error) {
	errRange := errors.New("a termdays range must lie in one day and field")
	i := -1
	if len(start) > 2 {
		i = bytes.IndexByte(start[2:], 0)
	}
	if i < 0 {
		return CQLRange{}, errRange
	}
	n := 2 + i + 1 // day, field, NUL
	prefix := start[:n]
	day, field := binary.BigEndian.Uint16(start[:2]), string(start[2:n-1])
	var lo, hi string
	slice := false
	if bytes.HasPrefix(end, prefix) {
		lo, hi = string(start[n:]), string(end[n:])
		if j := strings.IndexByte(lo, 0); j >= 0 {
			lo = lo[:j]
		}
		slice = hi != "" && utf8.ValidString(lo) && utf8.ValidString(hi) && !strings.Contains(hi, "\x00")
	} else if !bytes.Equal(end, prefixEnd(prefix)) {
		return CQLRange{}, errRange
	}
	reads := make([]CQLRead, TermDayBuckets)
	for b := range reads {
		reads[b] = CQLRead{Partition: CQLTermDayPartition(day, field, b), Slice: slice}
		if slice {
			reads[b].Lo, reads[b].Hi = lo, hi
		}
	}
	return CQLRange{Steps: cqlSteps(reads...)}, nil
}
