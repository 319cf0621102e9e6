package pipelines

import (
	"fmt"
	"time"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// InputSize is the size of a run's input when it is known before the run:
// the files and their bytes on disk.
type InputSize struct {
	Files int
	Bytes int64
}

// Progress renders what this process's SDK workers have done since it was
// made, as a progress line: files and bytes read (of the input's size,
// when known), tweets read and indexed, the tweets indexed and rows
// written per second since the previous line, the time elapsed and what
// the run is doing. The counters are process-wide and only grow: a run
// counts from where they were when its Progress was made. The command
// prints its lines (every --progress, and once when a run is stopped
// before its summary).
type Progress struct {
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

// NewProgress returns the progress of a run over an input of size from
// now on, its lines starting with label ("progress" if empty). It returns
// nil when the workers run outside this process: their counts are not
// here (a cluster runner shows progress in its own UI).
func NewProgress(size InputSize, label string) *Progress {
	if !workerInProcess() {
		return nil
	}
	return newProgress(size, label, time.Now())
}

func newProgress(size InputSize, label string, now time.Time) *Progress {
	p := &Progress{size: size, start: now, lastAt: now, label: label}
	p.files0, p.bytes0 = archiveio.LocalProgress()
	p.read0, p.indexed0 = flow.LocalProgress()
	p.written0 = flow.LocalWritten()
	return p
}

// Line renders the progress at now; the rates are over the time since the
// previous Line (or since NewProgress).
func (p *Progress) Line(now time.Time) string {
	files, bytes := archiveio.LocalProgress()
	read, indexed := flow.LocalProgress()
	files, bytes, read, indexed = files-p.files0, bytes-p.bytes0, read-p.read0, indexed-p.indexed0
	written := flow.LocalWritten() - p.written0
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
func (p *Progress) phase(files, read, written int64) string {
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
