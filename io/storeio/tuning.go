package storeio

import "github.com/cockroachdb/pebble/v2"

// bulkTuning sets the options of a bulk load (OpenBulk) besides the missing
// write-ahead log: first-level tables are compacted in larger groups (64
// instead of 16) into a larger base level (1 GiB instead of 256 MiB), so
// that each byte is rewritten fewer times while the load goes on. Measured
// on 1M generated tweets over an hour (2 cores): 106 s -> 76 s, CPU 194 s
// -> 138 s. The load leaves up to 64 first-level files behind; the run
// compacts them away at its end (CompactOpen, on every core), or the next
// opener, a query, would (50K tweets: 56 files, 86 MB; compacted in
// 1.5-2.7 s on the loaded machine, where the first query took 4.8 s
// instead of 1.8 s compacting them itself). At 1M tweets an end
// compaction was measured at 35-40 s with one compaction at a time.
// Value separation of the raw JSON into blob files made no difference.
// (Those figures are from before the raw, term and authors tables went
// around the memtable, bulkload.go: what the memtable takes now is the
// identity, geo and smaller tables, a few per cent of the bytes.)
func bulkTuning(o *pebble.Options) {
	o.L0CompactionThreshold = 64
	o.LBaseMaxBytes = 1 << 30
}
