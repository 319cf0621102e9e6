package schemas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// EdgeType is the kind of an edge of TweetEdges.
type EdgeType uint8

// The kinds of edge. User edges go from the tweet's author to another
// user (lower-cased screen names); hashtag edges join two hashtags of one
// tweet (lower-cased tags without '#', the smaller first: undirected).
const (
	EdgeRetweet EdgeType = 1 + iota // author -> the retweeted tweet's author
	EdgeQuote                       // author -> the quoted tweet's author
	EdgeReply                       // author -> the user replied to
	EdgeMention                     // author -> a user the tweet mentions (not of a retweet: those are the retweeted author's)
	EdgeHashtag                     // hashtag <-> hashtag within one tweet
	numEdgeTypes
)

var edgeTypeNames = [numEdgeTypes]string{"", "retweet", "quote", "reply", "mention", "hashtag"}

// EdgeTypes lists the kinds of edge in the order of their ids.
func EdgeTypes() []EdgeType {
	return []EdgeType{EdgeRetweet, EdgeQuote, EdgeReply, EdgeMention, EdgeHashtag}
}

// Name returns the kind's name, as the command line spells it.
func (t EdgeType) Name() string {
	if t > 0 && t < numEdgeTypes {
		return edgeTypeNames[t]
	}
	return "edge(" + strconv.Itoa(int(t)) + ")"
}

// Directed says whether the kind's edges have a direction (all but
// hashtag co-occurrence).
func (t EdgeType) Directed() bool { return t != EdgeHashtag }

// EdgeTypeByName is the inverse of EdgeType.Name.
func EdgeTypeByName(name string) (EdgeType, bool) {
	for t := EdgeRetweet; t < numEdgeTypes; t++ {
		if edgeTypeNames[t] == name {
			return t, true
		}
	}
	return 0, false
}

// MaxEdgeNodeLen is the longest node name an edge holds, in bytes: a
// screen name has at most 15 characters, a hashtag at most 139; longer
// names (a malformed tweet's) make no edge.
const MaxEdgeNodeLen = 280

