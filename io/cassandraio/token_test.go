package cassandraio

import (
	"bytes"
	"encoding/hex"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestMurmur3Token checks the token against values of Cassandra's
// Murmur3Partitioner (the DataStax Java driver's, as gocql's tests list
// them), a tail of every length among them, and a key whose tail has
// bytes of 0x80 and above, which Cassandra takes as signed.
func TestMurmur3Token(t *testing.T) {
	series := []uint64{
		0x0000000000000000, 0x2ac9debed546a380, 0x649e4eaa7fc1708e, 0xce68f60d7c353bdb,
		0x0f95757ce7f38254, 0x0f04e459497f3fc1, 0x88c0a92586be0a27, 0x13eb9fb82606f7a6,
		0x8236039b7387354d, 0x4c1e87519fe738ba, 0x3f9652ac3effeb24, 0x3f33760ded9006c6,
		0xaed70a6631854cb1, 0x8a299a8f8e0e2da7, 0x624b675c779249a6, 0xa4b203bb1d90b9a3,
		0xa3293ad698ecb99a, 0xbc740023dbd50048, 0x3fe5ab9837d25cdd, 0x2d0338c1ca87d132,
	}
	sample := ""
	for i, want := range series {
		if got := murmur3Token([]byte(sample)); got != int64(want) {
			t.Errorf("murmur3Token(%q) = %#x, want %#x", sample, uint64(got), want)
		}
		sample += strconv.Itoa(i % 10)
	}
	for s, want := range map[string]uint64{"hello": 0xcbd8a7b341bd9b02, "The quick brown fox jumps over the lazy dog.": 0xcd99481f9ee902c9} {
		if got := murmur3Token([]byte(s)); got != int64(want) {
			t.Errorf("murmur3Token(%q) = %#x, want %#x", s, uint64(got), want)
		}
	}
	key, _ := hex.DecodeString("00104327529fb645dd00b883ec39ae448bb800000400066a6b00")
	if got, want := murmur3Token(key), int64(-9223371632693506265); got != want {
		t.Errorf("murmur3Token(%x) = %d, want %d", key, got, want)
	}
}

func TestRingOwner(t *testing.T) {
	r := newRing([]hostTokens{
		{"org.apache.cassandra.dht.Murmur3Partitioner", []string{"100", "-50"}},
		{"org.apache.cassandra.dht.Murmur3Partitioner", []string{"0", "200"}},
	})
	// Ranges (prev, t] belong to t's node; past the last token, the first's.
	for tok, want := range map[int64]int32{math.MinInt64: 0, -50: 0, -49: 1, 0: 1, 1: 0, 100: 0, 150: 1, 200: 1, 201: 0, math.MaxInt64: 0} {
		if got := r.owner(tok); got != want {
			t.Errorf("owner(%d) = %d, want %d", tok, got, want)
		}
	}
	for name, hosts := range map[string][]hostTokens{
		"one node":          {{"", []string{"1"}}},
		"other partitioner": {{"org.apache.cassandra.dht.RandomPartitioner", []string{"1"}}, {"", []string{"2"}}},
		"no tokens":         {{"", nil}, {"", nil}},
		"bad token":         {{"", []string{"x"}}, {"", []string{"2"}}},
	} {
		if r := newRing(hosts); r != nil || r.owner(5) != 0 {
			t.Errorf("%s: a ring of %d tokens, want none (every partition node 0's)", name, len(r.tokens))
		}
	}
}

// TestRoutingKey: one column's value as is; several, each as a 2-byte
// length, the value and a 0 byte; dates as days since 1970 plus 2^31,
// timestamps as milliseconds.
func TestRoutingKey(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	got := appendRoutingKey(nil, schemas.CQLTerms, []any{"rt", "text", day, int8(7), []byte("k"), int32(1)})
	days := uint32(day.Unix()/86400 + 1<<31)
	want := []byte{0, 2, 'r', 't', 0, 0, 4, 't', 'e', 'x', 't', 0, 0, 4, byte(days >> 24), byte(days >> 16), byte(days >> 8), byte(days), 0, 0, 1, 7, 0}
	if !bytes.Equal(got, want) {
		t.Errorf("term_index routing key %x, want %x", got, want)
	}
	if got := appendRoutingKey(nil, schemas.CQLIdentity, []any{int64(258), []byte("k")}); !bytes.Equal(got, []byte{0, 0, 0, 0, 0, 0, 1, 2}) {
		t.Errorf("tweet_identity routing key %x", got)
	}
	minute := time.Unix(1700000040, 0).UTC()
	got = appendRoutingKey(nil, schemas.CQLRaw, []any{minute, int8(3)})
	want = []byte{0, 8, 0, 0, 1, 0x8b, 0xcf, 0xe6, 0x04, 0x40, 0, 0, 1, 3, 0} // 1700000040000 ms
	if !bytes.Equal(got, want) {
		t.Errorf("raw_tweets routing key %x, want %x", got, want)
	}
}
