package transforms

import "testing"

func TestShardOfSpreadsSnowflakeIDs(t *testing.T) {
	// Snowflake ids of one millisecond differ only in their low bits; they
	// must still spread over the shards.
	const n = 16
	var hits [n]int
	base := uint64(1852732849337180160) // 2024-11, sequence 0
	for seq := uint64(0); seq < 1600; seq++ {
		hits[ShardOf(base+seq<<1, n)]++
	}
	for s, h := range hits {
		if h < 50 || h > 150 {
			t.Errorf("shard %d got %d of 1600 ids; want about 100", s, h)
		}
	}
}
