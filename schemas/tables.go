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

// Table names one of the stored tables. Its value is the one-byte prefix of
// the table's keys in the embedded store.
type Table byte

// The four index tables (docs/tables.md), plus the dead letters and run metadata.
const (
	TableRaw        Table = 'r' // RawTwitterData
	TableTerms      Table = 't' // TermIndex
	TableFrequency  Table = 'f' // TweetFrequency
	TableGeo        Table = 'g' // GeoTemporalIndex
	TableDeadLetter Table = 'd' // dead letters: broken input with origin and reason
	TableMeta       Table = 'm' // index parameters and runs
	TableIdentity   Table = 'i' // tweet id -> row key of its stored version, or a tombstone
	TableAuthors    Table = 'u' // TweetAuthors: (row key, tweet id) -> language and screen name
	TableEdges      Table = 'x' // TweetEdges: (kind, day, source, target, row key, tweet id)
	TableTermDays   Table = 'k' // TermDays: (day, field, term, language) -> tweets
	TableEdgeDays   Table = 'e' // EdgeDays: (kind, day, source, target) -> tweets
)

// Tables lists the tables in dump order.
var Tables = []Table{TableRaw, TableTerms, TableFrequency, TableGeo, TableDeadLetter, TableMeta, TableIdentity, TableAuthors, TableEdges, TableTermDays, TableEdgeDays}

// Name returns the table's name as the command line spells it
// (TableSpec.Name).
func (t Table) Name() string {
	if s := t.Spec(); s != nil {
		return s.Name
	}
	return fmt.Sprintf("table(%q)", byte(t))
}

// TableByName is the inverse of Table.Name.
func TableByName(name string) (Table, bool) {
	for _, s := range registry {
		if s.Name == name {
			return s.Table, true
		}
	}
	return 0, false
}

// Cell is one stored key and value of one table: the unit every sink writes.
// Key and Value are the table's own layout (see the Row types); a sink
// that keeps one ordered key space, like the embedded store, prefixes Key
// with the table byte.
//
// A cell with Delete set removes the cell with its table and key (Value is
// empty): compliance messages remove stored tweets with such cells.
type Cell struct {
	Table  Table
	Key    []byte
	Value  []byte
	Delete bool
}

// RawRow is a row of RawTwitterData: row key -> raw JSON (column family "t").
// The qualifier is the tweet id (8 bytes, big-endian), which makes the cell
// unique per tweet: two tweets created in the same second whose JSON has the
// same 32-bit hash share a row key (a collision), and both are kept, as two
// cells of one row. The cell key is the row key followed by the id, so a
// row key's tweets are one range (RawRowPrefix).
type RawRow struct {
	Key  RowKey
	ID   uint64
	JSON []byte
}

// RawKeyLen is the length of a raw cell's key: row key and tweet id.
const RawKeyLen = RowKeyLen + 8

// Cell encodes the row.
func (r RawRow) Cell() Cell {
	return Cell{Table: TableRaw, Key: binary.BigEndian.AppendUint64(r.Key[:], r.ID), Value: r.JSON}
}

// DecodeRaw decodes a RawTwitterData cell.
func DecodeRaw(key, value []byte) (RawRow, error) {
	if len(key) != RawKeyLen {
		return RawRow{}, fmt.Errorf("raw key of %d bytes, want %d (row key and tweet id)", len(key), RawKeyLen)
	}
	k, err := RowKeyFromBytes(key[:RowKeyLen])
	return RawRow{Key: k, ID: binary.BigEndian.Uint64(key[RowKeyLen:]), JSON: value}, err
}

// AuthorRow is a row of TweetAuthors, the index of authors over time: one
// cell per stored tweet, keyed as its raw cell (row key and tweet id, so
// a range of seconds is a key range and the two tweets of a row-key
// collision keep a cell each), whose value is the tweet's language tag
// and its author's screen name, lower-cased (Twitter's handles are
// case-insensitive). A question about users reads these few bytes per
// tweet instead of the stored JSON. The value is one byte, the length of
// the tag, the tag (at most MaxLangLen bytes), then the screen name.
type AuthorRow struct {
	Key        RowKey
	ID         uint64
	Lang       string
	ScreenName string
}

