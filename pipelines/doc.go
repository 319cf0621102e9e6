// Package pipelines holds the tweetindex graph and the run around it.
//
// The graph (graph.go: Build) is one Beam pipeline that reads tweets from
// archived files or Kafka, deduplicates them by id and fans out to every
// table derived from a tweet, then writes to the embedded store or to
// Cassandra; it builds without I/O. The run (run.go: Run) is its
// lifecycle: the sink's parameters and tokenizer version checked
// (params.go, tokenizer.go), the run recorded in the metadata table, the
// job run on a runner in process (prism) or through a job server
// (jobserver.go, prism.go), the bulk load flushed, marked minutes
// recounted and scrub_geo applied (both in pipelines/maintain), and the
// summary (summary.go) whose counts reconcile. A backfill (backfill.go) is
// a run over a range of archived files; coverage (coverage.go) reads what
// the recorded runs covered.
//
// What is done to a sink's tables outside a run (forget, check, dump,
// watch, and the steps that follow a run) is pipelines/maintain; the
// questions are pipelines/query, the HTTP server pipelines/serve, and the
// command pipelines/cmd/tweetindex.
package pipelines
