package pipelines

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/transforms"
)

// InputSize is the size of a run's input when it is known before the run:
// the files and their bytes on disk.
type InputSize struct {
	Files int
	Bytes int64
}

// ReportProgress prints one line on w every interval while a run goes:
// files and bytes read (of size, when known), tweets read and indexed, the
// tweets indexed per second over the last interval, and the time elapsed. The counts come from
// the SDK workers of this process, so it prints nothing but a note when the
// workers run elsewhere (a cluster runner shows progress in its own UI).
// Call stop when the run ends.
func ReportProgress(w io.Writer, interval time.Duration, size InputSize) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	if !workerInProcess() {
		fmt.Fprintln(w, "progress: not shown, the workers run outside this process (see the runner's UI)")
		return func() {}
	}
	p := newProgress(size, time.Now())
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
				fmt.Fprintln(w, p.line(now))
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

// progress turns the process's counters into lines. The counters are
// process-wide and only grow: a run counts from where they were when it
// started.
type progress struct {
	size            InputSize
	start           time.Time
	files0, bytes0  int64
	read0, indexed0 int64
	written0        int64
	lastIndexed     int64
	lastRead        int64
	lastWritten     int64
	lastAt          time.Time
	label           string // "progress" if empty
}

func newProgress(size InputSize, now time.Time) *progress {
	p := &progress{size: size, start: now, lastAt: now}
	p.files0, p.bytes0 = archiveio.LocalProgress()
	p.read0, p.indexed0 = transforms.LocalProgress()
	p.written0 = transforms.LocalWritten()
	return p
}

// Tally returns a function that renders what this process's workers have
// done since Tally was called, as a progress line after label: the partial
// counts of a run stopped before its summary. It returns nil when the
// workers run outside this process.
func Tally(size InputSize, label string) func() string {
	if !workerInProcess() {
		return nil
	}
	p := newProgress(size, time.Now())
	p.label = label
	return func() string { return p.line(time.Now()) }
}

// line renders the progress at now.
func (p *progress) line(now time.Time) string {
	files, bytes := archiveio.LocalProgress()
	read, indexed := transforms.LocalProgress()
	files, bytes, read, indexed = files-p.files0, bytes-p.bytes0, read-p.read0, indexed-p.indexed0
	written := transforms.LocalWritten() - p.written0
	rate, writeRate := 0.0, 0.0
	if dt := now.Sub(p.lastAt).Seconds(); dt > 0 {
		rate = float64(indexed-p.lastIndexed) / dt
		writeRate = float64(written-p.lastWritten) / dt
	}
	phase := p.phase(files, read, written)
	p.lastIndexed, p.lastRead, p.lastWritten, p.lastAt = indexed, read, written, now
	label := p.label
	if label == "" {
		label = "progress"
	}
	s := label + " " + now.Sub(p.start).Round(time.Second).String() + " [" + phase + "]:"
	if p.size.Files > 0 {
		s += fmt.Sprintf(" %d/%d files, %s/%s", files, p.size.Files, megabytes(bytes), megabytes(p.size.Bytes))
		if p.size.Bytes > 0 {
			s += fmt.Sprintf(" (%.0f%%)", 100*float64(min(bytes, p.size.Bytes))/float64(p.size.Bytes))
		}
		s += ","
	}
	return s + fmt.Sprintf(" %d tweets read, %d indexed (%.0f/s), %d rows written (%.0f/s)", read, indexed, rate, written, writeRate)
}

// phase names what the run is doing: reading its input while files remain
// or items keep coming; writing, once everything is read, while rows are
// still being written; then closing windows (the counts of the last hours,
// which a bounded run writes at its end) and flushing the sink.
func (p *progress) phase(files, read, written int64) string {
	switch {
	case p.size.Files > 0 && files < int64(p.size.Files), read > p.lastRead:
		return "reading"
	case written > p.lastWritten:
		return "writing"
	default:
		return "closing windows, flushing"
	}
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
