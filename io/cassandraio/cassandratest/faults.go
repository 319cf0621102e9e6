package cassandratest

import (
	"fmt"
	"slices"
	"time"
)

// FaultKind is a failure the server can inject into write requests.
type FaultKind int

// The faults. Each hits one write request (an insert, or a whole batch).
const (
	// WriteTimeout answers WRITE_TIMEOUT (0x1100): the coordinator gave up
	// waiting for replicas. With Applied, the write was applied first, as
	// when replicas wrote but acknowledged too late.
	WriteTimeout FaultKind = iota + 1
	// Unavailable answers UNAVAILABLE (0x1000): too few replicas alive. The
	// write is never applied.
	Unavailable
	// Overloaded answers OVERLOADED (0x1001). The write is never applied.
	Overloaded
	// DropConnection closes the connection without answering: every request
	// in flight on it is lost. With Applied, the write was applied first.
	DropConnection
	// Slow holds the answer back for Delay, then applies the write and
	// answers normally (unless the client gave up first).
	Slow

	faultKinds
)

// String names the kind.
func (k FaultKind) String() string {
	switch k {
	case WriteTimeout:
		return "WriteTimeout"
	case Unavailable:
		return "Unavailable"
	case Overloaded:
		return "Overloaded"
	case DropConnection:
		return "DropConnection"
	case Slow:
		return "Slow"
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// Fault describes faults to inject.
type Fault struct {
	Kind FaultKind
	// Count is the number of write requests that get the fault; 0 means 1,
	// negative means every matching write until ClearFaults.
	Count int
	// Table limits the fault to writes to this CQL table (a batch matches
	// when any of its statements does); "" matches every write.
	Table string
	// Delay is how long Slow holds the answer; default 50ms.
	Delay time.Duration
	// Applied applies the write before failing it (WriteTimeout and
	// DropConnection): the client sees a failure, the row is stored.
	Applied bool
}

// InjectFault queues a fault. Faults are served in the order they were
// injected: a write takes the first queued fault that matches it.
func (s *Server) InjectFault(f Fault) {
	if f.Count == 0 {
		f.Count = 1
	}
	if f.Kind == Slow && f.Delay <= 0 {
		f.Delay = 50 * time.Millisecond
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults drops every queued fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// PendingFaults returns the number of fault injections still queued (a
// fault with a negative Count stays queued).
func (s *Server) PendingFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// takeFault returns the fault for a write to tables, if one is queued.
func (s *Server) takeFault(tables []string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Table != "" && !slices.Contains(tables, f.Table) {
			continue
		}
		if f.Count > 0 {
			f.Count--
			if f.Count == 0 {
				s.faults = slices.Delete(s.faults, i, i+1)
			}
		}
		s.stats.faults[f.Kind].Add(1)
		return *f, true
	}
	return Fault{}, false
}
