package cassandraio

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// retriable reports whether a failed request may succeed if sent again.
// Every write of the sink is an idempotent upsert, so a write that may or
// may not have been applied (a write timeout, a lost connection) is safe to
// send again.
func retriable(err error) bool {
	if err == nil {
		return false
	}
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeWriteTimeout, gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded,
			gocql.ErrCodeBootstrapping, gocql.ErrCodeReadTimeout:
			return true
		}
		return false
	}
	switch {
	// The driver fails the requests of a connection it closes with the
	// connection's context error: a lost connection. (Callers check their
	// own context before retrying.)
	case errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, gocql.ErrTimeoutNoResponse),
		errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrNoConnections),
		errors.Is(err, gocql.ErrNoStreams),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE),
		errors.Is(err, net.ErrClosed):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// backoff returns the wait before retry attempt (0-based): min * 2^attempt,
// capped at max, with "equal jitter" (half fixed, half random) so that
// writers that failed together do not retry together.
func backoff(attempt int, min, max time.Duration) time.Duration {
	d := min
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(half+1)
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