// ValidEdgeNode reports whether s can be a node of an edge: not empty, at
// most MaxEdgeNodeLen bytes of valid UTF-8 (a CQL text column), and no
// NUL, which ends a node in the key.
func ValidEdgeNode(s string) bool {
	return s != "" && len(s) <= MaxEdgeNodeLen && utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// EdgeRow is a row of TweetEdges, the network of who retweets, quotes,
// replies to and mentions whom and which hashtags go together: one cell
// per edge of each stored tweet, keyed by the edge's kind, the tweet's UTC
// day, its source and target, and the tweet (row key and id, as its raw
// cell: the tweets of a row-key collision keep a cell each). A day of one
// kind of edge is a key range (EdgePrefix), and within it the edges of a
// source; the weight of an edge over a range is the number of its cells.
// The value is empty.
//
// Key: kind (1 B), day (2 B, big-endian days since 1970), source, 0x00,
// target, 0x00, row key (12 B), tweet id (8 B, big-endian).
type EdgeRow struct {
	Type           EdgeType
	Source, Target string
	Key            RowKey
	ID             uint64
}

// EdgePrefixLen is the length of an edge key's kind and day.
const EdgePrefixLen = 3

// EdgePrefix returns the first bytes of the keys of kind t on day d.
func EdgePrefix(t EdgeType, d uint16) []byte {
	return []byte{byte(t), byte(d >> 8), byte(d)}
}

// Cell encodes the row.
func (r EdgeRow) Cell() Cell {
	k := make([]byte, 0, EdgePrefixLen+len(r.Source)+len(r.Target)+2+RawKeyLen)
	k = append(k, EdgePrefix(r.Type, Day(r.Key.Seconds()))...)
	k = append(append(k, r.Source...), 0)
	k = append(append(k, r.Target...), 0)
	k = append(k, r.Key[:]...)
	k = binary.BigEndian.AppendUint64(k, r.ID)
	return Cell{Table: TableEdges, Key: k, Value: []byte{}}
}

// DecodeEdge decodes a TweetEdges cell.
func DecodeEdge(key, value []byte) (EdgeRow, error) {
	src, dst, tail, ok := EdgeNodes(key)
	if !ok || len(tail) != RawKeyLen {
		return EdgeRow{}, fmt.Errorf("edge key %q malformed", key)
	}
	t := EdgeType(key[0])
	if t == 0 || t >= numEdgeTypes {
		return EdgeRow{}, fmt.Errorf("edge key %q: unknown kind %d", key, key[0])
	}
	if len(value) != 0 {
		return EdgeRow{}, fmt.Errorf("edge key %q: value of %d bytes, want none", key, len(value))
	}
	k, err := RowKeyFromBytes(tail[:RowKeyLen])
	if err != nil {
		return EdgeRow{}, err
	}
	if Day(k.Seconds()) != binary.BigEndian.Uint16(key[1:3]) {
		return EdgeRow{}, fmt.Errorf("edge key %q: day %d is not the row key's", key, binary.BigEndian.Uint16(key[1:3]))
	}
	return EdgeRow{Type: t, Source: string(src), Target: string(dst), Key: k, ID: binary.BigEndian.Uint64(tail[RowKeyLen:])}, nil
}

// EdgeNodes splits an edge key into its source and target and what
// follows them (the row key and id), without copying; ok is false for a
// key that does not hold two names.
func EdgeNodes(key []byte) (source, target, tail []byte, ok bool) {
	if len(key) < EdgePrefixLen {
		return nil, nil, nil, false
	}
	rest := key[EdgePrefixLen:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return nil, nil, nil, false
	}
	j := bytes.IndexByte(rest[i+1:], 0)
	if j < 0 {
		return nil, nil, nil, false
	}
	return rest[:i], rest[i+1 : i+1+j], rest[i+2+j:], true
}

// EdgeTweetKey returns the row key of the tweet of an edge key (its last
// RawKeyLen bytes begin with it); ok is false for a key too short.
func EdgeTweetKey(key []byte) (RowKey, bool) {
	var k RowKey
	if len(key) < EdgePrefixLen+2+RawKeyLen {
		return k, false
	}
	copy(k[:], key[len(key)-RawKeyLen:])
	return k, true
}

// EdgesParam is the metadata row saying that every tweet the raw table
// holds has its TweetEdges cells: written when indexing began into an
// empty sink (as AuthorsParam). A sink indexed before the table existed
// never gets it, and questions about edges refuse it.
const EdgesParam = "param/edges"

// EdgesValue is the value of EdgesParam.
var EdgesValue = []byte(`{"complete":true}`)

type edgeDump struct {
	Type    string `json:"type"`
	Day     string `json:"day"`
	Source  string `json:"source"`
	Target  string `json:"target"`
	RowKey  string `json:"row_key"`
	TweetID string `json:"tweet_id"`
}

func dumpEdge(key, value []byte) (any, error) {
	r, err := DecodeEdge(key, value)
	if err != nil {
		return nil, err
	}
	return edgeDump{Type: r.Type.Name(), Day: dayTime(Day(r.Key.Seconds())).Format("2006-01-02"), Source: r.Source, Target: r.Target, RowKey: r.Key.String(), TweetID: strconv.FormatUint(r.ID, 10)}, nil
}

// edgesCQLValues returns the CQL values of a TweetEdges cell
// (TableSpec.CQLRow).
func edgesCQLValues(dst []any, c Cell) ([]any, error) {
	r, err := DecodeEdge(c.Key, c.Value)
	if err != nil {
		return dst, fmt.Errorf("edges cell: %w", err)
	}
	if !ValidEdgeNode(r.Source) || !ValidEdgeNode(r.Target) {
		return dst, fmt.Errorf("edges cell %q: source or target is not a valid name", c.Key)
	}
	return append(dst, r.Type.Name(), dayTime(Day(r.Key.Seconds())), rawBucket(r.Key), r.Source, r.Target, c.Key[len(c.Key)-RawKeyLen:len(c.Key)-8], int64(r.ID)), nil
}

// edgesFromCQL returns the TweetEdges cell of a row's CQL values.
func edgesFromCQL(values []any) (Cell, error) {
	k, err := RowKeyFromBytes(asBytes(values[5]))
	typ, ok := EdgeTypeByName(asString(values[0]))
	if !ok {
		err = errors.Join(err, fmt.Errorf("edge type %q unknown", asString(values[0])))
	}
	return EdgeRow{Type: typ, Source: asString(values[3]), Target: asString(values[4]), Key: k, ID: uint64(asInt(values[6]))}.Cell(), err
}

// CQLEdgePartition returns the partition of the edges of kind t on day d,
// bucket b (0 <= b < RawBuckets).
func CQLEdgePartition(t EdgeType, d uint16, b int) []any { return []any{t.Name(), dayTime(d), int8(b)} }

// edgesCQLRange reads a range within one kind and day of edges (the first
// EdgePrefixLen key bytes): the RawBuckets partitions of that kind and
// day, at once (TableSpec.CQLRange).
func edgesCQLRange(start, end []byte) (CQLRange, error) {
	n := EdgePrefixLen
	if len(start) < n || len(end) < n || !bytes.Equal(start[:n], end[:n]) {
		return CQLRange{}, errors.New("an edges range must lie in one kind and day")
	}
	typ, day := EdgeType(start[0]), binary.BigEndian.Uint16(start[1:3])
	reads := make([]CQLRead, RawBuckets)
	for b := range reads {
		reads[b] = CQLRead{Partition: CQLEdgePartition(typ, day, b)}
	}
	return CQLRange{Steps: cqlSteps(reads...)}, nil
}
