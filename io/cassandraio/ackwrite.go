package cassandraio

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn3x1[context.Context, []schemas.Cell, func(string, []byte), error](&ackWriteFn{})
	register.Emitter2[string, []byte]()
}

// WriteAcked is Write for cells among which ride acknowledgements of Kafka
// records (schemas.Ack, TableAck cells): it writes the other cells and,
// once every write of a bundle is acknowledged by the cluster, returns the
// bundle's acknowledgements as KV<source, encoded acks>
// (schemas.DecodeAcks), one per source, for kafkaio.CommitAcked.
func WriteAcked(s beam.Scope, cfg Config, cells beam.PCollection) beam.PCollection {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	return beam.ParDo(s.Scope("cassandraio.Write"), &ackWriteFn{W: WriteFn{Config: cfg}}, cells)
}

// ackWriteFn is the DoFn of WriteAcked: a WriteFn that keeps the
// acknowledgements of a bundle until FinishBundle has its writes
// acknowledged.
type ackWriteFn struct {
	W WriteFn

	acks schemas.AckSet
}

// Setup acquires the shared session.
func (f *ackWriteFn) Setup() error {
	f.acks = schemas.AckSet{}
	return f.W.Setup()
}

// StartBundle starts the bundle's Writer.
func (f *ackWriteFn) StartBundle(_ func(string, []byte)) { f.W.StartBundle() }

// ProcessElement queues the batch's cells and keeps its acknowledgements.
func (f *ackWriteFn) ProcessElement(ctx context.Context, cells []schemas.Cell, _ func(string, []byte)) error {
	cells, err := schemas.SplitAcks(cells, f.acks)
	if err != nil || len(cells) == 0 {
		return err
	}
	return f.W.ProcessElement(ctx, cells)
}

// FinishBundle waits for the bundle's writes, then hands on its
// acknowledgements.
func (f *ackWriteFn) FinishBundle(ctx context.Context, emit func(string, []byte)) error {
	return f.acks.Release(f.W.FinishBundle(ctx), emit)
}

// Teardown releases the session.
func (f *ackWriteFn) Teardown() error { return f.W.Teardown() }
