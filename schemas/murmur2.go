package schemas

// Murmur2Seed is the seed Kafka's partitioner uses for MurmurHash2, and the
// seed of every hash in this project's keys.
const Murmur2Seed uint32 = 0x9747b28c

// Murmur2 is the 32-bit MurmurHash2 of data with seed 0x9747b28c, bit for bit
// the function Kafka's default partitioner calls (org.apache.kafka.common.utils.Utils.murmur2),
// returned unsigned. It is not MurmurHash3: the two give different values.
func Murmur2(data []byte) uint32 {
	const (
		m = 0x5bd1e995
		r = 24
	)
	length := len(data)
	h := Murmur2Seed ^ uint32(length)
	n := length &^ 3
	for i := 0; i < n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch length & 3 {
	case 3:
		h ^= uint32(data[n+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[n+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[n])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
