package cassandraio

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

// ring maps a partition's token to the node that owns it (the first
// replica: the node whose token is the first at or after the partition's
// on the ring, wrapping around), as Cassandra's Murmur3Partitioner places
// partitions. The Writer groups the rows of partitions one node owns into
// one request, which the token-aware policy sends to that node.
type ring struct {
	tokens []int64 // sorted
	owners []int32 // owners[i] owns the range that ends at tokens[i]
}

// hostTokens is what the ring needs of a node: its partitioner and tokens.
type hostTokens struct {
	partitioner string
	tokens      []string
}

// ringOf reads the ring from the driver's view of the cluster (newRing).
func ringOf(hosts []*gocql.HostInfo) *ring {
	hs := make([]hostTokens, len(hosts))
	for i, h := range hosts {
		hs[i] = hostTokens{h.Partitioner(), h.Tokens()}
	}
	return newRing(hs)
}

// newRing returns the ring of the nodes hosts. It returns nil (every
// partition in one group) for a cluster of one node, or one whose
// partitioner is not Murmur3 or whose tokens are unknown.
func newRing(hosts []hostTokens) *ring {
	if len(hosts) < 2 {
		return nil
	}
	type entry struct {
		token int64
		owner int32
	}
	var ents []entry
	for i, h := range hosts {
		if h.partitioner != "" && !strings.HasSuffix(h.partitioner, "Murmur3Partitioner") {
			return nil
		}
		for _, t := range h.tokens {
			v, err := strconv.ParseInt(t, 10, 64)
			if err != nil {
				return nil
			}
			ents = append(ents, entry{v, int32(i)})
		}
	}
	if len(ents) == 0 {
		return nil
	}
	slices.SortFunc(ents, func(a, b entry) int { return cmp.Compare(a.token, b.token) })
	r := &ring{tokens: make([]int64, len(ents)), owners: make([]int32, len(ents))}
	for i, e := range ents {
		r.tokens[i], r.owners[i] = e.token, e.owner
	}
	return r
}

// owner returns the node that owns token t (0 for a nil ring).
func (r *ring) owner(t int64) int32 {
	if r == nil {
		return 0
	}
	i, _ := slices.BinarySearch(r.tokens, t)
	if i == len(r.tokens) {
		i = 0
	}
	return r.owners[i]
}

// appendRoutingKey appends the serialized partition key of a row of table
// ct whose bind values are vals (schemas.CQLValues), as Cassandra hashes
// it: one column's value as is; several columns each as a 2-byte length,
// the value and a 0 byte.
func appendRoutingKey(dst []byte, ct *schemas.CQLTable, vals []any) []byte {
	pk := ct.PartitionKey
	if len(pk) == 1 {
		return appendCQLValue(dst, pk[0].Type, vals[0])
	}
	for i, col := range pk {
		at := len(dst)
		dst = append(dst, 0, 0)
		dst = appendCQLValue(dst, col.Type, vals[i])
		binary.BigEndian.PutUint16(dst[at:], uint16(len(dst)-at-2))
		dst = append(dst, 0)
	}
	return dst
}

// appendCQLValue appends the CQL serialization of v, a bind value of type
// t as schemas.CQLValues gives it.
func appendCQLValue(dst []byte, t schemas.CQLType, v any) []byte {
	switch v := v.(type) {
	case string:
		return append(dst, v...)
	case []byte:
		return append(dst, v...)
	case int8:
		return append(dst, byte(v))
	case int16:
		return binary.BigEndian.AppendUint16(dst, uint16(v))
	case int32:
		return binary.BigEndian.AppendUint32(dst, uint32(v))
	case int64:
		return binary.BigEndian.AppendUint64(dst, uint64(v))
	case float32:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(v))
	case time.Time:
		if t == schemas.CQLDate {
			days := v.Unix() / 86400
			return binary.BigEndian.AppendUint32(dst, uint32(days+1<<31))
		}
		return binary.BigEndian.AppendUint64(dst, uint64(v.UnixMilli()))
	}
	return dst
}

// murmur3Token is the token Cassandra's Murmur3Partitioner gives a
// partition key: the first 64 bits of MurmurHash3_x64_128 with seed 0, as
// Cassandra computes it (its bytes taken as signed, which differs from
// the reference hash for keys with bytes of 0x80 and above in their
// tail), Long.MIN_VALUE mapped to Long.MAX_VALUE.
//
// Adapted from the gocql driver's internal/murmur package (Apache License
// 2.0; Copyright (c) 2016, The Gocql authors, BSD-3-Clause before that),
// which its token-aware policy uses to route requests.
func murmur3Token(data []byte) int64 {
	const (
		c1 = -8663945395140668459 // 0x87c37b91114253d5
		c2 = 5545529020109919103  // 0x4cf5ad432745937f
	)
	length := len(data)
	var h1, h2, k1, k2 int64
	n := length / 16
	for i := 0; i < n; i++ {
		k1 = int64(binary.LittleEndian.Uint64(data[i*16:]))
		k2 = int64(binary.LittleEndian.Uint64(data[i*16+8:]))

		k1 *= c1
		k1 = rotl(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = rotl(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= c2
		k2 = rotl(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = rotl(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[n*16:]
	k1, k2 = 0, 0
	block := func(i int) int64 { return int64(int8(tail[i])) }
	switch length & 15 {
	case 15:
		k2 ^= block(14) << 48
		fallthrough
	case 14:
		k2 ^= block(13) << 40
		fallthrough
	case 13:
		k2 ^= block(12) << 32
		fallthrough
	case 12:
		k2 ^= block(11) << 24
		fallthrough
	case 11:
		k2 ^= block(10) << 16
		fallthrough
	case 10:
		k2 ^= block(9) << 8
		fallthrough
	case 9:
		k2 ^= block(8)
		k2 *= c2
		k2 = rotl(k2, 33)
		k2 *= c1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= block(7) << 56
		fallthrough
	case 7:
		k1 ^= block(6) << 48
		fallthrough
	case 6:
		k1 ^= block(5) << 40
		fallthrough
	case 5:
		k1 ^= block(4) << 32
		fallthrough
	case 4:
		k1 ^= block(3) << 24
		fallthrough
	case 3:
		k1 ^= block(2) << 16
		fallthrough
	case 2:
		k1 ^= block(1) << 8
		fallthrough
	case 1:
		k1 ^= block(0)
		k1 *= c1
		k1 = rotl(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= int64(length)
	h2 ^= int64(length)
	h1 += h2
	h2 += h1
	h1 = fmix(h1)
	h2 = fmix(h2)
	h1 += h2
	if h1 == math.MinInt64 {
		return math.MaxInt64
	}
	return h1
}

func fmix(n int64) int64 {
	n ^= int64(uint64(n) >> 33)
	n *= -49064778989728563 // 0xff51afd7ed558ccd
	n ^= int64(uint64(n) >> 33)
	n *= -4265267296055464877 // 0xc4ceb9fe1a85ec53
	n ^= int64(uint64(n) >> 33)
	return n
}

func rotl(x int64, r uint8) int64 {
	return (x << r) | int64(uint64(x)>>(64-r))
}
