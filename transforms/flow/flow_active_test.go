package flow

import (
	"testing"
	"time"
)

// TestActiveSpan: reading time counts the gaps between reads up to a
// second each, so a stream idle for a minute between two bursts is not
// credited with the minute.
func TestActiveSpan(t *testing.T) {
	s := int64(time.Second)
	reads := []int64{10 * s, 10*s + s/10, 10*s + s/5, 70 * s, 70*s + s/2}
	var prev, active int64
	for _, now := range reads {
		active += activeSpan(prev, now)
		prev = now
	}
	if want := s/10 + s/10 + s + s/2; active != want {
		t.Errorf("active %v, want %v", time.Duration(active), time.Duration(want))
	}
}
