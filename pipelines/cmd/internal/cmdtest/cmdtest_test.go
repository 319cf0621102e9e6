package cmdtest

import (
	"strings"
	"sync"
	"testing"
)

// TestSyncBufferConcurrentWrites: writes from many goroutines all land,
// whole, and String may be read meanwhile (go test -race checks the rest).
func TestSyncBufferConcurrentWrites(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "line\n"); n != 800 {
		t.Errorf("%d lines, want 800", n)
	}
}