// Cell encodes the row. The name is lower-cased here (strings.ToLower,
// which also makes it valid UTF-8: a CQL text column).
func (r AuthorRow) Cell() Cell {
	name := strings.ToLower(r.ScreenName)
	lang := r.Lang[:min(len(r.Lang), MaxLangLen)]
	v := make([]byte, 0, 1+len(lang)+len(name))
	v = append(append(append(v, byte(len(lang))), lang...), name...)
	return Cell{Table: TableAuthors, Key: binary.BigEndian.AppendUint64(r.Key[:], r.ID), Value: v}
}

// DecodeAuthor decodes a TweetAuthors cell.
func DecodeAuthor(key, value []byte) (AuthorRow, error) {
	if len(key) != RawKeyLen {
		return AuthorRow{}, fmt.Errorf("authors key of %d bytes, want %d (row key and tweet id)", len(key), RawKeyLen)
	}
	lang, name, ok := AuthorValue(value)
	if !ok {
		return AuthorRow{}, fmt.Errorf("authors value %q malformed", value)
	}
	k, err := RowKeyFromBytes(key[:RowKeyLen])
	return AuthorRow{Key: k, ID: binary.BigEndian.Uint64(key[RowKeyLen:]), Lang: string(lang), ScreenName: string(name)}, err
}

// AuthorValue splits the value of a TweetAuthors cell into the language
// tag and the lower-cased screen name, without copying; ok is false for a
// value too short for its tag.
func AuthorValue(value []byte) (lang, screenName []byte, ok bool) {
	if len(value) == 0 || len(value) < 1+int(value[0]) {
		return nil, nil, false
	}
	n := 1 + int(value[0])
	return value[1:n], value[n:], true
}

// IdentityRow is a row of the identity table: a tweet id and the row key
// of the version of the tweet the tables hold, or, for a tweet deleted by a
// compliance message, a tombstone (Deleted), which keeps a later run over
// older files from bringing it back. The key is the id (8 bytes,
// big-endian); the value the row key, or empty for a tombstone.
type IdentityRow struct {
	ID      uint64
	Key     RowKey
	Deleted bool
}

// IdentityKey returns the key of the identity row of a tweet id.
func IdentityKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// Cell encodes the row.
func (r IdentityRow) Cell() Cell {
	c := Cell{Table: TableIdentity, Key: IdentityKey(r.ID)}
	if !r.Deleted {
		c.Value = r.Key[:]
	}
	return c
}

// DecodeIdentity decodes an identity cell.
func DecodeIdentity(key, value []byte) (IdentityRow, error) {
	if len(key) != 8 {
		return IdentityRow{}, fmt.Errorf("identity key of %d bytes, want 8", len(key))
	}
	r := IdentityRow{ID: binary.BigEndian.Uint64(key)}
	switch len(value) {
	case 0:
		r.Deleted = true
	case RowKeyLen:
		r.Key = RowKey(value)
	default:
		return r, fmt.Errorf("identity value of %d bytes, want %d or 0", len(value), RowKeyLen)
	}
	return r, nil
}

// TermRow is a row of TermIndex: term, field (the column family: "text" or
// "user"), row key (the qualifier), the term's frequency in that field and,
// for the text, its positions. The key is term 0x00 field 0x00 rowkey, so
// all tweets of a term and field are one range, in time order. The value
// is the frequency as a decimal string when it is above 1, and empty
// otherwise, as in the seed schema; a row that records positions follows
// it with a 0x00 byte, the number of positions and the positions, each
// as the difference from the one before (the first from 0), all as
// unsigned varints (AppendTermPositions).
type TermRow struct {
	Term  string
	Field string
	Key   RowKey
	Freq  uint32
	// Positions are the term's positions in the tweet's text, ascending:
	// the indexes of its words as the indexing tokenizer counts them
	// (transforms.TextPostings), for phrase questions. Positioned says
	// the row records them: rows of the text field do, with no position
	// for a term only the tweet's entities name; rows of the other
	// fields, and text rows written before positions were kept, do not,
	// and a phrase question reads their tweet's text instead.
	Positions  []uint32
	Positioned bool
}

