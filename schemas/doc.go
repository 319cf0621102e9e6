// Package schemas holds what every other package agrees on: the normalized
// tweet, the record it is parsed from and where that record came from, the
// row keys, and the byte layout of every table (README, "Tables and keys").
//
// Nothing in this package knows about Beam, Kafka or Cassandra; transforms,
// io and pipelines build on it, never the other way round.
package schemas
