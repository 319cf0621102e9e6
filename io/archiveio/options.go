package archiveio

// Defaults of Options.
const (
	DefaultBatchRecords     = 1024
	DefaultBatchBytes       = 4 << 20
	DefaultMaxRecordBytes   = 16 << 20
	DefaultMaxDocumentBytes = 512 << 20
)

// faultDataBytes is how much of an oversized record is kept as its Data.
const faultDataBytes = 1 << 10

// maxDepth bounds the nesting of archives and compression layers, so that a
// crafted file cannot recurse without end.
const maxDepth = 8

// Options tunes ReadFile and Read. The zero value selects the defaults.
type Options struct {
	// BatchRecords is the largest number of records in one batch
	// (DefaultBatchRecords if 0).
	BatchRecords int
	// BatchBytes is the number of record bytes after which a batch is
	// complete (DefaultBatchBytes if 0). A batch may exceed it by one record.
	BatchBytes int
	// MaxRecordBytes is the longest line accepted (DefaultMaxRecordBytes if
	// 0). A longer line becomes a faulted record holding its first KiB.
	MaxRecordBytes int
	// MaxDocumentBytes is the largest whole-document record accepted, such
	// as a tweets.js or a pretty-printed API response
	// (DefaultMaxDocumentBytes if 0). Such a document is held in memory
	// whole; a larger one becomes a faulted record holding its first KiB.
	MaxDocumentBytes int
	// Range, when set, skips the files and archive members whose path
	// names a time outside it (see PathInterval): a backfill of two hours
	// of a daily Stream Grab tar decompresses two hours of members.
	Range TimeRange
	// Paced is for Read: each file is read in steps of at most
	// DefaultBundleBatches batches, checkpointing between them, with a
	// pause while a run whose stages share its process is behind
	// (flow.Backlogged), so that the run's memory does not grow with what
	// it reads: for a runner that passes a bundle's output on only when
	// the bundle ends (prism). Its output is then unbounded to Beam (a
	// splittable DoFn that checkpoints). Off (the default), each file is
	// read in one call, and the output is a bounded PCollection: what
	// Flink and Dataflow run as a batch job.
	Paced bool
}

func (o Options) withDefaults() Options {
	if o.BatchRecords <= 0 {
		o.BatchRecords = DefaultBatchRecords
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if o.MaxDocumentBytes <= 0 {
		o.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	return o
}

// Stats counts what ReadFile read from one file.
type Stats struct {
	// Records is the number of records passed to the callback, faulted
	// ones included.
	Records int64
	// Bytes is the number of bytes read from disk (compressed bytes).
	Bytes int64
	// Faults is the number of records that carry a Fault.
	Faults int64
}
