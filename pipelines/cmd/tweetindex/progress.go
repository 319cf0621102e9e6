package main

import (
	"log/slog"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/pipelines"
)

// reportProgress logs a progress line (pipelines.Progress) on l every
// interval while a run goes, or, when the workers run outside this process,
// one note saying why there is none. Call stop when the run ends.
func reportProgress(l *slog.Logger, interval time.Duration, size pipelines.InputSize, streaming bool) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	p := pipelines.NewProgress(size, "")
	if p == nil {
		l.Info("progress not shown", "reason", "workers outside this process", line("progress: not shown, the workers run outside this process (see the runner's UI)"))
		return func() {}
	}
	p.Streaming = streaming
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				logProgress(l, p.Sample(now))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}
