// Package query answers questions from the tables: counts over time, tweets
// by term, tweets in a box on a day, the ten questions the seed thesis
// evaluated its indexes with.
//
// Counts come from the indexes, never from the raw tweets: totals and time
// series from TweetFrequency, terms from TermIndex, boxes from
// GeoTemporalIndex, tweets per user from TweetAuthors (the index of
// authors over time; a sink indexed before it reads the raw rows).
// Retrieval reads the index, then the raw rows it points at. Every question has a second answer, by a full scan of the raw table
// (Scan), which the tests compare with the index answer and the benchmark
// times against it.
//
// The same code reads the embedded store and Cassandra (sink.Reader): a key
// range of a table is a range scan of the store, and on Cassandra the
// partitions the range covers, each read in clustering order.
package query