// TermPrefix returns the key prefix of all rows of term in field.
func TermPrefix(term, field string) []byte {
	return appendTermPrefix(make([]byte, 0, len(term)+len(field)+2), term, field)
}

func appendTermPrefix(b []byte, term, field string) []byte {
	b = append(b, term...)
	b = append(b, 0)
	b = append(b, field...)
	return append(b, 0)
}

// Cell encodes the row. The term is text (a CQL text column): bytes of it
// that are not UTF-8 become U+FFFD (the tokenizer never makes such terms).
func (r TermRow) Cell() Cell {
	c, _ := r.AppendCell(make([]byte, 0, r.CellBytes()))
	return c
}

// CellBytes is about how many bytes Cell's key and value take: enough
// for those of a frequency under a million and positions under 128 apart.
func (r TermRow) CellBytes() int {
	n := len(r.Term) + len(r.Field) + 2 + RowKeyLen + 6
	if r.Positioned {
		n += 2 + len(r.Positions)
	}
	return n
}

// AppendCell is Cell with the key and value appended to buf, so that the
// cells of many rows can share one allocation: it returns the cell, whose
// Key and Value are in buf, and buf.
func (r TermRow) AppendCell(buf []byte) (Cell, []byte) {
	start := len(buf)
	buf = appendTermPrefix(buf, validText(r.Term), r.Field)
	buf = append(buf, r.Key[:]...)
	k := buf[start:len(buf):len(buf)]
	var v []byte
	if r.Freq > 1 || r.Positioned {
		start = len(buf)
		if r.Freq > 1 {
			buf = strconv.AppendUint(buf, uint64(r.Freq), 10)
		}
		if r.Positioned {
			buf = append(buf, 0)
			buf = AppendTermPositions(buf, r.Positions)
		}
		v = buf[start:len(buf):len(buf)]
	}
	return Cell{Table: TableTerms, Key: k, Value: v}, buf
}

// AppendTermPositions appends to dst the positions ps (ascending) as a
// term row records them: their number, then each one's difference from
// the one before (the first from 0), as unsigned varints.
func AppendTermPositions(dst []byte, ps []uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	last := uint32(0)
	for _, p := range ps {
		dst = binary.AppendUvarint(dst, uint64(p-last))
		last = p
	}
	return dst
}

// DecodeTermPositions appends to dst the positions b holds
// (AppendTermPositions: what follows the 0x00 of a term row's value), all
// of b. Phrase questions read them without decoding the rest of the row.
func DecodeTermPositions(dst []uint32, b []byte) ([]uint32, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return dst, errors.New("term positions: bad count")
	}
	b = b[k:]
	last := uint64(0)
	for i := uint64(0); i < n; i++ {
		d, k := binary.Uvarint(b)
		if k <= 0 || (i > 0 && d == 0) || last+d > math.MaxUint32 {
			return dst, errors.New("term positions: bad position")
		}
		last += d
		dst = append(dst, uint32(last))
		b = b[k:]
	}
	if len(b) > 0 {
		return dst, errors.New("term positions: bytes after the last")
	}
	return dst, nil
}

// termWithoutPositions reports whether the term row value found is want
// without its positions: a row written before positions were kept
// (TableSpec.Earlier).
func termWithoutPositions(found, want []byte) bool {
	i := bytes.IndexByte(want, 0)
	return i >= 0 && bytes.IndexByte(found, 0) < 0 && bytes.Equal(found, want[:i])
}

// DecodeTerm decodes a TermIndex cell.
func DecodeTerm(key, value []byte) (TermRow, error) {
	var r TermRow
	if len(key) < RowKeyLen+2 {
		return r, errors.New("term key too short")
	}
	head := key[:len(key)-RowKeyLen]
	copy(r.Key[:], key[len(key)-RowKeyLen:])
	i := bytes.IndexByte(head, 0)
	if i < 0 || head[len(head)-1] != 0 {
		return r, errors.New("term key without separators")
	}
	r.Term = string(head[:i])
	r.Field = string(head[i+1 : len(head)-1])
	r.Freq = 1
	freq := value
	if j := bytes.IndexByte(value, 0); j >= 0 {
		freq = value[:j]
		ps, err := DecodeTermPositions(nil, value[j+1:])
		if err != nil {
			return r, err
		}
		r.Positions, r.Positioned = ps, true
	}
	if len(freq) > 0 {
		n, err := strconv.ParseUint(string(freq), 10, 32)
		if err != nil {
			return r, fmt.Errorf("term frequency %q: %w", freq, err)
		}
		r.Freq = uint32(n)
	}
	return r, nil
}

