package sink

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/storeio"
)

// The pipeline's side of a sink: the composites a run's graph uses to look
// up and write the tables, each choosing the embedded store's or
// Cassandra's. Config's Store or Cassandra names the sink; its reader
// fields (Create, CacheSize, Snapshot) do not apply.

// Identify applies the sink's identity table to deduplicated tweet batches
// (one stored version per tweet id across runs, deletions applied):
// storeio.Identify or cassandraio.Identify. bulk says the embedded store
// is bulk loaded (Cassandra ignores it), fresh that the sink holds no
// identity row, ack that the batches carry acknowledgements.
func Identify(s beam.Scope, c Config, bulk, fresh, ack bool, tweets beam.PCollection) beam.PCollection {
	if c.Cassandra != nil {
		return cassandraio.Identify(s, *c.Cassandra, fresh, ack, tweets)
	}
	return storeio.Identify(s, c.Store, bulk, fresh, ack, tweets)
}

// Write writes a PCollection of []schemas.Cell to the sink: a bulk load
// of the embedded store if bulk (storeio.BulkWrite), its writer otherwise
// (storeio.Write), or Cassandra's (cassandraio.Write).
func Write(s beam.Scope, c Config, bulk bool, cells beam.PCollection) {
	switch {
	case c.Cassandra != nil:
		cassandraio.Write(s, *c.Cassandra, cells)
	case bulk:
		storeio.BulkWrite(s, c.Store, cells)
	default:
		storeio.Write(s, c.Store, cells)
	}
}

// WriteAcked is Write for cells among which ride acknowledgements of Kafka
// records (schemas.Ack cells): once a bundle's writes are durable it
// returns the bundle's acknowledgements, KV<source, encoded acks>, for
// kafkaio.CommitAcked.
func WriteAcked(s beam.Scope, c Config, cells beam.PCollection) beam.PCollection {
	if c.Cassandra != nil {
		return cassandraio.WriteAcked(s, *c.Cassandra, cells)
	}
	return storeio.WriteAcked(s, c.Store, cells)
}
