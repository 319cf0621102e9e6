package kafkaio

import "github.com/tweetindex/tweetindex/transforms/flow"

// Namespace is the Beam metrics namespace of the counters, the project's
// (flow.Namespace): the counters are flow.Counters, so a run in this
// process also sees them as they go (flow.LocalCounters).
const Namespace = flow.Namespace

// Counter names.
const (
	CounterRecordsRead    = "kafka_records_read"    // records emitted
	CounterBytesRead      = "kafka_bytes_read"      // bytes of their values
	CounterReconnects     = "kafka_reconnects"      // failed broker calls retried
	CounterOffsetsSkipped = "kafka_offsets_skipped" // offsets deleted by the broker before they were read
	CounterAcksOver       = "kafka_acks_over"       // records acknowledged beyond their expectation (a bug; see OverAcknowledged)
)

var (
	recordsRead    = flow.NewCounter(CounterRecordsRead)
	bytesRead      = flow.NewCounter(CounterBytesRead)
	reconnects     = flow.NewCounter(CounterReconnects)
	offsetsSkipped = flow.NewCounter(CounterOffsetsSkipped)
	acksOver       = flow.NewCounter(CounterAcksOver)
)
