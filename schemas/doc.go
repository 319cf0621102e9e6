// Package schemas holds what every other package agrees on: the normalized
// tweet, the record it is parsed from and where that record came from, the
// row keys, and the byte layout of every table (docs/tables.md).
//
// It knows Beam only to register the coders of Record and Cell (coder.go),
// where the types live, so that every pipeline that shuffles them uses the
// same ones; and Cassandra only as the CQL mapping of the tables (cql*.go:
// statements and values, no driver). transforms, io and pipelines build on
// it, never the other way round.
package schemas
