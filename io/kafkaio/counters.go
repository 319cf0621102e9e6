package kafkaio

import "github.com/apache/beam/sdks/v2/go/pkg/beam"

// Namespace is the Beam metrics namespace of the counters, the project's
// (flow.Namespace).
const Namespace = "tweetindex"

// Counter names.
const (
	CounterRecordsRead    = "kafka_records_read"    // records emitted
	CounterBytesRead      = "kafka_bytes_read"      // bytes of their values
	CounterReconnects     = "kafka_reconnects"      // failed broker calls retried
	CounterOffsetsSkipped = "kafka_offsets_skipped" // offsets deleted by the broker before they were read
	CounterAcksOver       = "kafka_acks_over"       // records acknowledged beyond their expectation (a bug; see OverAcknowledged)
)

var (
	recordsRead    = beam.NewCounter(Namespace, CounterRecordsRead)
	bytesRead      = beam.NewCounter(Namespace, CounterBytesRead)
	reconnects     = beam.NewCounter(Namespace, CounterReconnects)
	offsetsSkipped = beam.NewCounter(Namespace, CounterOffsetsSkipped)
	acksOver       = beam.NewCounter(Namespace, CounterAcksOver)
)
