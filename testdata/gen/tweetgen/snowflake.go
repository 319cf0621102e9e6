package tweetgen

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// twitterEpoch is the Unix millisecond of Twitter's snowflake epoch.
const twitterEpoch = 1288834974657

// snowflake returns the id Twitter would give to something created at ms
// (Unix milliseconds) by datacenter dc and worker w as its seq-th id in that
// millisecond: 41 bits of time, 5 + 5 bits of machine, 12 bits of sequence.
// The id is consistent with created_at: id>>22 + epoch is the millisecond.
func snowflake(ms int64, dc, w, seq uint64) uint64 {
	return uint64(ms-twitterEpoch)<<22 | (dc&31)<<17 | (w&31)<<12 | seq&4095
}

// snowflakeAt returns a plausible id for ms, with the machine and sequence
// bits drawn from r, chosen so that the float-mangled form of the id (see
// appendMangledID) differs from the exact id.
func snowflakeAt(r *rand.Rand, ms int64) uint64 {
	seq := uint64(r.IntN(8))
	if r.IntN(10) == 0 {
		seq = uint64(r.IntN(300))
	}
	id := snowflake(ms, uint64(r.IntN(32)), uint64(r.IntN(32)), seq)
	return unmangleable(id)
}

// unmangleable returns id, or a neighbour of it in the same millisecond,
// whose float-mangled form differs from its exact decimal form.
func unmangleable(id uint64) uint64 {
	for {
		var a, b [24]byte
		if string(appendMangledID(a[:0], id)) != string(strconv.AppendUint(b[:0], id, 10)) {
			return id
		}
		id++
	}
}

// timeOfMS returns the UTC time of a Unix millisecond.
func timeOfMS(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
