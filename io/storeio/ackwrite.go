package storeio

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
// once a bundle's writes are durable, returns the bundle's acknowledgements
// as KV<source, encoded acks> (schemas.DecodeAcks), one per source, for
// kafkaio.CommitAcked.
func WriteAcked(s beam.Scope, dir string, cells beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("storeio.Write"), &ackWriteFn{W: WriteFn{Dir: absDir(dir)}}, cells)
}

// ackWriteFn is the DoFn of WriteAcked: a WriteFn that keeps the
// acknowledgements of a bundle until FinishBundle has made its writes
// durable.
type ackWriteFn struct {
	W WriteFn

	acks schemas.AckSet
}

// Setup opens the store.
func (f *ackWriteFn) Setup() error {
	f.acks = schemas.AckSet{}
	return f.W.Setup()
}

// ProcessElement adds the batch's cells to the bundle's writes and its
// acknowledgements to the bundle's.
func (f *ackWriteFn) ProcessElement(ctx context.Context, cells []schemas.Cell, _ func(string, []byte)) error {
	cells, err := schemas.SplitAcks(cells, f.acks)
	if err != nil || len(cells) == 0 {
		return err
	}
	return f.W.ProcessElement(ctx, cells)
}

// FinishBundle makes the bundle's writes durable, then hands on its
// acknowledgements.
func (f *ackWriteFn) FinishBundle(ctx context.Context, emit func(string, []byte)) error {
	return f.acks.Release(f.W.FinishBundle(ctx), emit)
}

// Teardown releases the store.
func (f *ackWriteFn) Teardown() error { return f.W.Teardown() }
