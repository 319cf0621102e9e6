package flow

import (
	"context"
	"testing"
	"time"
)

// TestWaitBacklog: a reader waiting for the backlog to drain is released
// by the take that brings it to MaxBacklog, gives up after its wait or
// when its context ends, and does not wait at all when nothing is
// backlogged.
func TestWaitBacklog(t *testing.T) {
	EnableLocalFlowControl()
	backlog.Store(0)
	t.Cleanup(func() { backlog.Store(0) })
	ctx := context.Background()

	if !WaitBacklog(ctx, time.Hour) {
		t.Fatal("WaitBacklog with an empty backlog: false, want true at once")
	}

	AddBacklog(MaxBacklog + 100)
	if WaitBacklog(ctx, time.Millisecond) {
		t.Fatal("WaitBacklog over MaxBacklog with no take: true, want false after its wait")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if WaitBacklog(cancelled, time.Hour) {
		t.Fatal("WaitBacklog with a cancelled context: true, want false")
	}

	// A take that leaves the backlog above MaxBacklog does not release
	// the reader; the one that brings it to MaxBacklog does, before the
	// hour is up, whether it comes before or after the reader waits.
	done := make(chan bool)
	go func() { done <- WaitBacklog(ctx, time.Hour) }()
	AddBacklog(-50)
	select {
	case ok := <-done:
		t.Fatalf("WaitBacklog returned %v with %d tweets backlogged (max %d)", ok, backlog.Load(), MaxBacklog)
	default:
	}
	AddBacklog(-50)
	if !<-done {
		t.Fatal("WaitBacklog after the backlog drained: false, want true")
	}
}
