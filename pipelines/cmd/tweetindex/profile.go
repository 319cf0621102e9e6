package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"time"
)

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	return startWriting("--cpuprofile", path, pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// startTrace writes a Go execution trace of the process into path until
// stop is called.
func startTrace(path string) (stop func(), err error) {
	return startWriting("--trace", path, trace.Start, trace.Stop)
}

// startWriting creates path and has start write into it until the
// returned func calls end and closes the file; errors name flag.
func startWriting(flag, path string, start func(io.Writer) error, end func()) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return func() { end(); f.Close() }, nil
}

// startHeapProfile writes a heap profile to path each time the heap in use
// reaches a new high (checked twice a second, and once more when stop is
// called), until stop returns: the file ends up holding the profile of
// the run's peak, or of its end if that is higher (a run shorter than
// half a second gets that one).
func startHeapProfile(path string) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var peak uint64
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for last := false; !last; {
			select {
			case <-done:
				last = true
			case <-t.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if peak > 0 && ms.HeapInuse <= peak+peak/10 {
				continue
			}
			peak = ms.HeapInuse
			if f, err := os.Create(path); err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// defaultMemoryLimit is the Go heap's soft limit for a local run, unless
// GOMEMLIMIT says otherwise: the garbage collector works harder as the
// heap nears it instead of letting it grow to twice the live data. With
// the embedded store's memtables (outside the Go heap) a run peaks about
// 250 MB above it. Measured on 1 M tweets over 30 days: 1.5 GiB gave
// 80 s and 1.43 GB peak, 800 MiB 90 s and 1.03 GB, 700 MiB 92 s and
// 934 MB; over an hour, 700 MiB gave 87 s and 738 MB.
const defaultMemoryLimit = 700 << 20

// limitMemory sets the soft memory limit of a local run.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
