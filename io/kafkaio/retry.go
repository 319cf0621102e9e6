package kafkaio

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
)

// Backoff between retries of a failing broker call.
const (
	minBackoff = 20 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// permanentError is the error of a broker call that retry returns at once,
// without repeating the call: an answer from the brokers that repeating
// it will not change.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// retryable reports whether a failed broker call may succeed if repeated:
// network failures and Kafka's temporary errors (leader changes, a
// coordinator loading) may; Kafka's other errors (authentication and
// authorization failures, bad requests), untrusted certificates, a
// cancelled context and a permanentError may not.
func retryable(err error) bool {
	var perm permanentError
	switch {
	case err == nil:
		return false
	case errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &perm):
		return false
	}
	var kerr kafka.Error
	if errors.As(err, &kerr) {
		return kerr.Temporary()
	}
	var (
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
	)
	if errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid) {
		return false // a certificate the configuration does not trust
	}
	return true
}

// retry calls op until it succeeds, fails with an error that is not
// retryable, ctx ends or timeout passes, backing off exponentially between
// attempts. onRetry, if not nil, is called with each error that is retried.
// While op has not succeeded for a while, a line on stderr says what it
// waits for on cfg's brokers (see waitReporter).
func retry(ctx context.Context, cfg Config, timeout time.Duration, what string, op func(context.Context) error, onRetry func(error)) error {
	deadline := time.Now().Add(timeout)
	backoff := minBackoff
	w := startWaitReport(what, strings.Join(cfg.Brokers, ","), timeout)
	defer w.stop()
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		w.failed(err)
		if !retryable(err) {
			return fmt.Errorf("kafkaio: %s: %w", what, err)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("kafkaio: %s: %w (after %d attempts)", what, ctx.Err(), attempt)
		}
		if time.Now().Add(backoff).After(deadline) {
			return fmt.Errorf("kafkaio: %s: still failing after %d attempts in %v: %w", what, attempt, timeout, err)
		}
		if onRetry != nil {
			onRetry(err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("kafkaio: %s: %w (after %d attempts, last error: %v)", what, ctx.Err(), attempt, err)
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
