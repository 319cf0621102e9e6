// Package job runs the tweetindex graph (package pipelines) and keeps the
// record of its runs.
//
// Run is a run's lifecycle: the sink is read once before the graph is
// built (a fresh sink, a resumed stream's counts, the index parameters
// and the tokenizer version: params.go, tokenizer.go, resume.go) and the
// run recorded in its metadata table (RunRecord; runproc.go marks the runs
// whose process is gone); the job runs on prism in process or through a
// job server (prism.go, jobserver.go), a failure explained in one line
// (failure.go); then the bulk load is flushed, marked minutes recounted
// and scrub_geo applied (pipelines/maintain), and the Summary (summary.go)
// returned, whose counts reconcile. Progress reports a long run's
// progress; Backfill is a run over a range of archived files, and
// CoverageOf what the recorded runs covered.
package job
