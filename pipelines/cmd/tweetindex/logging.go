package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/job"
)

// The lines a run prints on stderr while it goes (progress, --watch,
// waits for a Kafka broker, the metrics address, signals, a failed run)
// are slog records. Each carries a short, stable message (its kind) and
// its numbers as attributes, plus the line people read under lineKey.
// --log-format text prints that line as it always was; --log-format json
// prints one JSON object per line: time, level, msg and the attributes,
// without the human line.
const lineKey = "line"

// logFormats are the values of --log-format.
var logFormats = []string{"text", "json"}

// newRunLogger returns the logger of a run's stderr lines in format
// ("text" or "json"), writing to w.
func newRunLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if len(groups) == 0 && a.Key == lineKey {
					return slog.Attr{} // dropped
				}
				if a.Value.Kind() == slog.KindDuration {
					// Seconds, not nanoseconds: the keys say _seconds.
					return slog.Float64(a.Key, a.Value.Duration().Seconds())
				}
				return a
			},
		}))
	}
	return slog.New(&lineHandler{w: w, mu: new(sync.Mutex)})
}

// lineHandler prints a record's human line (its lineKey attribute), or,
// for a record without one, its message and attributes as key=value.
type lineHandler struct {
	w     io.Writer
	mu    *sync.Mutex
	attrs []slog.Attr
}

func (h *lineHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var line string
	var b strings.Builder
	b.WriteString(r.Message)
	each := func(a slog.Attr) bool {
		if a.Key == lineKey {
			line = a.Value.String()
			return false
		}
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		each(a)
	}
	r.Attrs(each)
	if line == "" {
		line = b.String()
	}
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line)
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }

// line is the human line of a record.
func line(s string) slog.Attr { return slog.String(lineKey, s) }

// logProgress logs a progress sample: msg "progress" (or "stopped" for
// the line of a run stopped before its summary).
func logProgress(l *slog.Logger, s job.ProgressSample) {
	msg := "progress"
	if s.Label != "progress" {
		msg = "stopped"
	}
	attrs := []slog.Attr{
		slog.Duration("elapsed_seconds", s.Elapsed.Round(time.Millisecond)),
		slog.String("phase", s.Phase),
	}
	if s.FilesTotal > 0 {
		attrs = append(attrs,
			slog.Int64("files_read", s.Files), slog.Int("files_total", s.FilesTotal),
			slog.Int64("bytes_read", s.Bytes), slog.Int64("bytes_total", s.BytesAll))
	}
	attrs = append(attrs,
		slog.Int64("read", s.Read), slog.Int64("indexed", s.Indexed),
		slog.Float64("indexed_per_second", round1(s.IndexedPerSec)),
		slog.Int64("rows_written", s.Written),
		slog.Float64("rows_written_per_second", round1(s.WrittenPerSec)))
	if s.TableCellsAll > 0 {
		attrs = append(attrs,
			slog.Int64("table_cells_written", s.TableCells), slog.Int64("table_cells_total", s.TableCellsAll))
	}
	attrs = append(attrs, line(s.String()))
	l.LogAttrs(context.Background(), slog.LevelInfo, msg, attrs...)
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// logFailure reports a run's failure err through l when l logs JSON, and
// returns an error that main prints nothing more for (exit 1); usage
// errors, and every error in text format, are returned as they are for
// main to print.
func logFailure(l *slog.Logger, format string, err error) error {
	if err == nil || format != "json" || errors.As(err, new(usageError)) || errors.As(err, new(exitError)) || errors.Is(err, errHelpShown) {
		return err
	}
	attrs := []slog.Attr{slog.String("error", err.Error())}
	var d detailedError
	if errors.As(err, &d) && d.detail != "" {
		attrs = append(attrs, slog.String("detail", d.detail))
	}
	l.LogAttrs(context.Background(), slog.LevelError, "run failed", attrs...)
	return exitError{code: exitFailure}
}