// MinuteLayout is the layout of a TweetFrequency row: YYYYMMDDhhmm in UTC.
const MinuteLayout = "200601021504"

// Minute renders the minute of Unix second sec as YYYYMMDDhhmm (UTC).
func Minute(sec int64) string { return time.Unix(sec, 0).UTC().Format(MinuteLayout) }

// FrequencyRow is a row of TweetFrequency: minute (YYYYMMDDhhmm, UTC) and
// language tag -> the number of tweets of that language in that minute. The
// count is absolute, never an increment, so rewriting it is idempotent. The
// key is the 12-byte minute followed by the language, so a time range is a
// key range; the value is the count as a decimal string.
type FrequencyRow struct {
	Minute string
	Lang   string
	Count  int64
}

// Cell encodes the row.
func (r FrequencyRow) Cell() Cell {
	return Cell{Table: TableFrequency, Key: []byte(r.Minute + r.Lang), Value: strconv.AppendInt(nil, r.Count, 10)}
}

// DecodeFrequency decodes a TweetFrequency cell.
func DecodeFrequency(key, value []byte) (FrequencyRow, error) {
	if len(key) < len(MinuteLayout) {
		return FrequencyRow{}, errors.New("frequency key too short")
	}
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil {
		return FrequencyRow{}, fmt.Errorf("frequency count %q: %w", value, err)
	}
	return FrequencyRow{Minute: string(key[:len(MinuteLayout)]), Lang: string(key[len(MinuteLayout):]), Count: n}, nil
}

// GeoRow is a row of GeoTemporalIndex: spread byte + day + geohash, the
// tweet's row key as qualifier, and lat, lon as two big-endian float32
// followed by a byte saying what the point is (PointKind).
type GeoRow struct {
	Geo      GeoKey
	Key      RowKey
	Lat, Lon float32
	Kind     PointKind
}

// PointKind says where a geotagged tweet's point came from.
type PointKind uint8

// The kinds of points. A value of 8 bytes, written before the kind was
// recorded, reads as PointUnknown: it may be either, and questions about
// exact points leave it out (index the tweets again to record it).
const (
	PointUnknown PointKind = 0 // an 8-byte value: not recorded
	PointExact   PointKind = 1 // the tweet's coordinates (v1.1 coordinates or geo, v2 geo.coordinates)
	PointCentre  PointKind = 2 // the centre of the tweet's place's bounding box
)

// String names the kind as dump and the query answers show it.
func (k PointKind) String() string {
	switch k {
	case PointExact:
		return "exact"
	case PointCentre:
		return "place"
	}
	return "unknown"
}

// TweetPointKind returns the kind of t's point.
func TweetPointKind(t *Tweet) PointKind {
	if t.PlaceCentre {
		return PointCentre
	}
	return PointExact
}

// Cell encodes the row: a 9-byte value, or 8 bytes for PointUnknown (as
// rows were written before the kind was recorded).
func (r GeoRow) Cell() Cell {
	k := make([]byte, 0, GeoKeyLen+RowKeyLen)
	k = append(append(k, r.Geo[:]...), r.Key[:]...)
	v := make([]byte, 8, 9)
	binary.BigEndian.PutUint32(v[:4], math.Float32bits(r.Lat))
	binary.BigEndian.PutUint32(v[4:], math.Float32bits(r.Lon))
	if r.Kind != PointUnknown {
		v = append(v, byte(r.Kind))
	}
	return Cell{Table: TableGeo, Key: k, Value: v}
}

