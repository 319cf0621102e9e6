package kafkaio

import (
	"fmt"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
)

// watermarkState is what a partition's watermark estimator carries from one
// checkpoint of its restriction to the next.
type watermarkState struct {
	// Watermark is the partition's watermark, in Unix milliseconds.
	Watermark int64
	// IdleSince is the wall-clock time, in Unix milliseconds, since which
	// the partition has been caught up with no records to read; 0 while it
	// has records.
	IdleSince int64
}

// watermarkEstimator is a partition's watermark, driven by the event time
// of the tweets read from it (not by broker time):
//
//   - reading records moves it to the newest tweet time seen minus
//     AllowedSkew (never past wall-clock time minus AllowedSkew, so one
//     tweet with a created_at in the future cannot make the rest late);
//   - a partition caught up for IdleTimeout moves it with the read's event
//     clock (see eventClock), minus AllowedSkew, so an idle partition does
//     not hold back the pipeline; the first tweet it then reads ends the
//     idle spell (records without a tweet time do not);
//   - draining moves it to the end of time.
//
// It never moves backwards. The SDK may read it from another goroutine
// while ProcessElement runs (to split), so it is guarded by a mutex.
type watermarkEstimator struct {
	mu    sync.Mutex
	state watermarkState
	skew  int64 // ms
	idle  int64 // ms; < 0: never advance idle partitions
	clock *eventClock
}

func newWatermarkEstimator(state watermarkState, cfg Config) *watermarkEstimator {
	cfg = cfg.withDefaults()
	idle := cfg.IdleTimeout.Milliseconds()
	if cfg.IdleTimeout < 0 {
		idle = -1
	}
	return &watermarkEstimator{state: state, skew: cfg.AllowedSkew.Milliseconds(), idle: idle, clock: clockFor(cfg)}
}

// CurrentWatermark implements sdf.WatermarkEstimator.
func (e *watermarkEstimator) CurrentWatermark() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return mtime.Time(e.state.Watermark).ToTime()
}

// snapshot returns the state to persist with a checkpoint.
func (e *watermarkEstimator) snapshot() watermarkState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state
}

func (e *watermarkEstimator) advance(ms int64) {
	if ms > e.state.Watermark {
		e.state.Watermark = ms
	}
}

// observe records that the partition yielded records, the newest of whose
// tweets was created at maxEvent (Unix milliseconds; ok false if none of
// them had a tweet time). Records without a tweet time (stream control
// messages, broken lines) neither move the watermark nor end an idle
// spell: a partition that carries only those is idle as far as event time
// goes.
func (e *watermarkEstimator) observe(maxEvent int64, ok bool, now time.Time) {
	if !ok {
		return
	}
	maxEvent = min(maxEvent, now.UnixMilli())
	e.clock.observe(maxEvent, now)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.state.IdleSince = 0
	e.advance(maxEvent - e.skew)
}

// caughtUp records that a poll of the partition found nothing to read.
func (e *watermarkEstimator) caughtUp(now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ms := now.UnixMilli()
	if e.state.IdleSince == 0 {
		e.state.IdleSince = ms
	}
	if e.idle >= 0 && ms-e.state.IdleSince >= e.idle {
		e.advance(e.clock.at(now) - e.skew)
	}
}

// finish moves the watermark to the end of time: the partition's read is over.
func (e *watermarkEstimator) finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(int64(mtime.MaxTimestamp))
}

// eventClock is a read's event time as this process sees it, for its idle
// partitions to follow: the newest tweet time read from any partition of
// the read, running on with the wall clock since it was read (never past
// the wall clock). On a live stream it is the wall clock; on a replay of
// archived tweets it stays with the tweets, so that a partition that goes
// idle does not make the others' tweets late, and a pause in the replay
// moves it only by the length of the pause. A process that has read no
// tweet yet falls back to the wall clock, so a worker whose partitions
// never see data does not hold the pipeline back either.
type eventClock struct {
	mu       sync.Mutex
	seen     bool
	maxEvent int64 // Unix ms
	readAt   int64 // Unix ms, wall clock
}

// observe records that tweets up to maxEvent (Unix ms) were read at now.
func (c *eventClock) observe(maxEvent int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = true
	c.maxEvent = max(c.maxEvent, maxEvent)
	c.readAt = now.UnixMilli()
}

// at returns the event time at wall-clock time now, in Unix ms.
func (c *eventClock) at(now time.Time) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	ms := now.UnixMilli()
	if !c.seen {
		return ms
	}
	return min(ms, c.maxEvent+max(ms-c.readAt, 0))
}

var (
	clocksMu sync.Mutex
	clocks   = map[string]*eventClock{}
)

// clockFor returns the process's event clock of the read cfg configures.
func clockFor(cfg Config) *eventClock {
	key := fmt.Sprintf("%q %q %q %q %q %q", cfg.Brokers, cfg.Topic, cfg.Group, cfg.Start, cfg.Stop, cfg.Drain)
	clocksMu.Lock()
	defer clocksMu.Unlock()
	c, ok := clocks[key]
	if !ok {
		c = &eventClock{}
		clocks[key] = c
	}
	return c
}
