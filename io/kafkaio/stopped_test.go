package kafkaio

import (
	"context"
	"errors"
	"testing"
)

// TestStoppedByDrain checks what a read does before each fetch once it is
// drained. A drain closes the drain channel and cancels the read's
// context (untilDrained) at once; a select over both picks either, and a
// read that took the cancelled context for a failure failed the pipeline
// of a drained stream ("kafkaio.readFn: context canceled") about once in
// a hundred SIGTERMs. With both ready, every try must say drained.
func TestStoppedByDrain(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errDrained)
	for range 200 {
		if out, stop, err := stopped(ctx, closed); out != drained || !stop || err != nil {
			t.Fatalf("drained and its context cancelled by the drain: outcome %v, stop %v, err %v; want drained", out, stop, err)
		}
	}
	if out, stop, err := stopped(ctx, make(chan struct{})); out != drained || !stop || err != nil {
		t.Errorf("context cancelled by a drain: outcome %v, stop %v, err %v; want drained", out, stop, err)
	}
	other, cancelOther := context.WithCancel(context.Background())
	cancelOther()
	if _, stop, err := stopped(other, make(chan struct{})); !stop || !errors.Is(err, context.Canceled) {
		t.Errorf("context cancelled (not by a drain): stop %v, err %v; want context.Canceled", stop, err)
	}
	if _, stop, err := stopped(context.Background(), nil); stop || err != nil {
		t.Errorf("neither drained nor cancelled: stop %v, err %v; want to go on", stop, err)
	}
}
