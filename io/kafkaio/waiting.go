package kafkaio

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// A broker call that has not succeeded for waitReportEvery (a broker that
// is down refuses or drops every attempt; one that is stalled answers
// nothing until the request times out) says so on waitOutput, and again
// every waitReportEvery while it waits: what it waits for, on which
// brokers, for how long, the last error, and when it gives up. These lines
// go to the worker's stderr, not through the runner's log, which the
// command keeps quiet.
var (
	waitReportEvery           = 10 * time.Second
	waitOutput      io.Writer = os.Stderr
	waitOutputMu    sync.Mutex
)

// waitLogger, when set (SetLogger), takes the lines instead of waitOutput.
var waitLogger atomic.Pointer[slog.Logger]

// SetLogger sends the lines about waits for a broker and offsets not
// committed to l (nil: back to stderr), as warnings whose message says
// what happened ("kafka wait", "kafka drained while waiting", "kafka
// commit failed"), with their numbers as attributes and the line as it is
// printed on stderr under the attribute "line".
func SetLogger(l *slog.Logger) { waitLogger.Store(l) }

// printWait writes one line to waitOutput, or logs it as msg with attrs
// (key, value pairs) on the logger set by SetLogger.
func printWait(msg string, attrs []any, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if l := waitLogger.Load(); l != nil {
		l.Warn(msg, append(attrs, slog.String("line", text))...)
		return
	}
	waitOutputMu.Lock()
	defer waitOutputMu.Unlock()
	fmt.Fprintln(waitOutput, text)
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// waitReporter reports one broker call (with its retries) that takes long.
type waitReporter struct {
	mu      sync.Mutex
	start   time.Time
	what    string
	brokers string
	timeout time.Duration
	lastErr error
	timer   *time.Timer
	stopped bool
}

// startWaitReport starts reporting the call what on brokers, which gives
// up after timeout, if it lasts waitReportEvery; stop ends it.
func startWaitReport(what, brokers string, timeout time.Duration) *waitReporter {
	w := &waitReporter{start: time.Now(), what: what, brokers: brokers, timeout: timeout}
	if every := waitReportEvery; every > 0 {
		w.timer = time.AfterFunc(every, w.report)
	}
	return w
}

// failed records the error of a failed attempt.
func (w *waitReporter) failed(err error) {
	w.mu.Lock()
	w.lastErr = err
	w.mu.Unlock()
}

// stop ends the reports; the call succeeded or gave up.
func (w *waitReporter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

func (w *waitReporter) report() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	waited := time.Since(w.start)
	why := "no answer yet"
	if w.lastErr != nil {
		why = "last error: " + w.lastErr.Error()
	}
	printWait("kafka wait", []any{"waited_seconds", roundWait(waited).Seconds(), "brokers", w.brokers, "call", w.what,
		"last_error", errText(w.lastErr), "give_up_seconds", w.timeout.Seconds()},
		"kafkaio: waiting %v for the Kafka broker %s: %s (%s); giving up after %v",
		roundWait(waited), w.brokers, w.what, why, w.timeout)
	w.timer.Reset(waitReportEvery)
}

// roundWait rounds a wait for people: to 100 ms under 10 s, else to seconds.
func roundWait(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
