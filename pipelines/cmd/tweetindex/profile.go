package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"
)

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// startHeapProfile writes a heap profile to path each time the heap in use
// reaches a new high (checked twice a second), until stop is called: the
// file ends up holding the profile of the run's peak.
func startHeapProfile(path string) (stop func()) {
	done := make(chan struct{})
	go func() {
		var peak uint64
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse <= peak+peak/10 {
				continue
			}
			peak = ms.HeapInuse
			if f, err := os.Create(path); err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
	}()
	return func() { close(done) }
}

// defaultMemoryLimit is the Go heap's soft limit for a local run, unless
// GOMEMLIMIT says otherwise: the garbage collector works harder as the
// heap nears it instead of letting it grow to twice the live data.
const defaultMemoryLimit = 1536 << 20

// limitMemory sets the soft memory limit of a local run.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
