package schemas_test

import (
	"math/rand/v2"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestMurmur2KafkaVectors pins the hash to the values of Kafka's own test
// (org.apache.kafka.common.utils.UtilsTest.testMurmur2), which are signed
// Java ints.
func TestMurmur2KafkaVectors(t *testing.T) {
	tests := []struct {
		key  string
		want int32
	}{
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
		{"abc", 479470107},
	}
	for _, tt := range tests {
		if got := int32(schemas.Murmur2([]byte(tt.key))); got != tt.want {
			t.Errorf("Murmur2(%q) = %d, want %d", tt.key, got, tt.want)
		}
	}
}

// TestMurmur2MatchesKafkaGo checks Murmur2 against kafka-go's
// Murmur2Balancer, which picks partition (murmur2(key) & 0x7fffffff) % n.
// With n = 65521 and 65519 (coprime, product above 2^31) the two partitions
// determine the masked hash completely.
func TestMurmur2MatchesKafkaGo(t *testing.T) {
	var lists [][]int
	for _, n := range []int{65521, 65519, 7} {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		lists = append(lists, p)
	}
	b := kafka.Murmur2Balancer{Consistent: true}
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 5000; i++ {
		key := make([]byte, r.IntN(64))
		for j := range key {
			key[j] = byte(r.Uint32())
		}
		h := schemas.Murmur2(key) & 0x7fffffff
		for _, p := range lists {
			if got, want := b.Balance(kafka.Message{Key: key}, p...), int(h%uint32(len(p))); got != want {
				t.Fatalf("key %x, %d partitions: kafka-go picks %d, Murmur2 gives %d", key, len(p), got, want)
			}
		}
	}
}
