package flow

import (
	"context"
	"runtime"
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

	if !WaitBacklog(ctx, time.Hour, 0) {
		t.Fatal("WaitBacklog with an empty backlog: false, want true at once")
	}

	AddBacklog(MaxBacklog + 100)
	if WaitBacklog(ctx, time.Millisecond, 0) {
		t.Fatal("WaitBacklog over MaxBacklog with no take: true, want false after its wait")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if WaitBacklog(cancelled, time.Hour, 0) {
		t.Fatal("WaitBacklog with a cancelled context: true, want false")
	}

	// A take that leaves the backlog above MaxBacklog does not release
	// the reader; the one that brings it to MaxBacklog does, before the
	// hour is up, whether it comes before or after the reader waits.
	done := make(chan bool)
	go func() { done <- WaitBacklog(ctx, time.Hour, 0) }()
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

// TestWaitBacklogOnOwnTweets: a reader does not wait on tweets that only
// the end of its own bundle, or of the bundles of the other readers
// waiting, can release; it waits on those of bundles that are not waiting.
// (giveUps tells a give-up from the end of a wait: a broken build fails
// after giveUpWait.)
func TestWaitBacklogOnOwnTweets(t *testing.T) {
	const giveUpWait = 20 * time.Second
	EnableLocalFlowControl()
	backlog.Store(0)
	t.Cleanup(func() { backlog.Store(0) })
	ctx := context.Background()

	// Its own 200 tweets are what is over MaxBacklog: it gives up.
	AddBacklog(MaxBacklog + 100)
	given := giveUps.Load()
	if WaitBacklog(ctx, giveUpWait, 200) || giveUps.Load() != given+1 {
		t.Fatalf("WaitBacklog over MaxBacklog by the caller's own tweets: did not give up (%d give-ups)", giveUps.Load()-given)
	}
	if n := held.Load(); n != 0 {
		t.Fatalf("held after WaitBacklog returned: %d, want 0", n)
	}

	// Two readers, each holding 60: neither's tweets alone are the excess
	// of 100, both together are. The first waits; the second's arrival
	// makes both give up.
	first := make(chan bool)
	go func() { first <- WaitBacklog(ctx, giveUpWait, 60) }()
	waitHeld(t, 60)
	select {
	case ok := <-first:
		t.Fatalf("WaitBacklog holding 60 of an excess of 100 returned %v alone", ok)
	default:
	}
	given = giveUps.Load()
	if WaitBacklog(ctx, giveUpWait, 60) {
		t.Fatal("the second WaitBacklog holding 60: true, want false")
	}
	if <-first {
		t.Fatal("the first WaitBacklog holding 60: true, want false")
	}
	if giveUps.Load() != given+1 {
		t.Fatalf("%d give-ups for the two readers, want 1", giveUps.Load()-given)
	}

	// Tweets of a bundle that is not waiting drain: a reader holding 10
	// waits for them and is released when they are taken.
	done := make(chan bool)
	go func() { done <- WaitBacklog(ctx, time.Hour, 10) }()
	waitHeld(t, 10)
	AddBacklog(-100)
	if !<-done {
		t.Fatal("WaitBacklog after the others' tweets drained: false, want true")
	}
}

// waitHeld waits until the readers waiting in WaitBacklog hold n tweets.
func waitHeld(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for held.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("held %d, want %d", held.Load(), n)
		}
		runtime.Gosched()
	}
}

// TestBacklogStall: readers stop pausing once the backlog has stayed over
// MaxBacklog with no tweet taken for StallLimit (tweets a runner holds
// back until the input ends would otherwise pause them for good), and
// pause again once deduplication takes tweets.
func TestBacklogStall(t *testing.T) {
	EnableLocalFlowControl()
	at := time.Unix(1_800_000_000, 0)
	clock = func() time.Time { return at }
	backlog.Store(0)
	t.Cleanup(func() { backlog.Store(0); clock = time.Now })
	ctx := context.Background()

	stalls0 := Stalls()
	AddBacklog(MaxBacklog + 100)
	if !Backlogged() {
		t.Fatal("over MaxBacklog just now: not backlogged")
	}
	at = at.Add(StallLimit)
	if !Backlogged() || WaitBacklog(ctx, time.Millisecond, 0) {
		t.Fatal("over MaxBacklog with no take for StallLimit exactly: readers do not pause")
	}
	at = at.Add(time.Second)
	if Backlogged() {
		t.Fatal("no take for longer than StallLimit: readers still pause")
	}
	if !WaitBacklog(ctx, time.Hour, 0) {
		t.Fatal("WaitBacklog in a stall: false, want true at once")
	}
	if n := Stalls() - stalls0; n != 1 {
		t.Fatalf("%d stalls counted, want 1", n)
	}
	AddBacklog(-10) // still over MaxBacklog, but deduplication runs again
	if !Backlogged() {
		t.Fatal("a take after the stall: readers do not pause again")
	}
}
