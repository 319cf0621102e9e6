package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/pipelines"
)

// reportProgress prints a progress line (pipelines.Progress) on w every
// interval while a run goes, or, when the workers run outside this process,
// one note saying why there is none. Call stop when the run ends.
func reportProgress(w io.Writer, interval time.Duration, size pipelines.InputSize) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	p := pipelines.NewProgress(size, "")
	if p == nil {
		fmt.Fprintln(w, "progress: not shown, the workers run outside this process (see the runner's UI)")
		return func() {}
	}
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
				fmt.Fprintln(w, p.Line(now))
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
