package schemas

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

// RowKeyLen is the length of a tweet's row key in bytes.
const RowKeyLen = 12

// RowKey identifies a stored tweet: 8-byte big-endian seconds since 1970 of
// created_at, then the 4-byte big-endian Murmur2 of the stored JSON bytes.
// Keys sort by time first, so a time range is a key range.
type RowKey [RowKeyLen]byte

// NewRowKey builds the row key of a tweet created at createdAt (Unix seconds)
// whose stored JSON is data.
func NewRowKey(createdAt int64, data []byte) RowKey {
	var k RowKey
	binary.BigEndian.PutUint64(k[:8], uint64(createdAt))
	binary.BigEndian.PutUint32(k[8:], Murmur2(data))
	return k
}

// RowKeyFromBytes copies a 12-byte slice into a RowKey.
func RowKeyFromBytes(b []byte) (RowKey, error) {
	var k RowKey
	if len(b) != RowKeyLen {
		return k, fmt.Errorf("row key has %d bytes, want %d", len(b), RowKeyLen)
	}
	copy(k[:], b)
	return k, nil
}

// Seconds returns the created_at seconds encoded in the key.
func (k RowKey) Seconds() int64 { return int64(binary.BigEndian.Uint64(k[:8])) }

// Time returns the created_at time encoded in the key, in UTC.
func (k RowKey) Time() time.Time { return time.Unix(k.Seconds(), 0).UTC() }

// Hash returns the Murmur2 hash encoded in the key.
func (k RowKey) Hash() uint32 { return binary.BigEndian.Uint32(k[8:]) }

// String renders the key as 24 lower-case hex digits.
func (k RowKey) String() string { return hex.EncodeToString(k[:]) }

// RawEnd returns a raw table key after every key of the tweets filed
// under k (k followed by an 8-byte id) and before the next row key's: the
// end of the raw range [k, k.RawEnd()) of one row key.
func (k RowKey) RawEnd() []byte {
	return append(append(make([]byte, 0, RawKeyLen+1), k[:]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
}

// RowKeyStart returns the smallest row key at or after Unix second sec: the
// lower bound of a time-range scan.
func RowKeyStart(sec int64) RowKey {
	var k RowKey
	binary.BigEndian.PutUint64(k[:8], uint64(sec))
	return k
}