// DecodeGeo decodes a GeoTemporalIndex cell: a value of 9 bytes, or of 8
// (written before the point's kind was recorded: PointUnknown).
func DecodeGeo(key, value []byte) (GeoRow, error) {
	var r GeoRow
	if len(key) != GeoKeyLen+RowKeyLen || (len(value) != 8 && len(value) != 9) {
		return r, fmt.Errorf("geo cell has %d key and %d value bytes, want %d and 9 (or 8)", len(key), len(value), GeoKeyLen+RowKeyLen)
	}
	copy(r.Geo[:], key[:GeoKeyLen])
	copy(r.Key[:], key[GeoKeyLen:])
	r.Lat = math.Float32frombits(binary.BigEndian.Uint32(value[:4]))
	r.Lon = math.Float32frombits(binary.BigEndian.Uint32(value[4:]))
	if len(value) == 9 {
		r.Kind = PointKind(value[8])
		if r.Kind != PointExact && r.Kind != PointCentre {
			return r, fmt.Errorf("geo cell has point kind %d, want 1 (exact) or 2 (place centre)", value[8])
		}
	}
	return r, nil
}

// DeadLetterRow is an item that could not be indexed: where it came from,
// why, and its bytes. Several items of one line (the elements of a v2 page
// or of a one-line JSON array) are told apart by Item, their number among
// the dead letters of that line (0, 1, ...), so that each has its own row.
//
// The key is source 0x00 big-endian line, followed by the big-endian uint32
// item when Item > 0 (or when the source holds a NUL byte, so that the key
// can always be split), so a file's dead letters are one range in line
// order, and indexing the same input again rewrites the same rows. Item 0
// has the key that rows had before items were numbered.
type DeadLetterRow struct {
	Origin Origin
	Item   uint32
	Reason string
	Raw    []byte
}

// Cell encodes the row: the value is uvarint(len(reason)), reason, raw.
// The source and the reason are text (a CQL text column each): bytes that
// are not UTF-8 in them (a file name in another encoding, a decoder message
// quoting the input) become U+FFFD. The raw bytes are kept as they are.
func (r DeadLetterRow) Cell() Cell {
	r.Origin.Source, r.Reason = validText(r.Origin.Source), validText(r.Reason)
	k := make([]byte, 0, len(r.Origin.Source)+13)
	k = append(append(k, r.Origin.Source...), 0)
	k = binary.BigEndian.AppendUint64(k, uint64(r.Origin.Line))
	if r.Item > 0 || strings.IndexByte(r.Origin.Source, 0) >= 0 {
		k = binary.BigEndian.AppendUint32(k, r.Item)
	}
	v := make([]byte, 0, binary.MaxVarintLen64+len(r.Reason)+len(r.Raw))
	v = binary.AppendUvarint(v, uint64(len(r.Reason)))
	v = append(append(v, r.Reason...), r.Raw...)
	return Cell{Table: TableDeadLetter, Key: k, Value: v}
}

// DecodeDeadLetter decodes a dead-letter cell.
func DecodeDeadLetter(key, value []byte) (DeadLetterRow, error) {
	var r DeadLetterRow
	switch n := len(key); {
	case n >= 13 && key[n-13] == 0: // with an item
		r.Origin = Origin{Source: string(key[:n-13]), Line: int64(binary.BigEndian.Uint64(key[n-12:]))}
		r.Item = binary.BigEndian.Uint32(key[n-4:])
	case n >= 9 && key[n-9] == 0:
		r.Origin = Origin{Source: string(key[:n-9]), Line: int64(binary.BigEndian.Uint64(key[n-8:]))}
	default:
		return r, errors.New("dead-letter key malformed")
	}
	n, w := binary.Uvarint(value)
	if w <= 0 || uint64(len(value)-w) < n {
		return r, errors.New("dead-letter value malformed")
	}
	r.Reason = string(value[w : w+int(n)])
	r.Raw = value[w+int(n):]
	return r, nil
}

// MetaRow is a row of the metadata table: a name and a JSON value. The
// names are listed in meta.go (index parameters under "param/...", runs
// under "run/<start time>", marks, notices) and geodays.go (the days that
// hold geo rows, "geoday/YYYY-MM-DD").
type MetaRow struct {
	Name  string
	Value []byte
}

// Cell encodes the row.
func (r MetaRow) Cell() Cell { return Cell{Table: TableMeta, Key: []byte(r.Name), Value: r.Value} }

// validText returns s with every byte that is not part of valid UTF-8
// replaced by U+FFFD: what a CQL text column can hold. Valid strings are
// returned as they are, without copying.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
