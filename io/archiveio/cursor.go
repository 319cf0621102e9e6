package archiveio

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// cursor reads one file in the background, a batch at a time, so that a
// read that checkpoints between batches can resume where it stopped
// without reading the file again from its start. The channel holds one
// batch ahead: the reader goroutine waits until a batch is taken.
type cursor struct {
	path   string
	next   int64 // index of the batch the channel gives next
	ch     chan []schemas.Record
	done   chan struct{} // closed when the goroutine has ended
	stats  Stats
	err    error
	cancel context.CancelFunc
}

var (
	cursorsMu sync.Mutex
	cursors   = map[string]*cursor{} // by path; at most one open cursor per file

	openCursors     atomic.Int64 // cursors whose reader goroutine runs
	peakOpenCursors atomic.Int64 // the most open at once (for tests)
)

// maxOpenCursors is how many files a process reads at once when local
// flow control is on (runs whose workers share the submitter's process).
// A runner that resumes every file's restriction in turn would otherwise
// leave a cursor open on each file of the input, each holding a batch
// read ahead and its buffers: 74 of 100 files were open at once, about a
// third of the peak memory of 1 M tweets. Files beyond the limit wait
// (their restriction is resumed later, nothing read) until one ends.
var maxOpenCursors = int64(max(4, runtime.GOMAXPROCS(0)))

// mustWait reports whether the read of path must wait for a file to end
// before it opens this one.
func mustWait(path string) bool {
	if !flow.LocalFlowControl() || openCursors.Load() < maxOpenCursors {
		return false
	}
	cursorsMu.Lock()
	_, parked := cursors[path]
	cursorsMu.Unlock()
	return !parked
}

// takeCursor returns a cursor of path positioned at batch index start,
// reusing the one a previous bundle left there, or else opening the file
// again and skipping start batches (after a restart or a retried bundle,
// which must read the same batches again: ReadFile is deterministic).
func takeCursor(path string, start int64, opts Options) *cursor {
	cursorsMu.Lock()
	c := cursors[path]
	delete(cursors, path)
	cursorsMu.Unlock()
	if c != nil && c.next == start {
		return c
	}
	if c != nil {
		c.close()
	}
	c = openCursor(path, opts)
	for c.next < start {
		if _, ok := c.take(); !ok {
			break
		}
	}
	return c
}

// park keeps c for the bundle that resumes the read.
func (c *cursor) park() {
	cursorsMu.Lock()
	old := cursors[c.path]
	cursors[c.path] = c
	cursorsMu.Unlock()
	if old != nil && old != c {
		old.close()
	}
}

func openCursor(path string, opts Options) *cursor {
	ctx, cancel := context.WithCancel(context.Background())
	c := &cursor{path: path, ch: make(chan []schemas.Record), done: make(chan struct{}), cancel: cancel}
	raiseTo(&peakOpenCursors, openCursors.Add(1))
	go func() {
		defer openCursors.Add(-1)
		defer close(c.done)
		defer close(c.ch)
		c.stats, c.err = ReadFile(ctx, path, opts, func(recs []schemas.Record) error {
			select {
			case c.ch <- recs:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return c
}

// take returns the next batch, or false at the end of the file; then
// c.stats and c.err say how the read ended.
func (c *cursor) take() ([]schemas.Record, bool) {
	recs, ok := <-c.ch
	if !ok {
		<-c.done
		return nil, false
	}
	c.next++
	return recs, true
}

// close stops the reader goroutine and waits for it.
func (c *cursor) close() {
	c.cancel()
	for range c.ch {
	}
	<-c.done
}

// raiseTo sets v to n if n is larger.
func raiseTo(v *atomic.Int64, n int64) {
	for old := v.Load(); n > old && !v.CompareAndSwap(old, n); old = v.Load() {
	}
}
