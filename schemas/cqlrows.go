package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// The CQL row mappings of the tables of tables.go (TableSpec.CQLRow): for
// each, the bind values of a cell, one per column of its CQL table
// (CQLTable.Columns order, the Go types of cqlrow.go), and the cell of a
// row's values. The tables with a file of their own (edges.go,
// termdays.go) have their mapping there.

func rawCQLValues(dst []any, c Cell) ([]any, error) {
	r, err := DecodeRaw(c.Key, c.Value)
	if err != nil {
		return dst, fmt.Errorf("raw cell: %w", err)
	}
	return append(dst, minuteTime(r.Key.Seconds()), rawBucket(r.Key), c.Key[:RowKeyLen], int64(r.ID), nonNil(c.Value)), nil
}

func rawFromCQL(values []any) (Cell, error) {
	k, err := RowKeyFromBytes(asBytes(values[2]))
	return RawRow{Key: k, ID: uint64(asInt(values[3])), JSON: nonNil(asBytes(values[4]))}.Cell(), err
}

func authorsCQLValues(dst []any, c Cell) ([]any, error) {
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
}

func authorsFromCQL(values []any) (Cell, error) {
	k, err := RowKeyFromBytes(asBytes(values[2]))
	return AuthorRow{Key: k, ID: uint64(asInt(values[3])), Lang: asString(values[4]), ScreenName: asString(values[5])}.Cell(), err
}

func identityCQLValues(dst []any, c Cell) ([]any, error) {
	r, err := DecodeIdentity(c.Key, c.Value)
	if err != nil {
		return dst, fmt.Errorf("identity cell: %w", err)
	}
	return append(dst, int64(r.ID), nonNil(c.Value)), nil
}

func identityFromCQL(values []any) (Cell, error) {
	return Cell{Table: TableIdentity, Key: IdentityKey(uint64(asInt(values[0]))), Value: nonNil(asBytes(values[1]))}, nil
}

func termsCQLValues(dst []any, c Cell) ([]any, error) {
	// The frequency and the positions are checked apart, so that the
	// positions are not decoded into a slice for each row.
	freq, positions := c.Value, []byte{}
	if i := bytes.IndexByte(c.Value, 0); i >= 0 {
		freq, positions = c.Value[:i], c.Value[i+1:] // never empty: it holds their number
		var buf [32]uint32
		if _, err := DecodeTermPositions(buf[:0], positions); err != nil {
			return dst, fmt.Errorf("terms cell %q: %w", c.Key, err)
		}
	}
	r, err := DecodeTerm(c.Key, freq)
	if err != nil {
		return dst, fmt.Errorf("terms cell: %w", err)
	}
	if err := canonical(r.Cell(), Cell{Table: c.Table, Key: c.Key, Value: freq}); err != nil {
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
	return append(dst, r.Term, r.Field, dayTime(Day(sec)), int8(sec%86400/3600), c.Key[len(c.Key)-RowKeyLen:], int32(r.Freq), positions), nil
}

func termsFromCQL(values []any) (Cell, error) {
	k, err := RowKeyFromBytes(asBytes(values[4]))
	if err != nil {
		return Cell{}, err
	}
	r := TermRow{Term: asString(values[0]), Field: asString(values[1]), Key: k, Freq: uint32(asInt(values[5]))}
	if b := asBytes(values[6]); len(b) > 0 { // empty, or null in a keyspace made before positions: none recorded
		if r.Positions, err = DecodeTermPositions(nil, b); err != nil {
			return Cell{}, err
		}
		r.Positioned = true
	}
	return r.Cell(), nil
}

func frequencyCQLValues(dst []any, c Cell) ([]any, error) {
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
}

func frequencyFromCQL(values []any) (Cell, error) {
	return FrequencyRow{Minute: asTime(values[1]).UTC().Format(MinuteLayout), Lang: asString(values[2]), Count: asInt(values[3])}.Cell(), nil
}

func geoCQLValues(dst []any, c Cell) ([]any, error) {
	r, err := DecodeGeo(c.Key, c.Value)
	if err != nil {
		return dst, fmt.Errorf("geo cell: %w", err)
	}
	h := r.Geo.Geohash()
	if !utf8.ValidString(h) {
		return dst, fmt.Errorf("geo cell %x: geohash is not valid UTF-8", c.Key)
	}
	return append(dst, int16(r.Geo.Spread()), dayTime(r.Geo.Day()), h, c.Key[GeoKeyLen:], r.Lat, r.Lon, int8(r.Kind)), nil
}

func geoFromCQL(values []any) (Cell, error) {
	k, err := RowKeyFromBytes(asBytes(values[3]))
	day := asTime(values[1]).Unix() / 86400
	if day < 0 || day > math.MaxUint16 {
		err = errors.Join(err, fmt.Errorf("day %d out of range", day))
	}
	spread := asInt(values[0])
	if spread < 0 || spread > math.MaxUint8 {
		err = errors.Join(err, fmt.Errorf("spread %d out of range", spread))
	}
	kind := asInt(values[6]) // null (a row written before the column) scans as 0: unknown
	if kind < 0 || kind > int64(PointCentre) {
		err = errors.Join(err, fmt.Errorf("point_kind %d out of range", kind))
	}
	return GeoRow{Geo: NewGeoKey(uint8(spread), uint16(day), asString(values[2])), Key: k, Lat: asFloat(values[4]), Lon: asFloat(values[5]), Kind: PointKind(kind)}.Cell(), err
}

func deadLetterCQLValues(dst []any, c Cell) ([]any, error) {
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
}

func deadLetterFromCQL(values []any) (Cell, error) {
	var err error
	item := asInt(values[3])
	if item < 0 || item > math.MaxInt32 {
		err = fmt.Errorf("item %d out of range", item)
	}
	return DeadLetterRow{Origin: Origin{Source: asString(values[0]), Line: asInt(values[2])}, Item: uint32(item), Reason: asString(values[4]), Raw: nonNil(asBytes(values[5]))}.Cell(), err
}

func metaCQLValues(dst []any, c Cell) ([]any, error) {
	if !utf8.Valid(c.Key) || !utf8.Valid(c.Value) {
		return dst, fmt.Errorf("meta cell %q: name or value is not valid UTF-8", c.Key)
	}
	return append(dst, string(c.Key), string(c.Value)), nil
}

func metaFromCQL(values []any) (Cell, error) {
	// A text column: an empty value reads as []byte{}.
	return Cell{Table: TableMeta, Key: []byte(asString(values[0])), Value: nonNil(asBytes(values[1]))}, nil
}
