// Package pipelines holds the tweetindex graph (graph.go): one Beam pipeline
// that reads tweets from archived files or Kafka, deduplicates them by id and
// fans out to the four index tables, then writes to the embedded store or to
// Cassandra. The command that runs it is pipelines/cmd/tweetindex.
package pipelines
