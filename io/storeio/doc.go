// Package storeio is the embedded store: every table (README, "Tables and
// keys") in one Pebble database (github.com/cockroachdb/pebble/v2, the LSM
// engine under CockroachDB), so that `make run` works on a laptop with
// nothing installed.
//
// Layout: one ordered key space; a key is the table's byte
// (schemas.Table) followed by the table's own key (schemas.*Row.Cell). Every
// read the indexes serve is therefore a range scan:
//
//	raw        'r' + row key + tweet id           time range = key range
//	authors    'u' + row key + tweet id           as raw: language, screen name
//	identity   'i' + tweet id                     -> row key (or a tombstone)
//	terms      't' + term 0 field 0 + row key     a term's tweets, in time order
//	frequency  'f' + YYYYMMDDhhmm + lang          a time series = key range
//	geo        'g' + spread + day + geohash + row key
//	deadletter 'd' + source 0 + line [+ item]     item when > 0 (schemas.DeadLetterRow)
//	meta       'm' + name
//
// A bounded run whose workers run in the submitting process bulk loads the
// store (OpenBulk, BulkWrite): no write-ahead log, and the raw tweets, the
// term index and the authors table, nearly all of a tweet's cells and
// bytes, bypass the memtable: their cells are sorted in memory a chunk at a
// time, spilled as sorted runs, and merged into sorted tables, written
// around the page cache where the system allows it (direct.go), that
// Pebble ingests at the end of the run (FlushOpen): most of them merged
// while the run reads the last of its input (MergeEarly; the end takes
// over the key ranges of that merge not begun when the input is read),
// the rest at the end, in one sublevel above them (bulkload.go); reads
// during the run (Get, Scan) see them. The run then compacts the rest
// (CompactOpen): the identity, geo and smaller tables.
//
// A store is opened once per process and shared: Beam runs several bundles
// of the sink at once in one process under prism and the portable runner
// with LOOPBACK workers, and Pebble allows one process per directory. Workers
// in other processes or machines (Flink, Dataflow) need the Cassandra sink.
//
// The open databases are therefore a process-wide registry (store.go's
// opened, by absolute directory), not a field of a DoFn or a pipeline: the
// runner creates and tears down DoFn instances (the writers, the identity
// reads, the run's own reads) on its own schedule, none of which owns the
// database, and a second pebble.Open of the directory would fail on its
// lock. Each Open, OpenBulk or OpenRead counts a reference and returns the
// one shared *Store, opened with the first opener's options; each needs
// exactly one Close, and the last flushes and closes the database, which
// frees the directory for another process (TestOpenCountsReferences).
// Snapshots (OpenReadOrSnapshot) are read-only copies outside the registry.
package storeio
