package main

import (
	"log/slog"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
)

// reportProgress logs a progress line (job.Progress) on l every
// interval while a run goes, or, when the workers run outside this process,
// one note saying why there is none; streaming and until are
// job.Progress's Streaming and Until. Call stop when the run ends.
func reportProgress(l *slog.Logger, interval time.Duration, size job.InputSize, streaming bool, until time.Time) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	p := job.NewProgress(size, "")
	if p == nil {
		l.Info("progress not shown", "reason", "workers outside this process", line("progress: not shown, the workers run outside this process (see the runner's UI)"))
		return func() {}
	}
	p.Streaming, p.Until = streaming, until
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

// readsUntil returns the time a bounded Kafka read ends at, when it is
// one (--stop, or a backfill's --to and margin) and still to come: the
// run waits for records until then. Zero otherwise.
func readsUntil(cfg pipelines.Config) time.Time {
	if cfg.Kafka == nil || cfg.Streaming() {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, cfg.Kafka.Stop)
	if err != nil || !t.After(time.Now()) {
		return time.Time{}
	}
	return t
}
