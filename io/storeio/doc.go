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
// A store is opened once per process and shared: Beam runs several bundles
// of the sink at once in one process under prism and the portable runner
// with LOOPBACK workers, and Pebble allows one process per directory. Workers
// in other processes or machines (Flink, Dataflow) need the Cassandra sink.
package storeio
