// Package pipelines holds the tweetindex graph (graph.go): one Beam
// pipeline that reads tweets from archived files or Kafka, deduplicates
// them by id and fans out to every table derived from a tweet, then
// writes to the embedded store or to Cassandra. Config says what it reads
// and writes; Build adds the graph to a scope and does no I/O.
//
// Around it: pipelines/job runs the graph (Run) and keeps the record of
// its runs; pipelines/maintain is what is done to the tables outside a
// run (forget, check, the recounts that end a run); pipelines/query asks
// the questions, pipelines/serve serves them over HTTP, and
// pipelines/cmd/tweetindex is the command.
package pipelines
