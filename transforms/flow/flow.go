package flow

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Flow control for runs whose stages share one process (prism, the local
// runner, runs every stage in the process that submits the job). Prism has
// no backpressure: a file reader that outpaces deduplication and the sinks
// would queue the whole input in the runner's memory. ParseFn counts the
// tweets it sends to the dedup shuffle, DedupFn the tweets it takes
// (AddBacklog), and a reader asks Backlogged before it reads on.
//
// It is off unless EnableLocalFlowControl is called, which the pipeline's
// submitter does only for in-process runs: on a distributed runner the two
// counts live in different processes and would mean nothing.

var (
	localFlow atomic.Bool
	backlog   atomic.Int64
)

// MaxBacklog is how many tweets may wait between parsing and deduplication
// in a process before readers pause.
// Each waiting tweet is held about twice by prism (its queue, and the
// running bundle's input until the bundle ends): 32K took 1 M tweets
// over 30 days to 1.75 GB peak, 16K to 1.41 GB in about the same CPU
// time, 8K to 1.05 GB but 12% more CPU (before the bulk load). Again at
// 3358574: 8K took 1 M tweets over 1 h 4-12% longer (52-56 µs of CPU a
// tweet, not 49-51) for 50-110 MB less, and 4K made 200 K tweets over 30
// days about 9% slower. The backlog is what hides the time prism takes
// to resume a paused reader.
const MaxBacklog = 16 << 10

// BacklogPause is how long a paused reader waits before it looks again.
const BacklogPause = 20 * time.Millisecond

// BacklogWait is how long a reader's bundle that has read nothing yet
// waits for the backlog to drain (WaitBacklog) before it ends, to be
// resumed after BacklogPause.
const BacklogWait = time.Second

// StallLimit is how long the backlog may stay over MaxBacklog with no
// tweet taken from it before readers stop pausing for it. Flow control
// assumes that deduplication drains the backlog; tweets that a runner
// held back until the input ends (until the watermark passes them) would
// otherwise keep the readers paused for good, and the run would never
// end. Past the limit the readers read on, at the cost of the memory the
// held tweets take, and pause again once deduplication takes tweets.
const StallLimit = 30 * time.Second

// lastTake is when deduplication last took tweets from the backlog, or
// when the backlog last went over MaxBacklog if later (Unix nanoseconds);
// stallCounted is the lastTake of the last stall counted in stalls.
var lastTake, stallCounted, stalls atomic.Int64

// Stalls returns how many times readers of this process read on although
// the backlog was full, because deduplication had taken no tweet for
// StallLimit.
func Stalls() int64 { return stalls.Load() }

// clock is time.Now, but for tests.
var clock = time.Now

// EnableLocalFlowControl turns flow control on for this process.
func EnableLocalFlowControl() { localFlow.Store(true) }

// LocalFlowControl reports whether flow control is on in this process.
func LocalFlowControl() bool { return localFlow.Load() }

// Backlogged reports whether readers should pause because more than
// MaxBacklog tweets are waiting for deduplication in this process, and
// deduplication has taken some within StallLimit.
func Backlogged() bool {
	if !localFlow.Load() || backlog.Load() <= MaxBacklog {
		return false
	}
	at := lastTake.Load()
	if clock().UnixNano()-at <= int64(StallLimit) {
		return true
	}
	if stallCounted.Swap(at) != at {
		stalls.Add(1) // a stall not counted yet
	}
	return false
}

// AddBacklog adds n tweets (negative: takes them) to those waiting for
// deduplication in this process, when flow control is on.
func AddBacklog(n int) {
	if !localFlow.Load() {
		return
	}
	now := backlog.Add(int64(n))
	// Only a take that leaves the backlog full, or the add that fills
	// it, matters to Backlogged: the clock is read for those alone.
	if now > MaxBacklog && (n < 0 || now-int64(n) <= MaxBacklog) {
		lastTake.Store(clock().UnixNano())
	}
	if n < 0 && now <= MaxBacklog && now-int64(n) > MaxBacklog {
		wake()
	}
}

// drained is closed (and replaced) each time the backlog falls to
// MaxBacklog or below, and each time a reader begins to wait (held grows).
var (
	drainedMu sync.Mutex
	drained   = make(chan struct{})
)

// wake releases every reader waiting in WaitBacklog to look again.
func wake() {
	drainedMu.Lock()
	close(drained)
	drained = make(chan struct{})
	drainedMu.Unlock()
}

// held counts the backlogged tweets sent by the bundles of readers now
// waiting in WaitBacklog: they reach deduplication only when those
// bundles end, so no wait drains them. giveUps counts the times the
// readers waiting found that held is what keeps the backlog over
// MaxBacklog: each of them then stops waiting.
var held, giveUps atomic.Int64

// WaitBacklog waits until readers need not pause (Backlogged is false),
// for at most max or until ctx is done, and reports whether they need not.
// A reader that has not yet read the file it is given waits here rather
// than end the bundle: every bundle a runner schedules costs it a round
// trip (and prism v2.77 spins a core for it while the worker answers).
// One that has emitted must end its bundle instead, because the runner
// passes a bundle's output on only when the bundle ends.
//
// sent is how many tweets the caller's bundle has sent so far, or more
// (a reader counts records; a runner may give a bundle several files: an
// earlier one's tweets are waiting in the backlog). WaitBacklog returns false at once when the tweets
// over MaxBacklog are all in bundles whose readers wait here: waiting
// could not drain them, only ending the bundles can: then every reader
// waiting returns false. (Otherwise a bundle of several files could wait
// a second for each of them on its own tweets.)
func WaitBacklog(ctx context.Context, max time.Duration, sent int) bool {
	if !Backlogged() {
		return true
	}
	given := giveUps.Load()
	held.Add(int64(sent))
	defer held.Add(-int64(sent))
	if sent > 0 {
		wake()
	}
	t := time.NewTimer(max)
	defer t.Stop()
	for {
		drainedMu.Lock()
		ch := drained
		drainedMu.Unlock()
		if !Backlogged() {
			return true
		}
		if giveUps.Load() != given {
			return false
		}
		if backlog.Load()-held.Load() <= MaxBacklog {
			giveUps.Add(1)
			wake()
			return false
		}
		select {
		case <-ch:
		case <-t.C:
			return !Backlogged()
		case <-ctx.Done():
			return false
		}
	}
}

// Progress of the SDK workers of this process, for a submitter that runs
// them in process and wants to show how far a run has got (Beam counters
// are only read back when the run ends). It counts in every process; only
// an in-process run has a reader for it.
var localRead, localIndexed, localWritten atomic.Int64

// lastReadAt is when AddRead last counted items read in this process (Unix
// nanoseconds): the end of a bounded run's reading.
var lastReadAt atomic.Int64

// LastRead returns when the SDK workers of this process last read an item
// (zero if they have read none).
func LastRead() time.Time {
	if ns := lastReadAt.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// activeGap is the longest gap between two reads that counts as reading
// time: a stream waiting for tweets longer than that is idle.
const activeGap = time.Second

// activeNanos adds up the gaps between reads, each up to activeGap.
var activeNanos atomic.Int64

// ActiveReading returns how long the SDK workers of this process have been
// reading: the time between consecutive reads, each gap counted up to a
// second, so that a stream's idle waits do not count.
func ActiveReading() time.Duration { return time.Duration(activeNanos.Load()) }

// AddRead adds n items read (as the "read" counter counts them) to this
// process's progress.
func AddRead(n int64) {
	localRead.Add(n)
	now := time.Now().UnixNano()
	activeNanos.Add(activeSpan(lastReadAt.Swap(now), now))
}

// activeSpan is the reading time between a read at prev and one at now
// (Unix nanoseconds; prev 0: none before): the gap, up to activeGap.
func activeSpan(prev, now int64) int64 {
	if prev == 0 {
		return 0
	}
	return min(now-prev, int64(activeGap))
}

// AddIndexed adds n tweets indexed (negative: taken back) to this
// process's progress.
func AddIndexed(n int64) { localIndexed.Add(n) }

// LocalWritten returns the rows the sinks of this process have written so
// far (every table).
func LocalWritten() int64 { return localWritten.Load() }

// LocalProgress returns the items read (as the "read" counter counts them)
// and the tweets indexed by the SDK workers of this process so far.
func LocalProgress() (read, indexed int64) { return localRead.Load(), localIndexed.Load() }
