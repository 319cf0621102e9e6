package kafkaio

import "sync"

// Drain signals every read whose Config.Drain is name, in this process, to
// end cleanly: at its next poll each partition stops reading, emits what it
// has read, moves its watermark to the end of time and finishes, so that
// every window fires, offsets are committed (with Config.Commit) and the
// pipeline completes. A later read with Start
// "group" resumes exactly where the drained one stopped.
//
// On prism, which runs the SDK worker inside the launching process, call
// Drain from that process (for example on SIGINT) instead of cancelling
// the context given to beamx.Run. On a distributed runner use the runner's
// own drain, which truncates unbounded reads through the SDF's
// TruncateRestriction.
//
// Drain is idempotent; a drained name stays drained, so give every run its
// own name.
func Drain(name string) {
	if name == "" {
		return
	}
	ch := drainChan(name)
	drainMu.Lock()
	defer drainMu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// Drained reports whether Drain(name) was called in this process.
func Drained(name string) bool {
	if name == "" {
		return false
	}
	select {
	case <-drainChan(name):
		return true
	default:
		return false
	}
}

var (
	drainMu sync.Mutex
	drains  = map[string]chan struct{}{}
)

// drainChan returns the channel that is closed when name is drained; nil
// (never ready) for the empty name.
func drainChan(name string) chan struct{} {
	if name == "" {
		return nil
	}
	drainMu.Lock()
	defer drainMu.Unlock()
	ch, ok := drains[name]
	if !ok {
		ch = make(chan struct{})
		drains[name] = ch
	}
	return ch
}
