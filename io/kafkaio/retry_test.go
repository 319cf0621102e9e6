package kafkaio

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRetryStopsAtOnceWhenCancelled cancels a retry's context while it
// backs off between two attempts, its backoff grown past a second: it
// returns at once with the context's error, not after the backoff.
func TestRetryStopsAtOnceWhenCancelled(t *testing.T) {
	const attempts = 7 // the backoff after the 7th attempt is 1.28 s
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	backingOff := make(chan int)
	errc := make(chan error, 1)
	n := 0
	go func() {
		errc <- retry(ctx, Config{Brokers: []string{"nowhere:9092"}}, time.Minute, "testing",
			func(context.Context) error { n++; return errors.New("connection refused") },
			func(error) {
				if n == attempts {
					backingOff <- n // onRetry runs just before the backoff
				}
			})
	}()
	select {
	case <-backingOff:
	case err := <-errc:
		t.Fatalf("retry returned before its %dth attempt: %v", attempts, err)
	}
	cancel()
	stop := time.Now()
	select {
	case err := <-errc:
		if d := time.Since(stop); d > 500*time.Millisecond {
			t.Errorf("retry returned %v after its context was cancelled, want at once", d)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("retry still runs 10 s after its context was cancelled")
	}
}
