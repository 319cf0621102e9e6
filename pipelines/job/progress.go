package job

import (
	"fmt"
	"os"
	"time"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// InputSize is the size of a run's input when it is known before the run:
// the files and their bytes on disk.
type InputSize struct {
	Files int
	Bytes int64
}

// SizeOf adds up the sizes of files.
func SizeOf(files []string) InputSize {
	size := InputSize{Files: len(files)}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			size.Bytes += fi.Size()
		}
	}
	return size
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
	// Streaming marks a stream's progress: with nothing read or written
	// since the last line, it is waiting for records, not closing windows.
	Streaming bool
	// Until, when not zero, is the time a bounded read ends at (a Kafka
	// read's --stop or --to in the future): before it, with nothing read
	// or written since the last line, the run is waiting for records.
	Until time.Time
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

// ProgressSample is the progress of a run at one time: what Line prints,
// as numbers (the command logs them as fields with --log-format json).
type ProgressSample struct {
	Label           string        // "progress", or the label given to NewProgress
	Elapsed         time.Duration // since NewProgress
	Phase           string        // reading, writing, closing windows, flushing, or writing tables (see phase)
	Files           int64         // files read (when the input's size is known)
	FilesTotal      int           // files of the input, 0 when not known
	Bytes, BytesAll int64         // bytes read, of the input's bytes
	Read, Indexed   int64         // tweets read and indexed
	IndexedPerSec   float64       // since the previous sample
	Written         int64         // rows written
	WrittenPerSec   float64       // since the previous sample
	// TableCells of TableCellsAll cells are written to the store's sorted
	// tables while the end of a bulk load writes them, or while its base
	// merge does as the run reads on (both 0 otherwise).
	TableCells, TableCellsAll int64
}

// Line renders the progress at now; the rates are over the time since the
// previous Line or Sample (or since NewProgress).
func (p *Progress) Line(now time.Time) string { return p.Sample(now).String() }

// Sample takes the progress at now; the rates are over the time since the
// previous Line or Sample (or since NewProgress).
func (p *Progress) Sample(now time.Time) ProgressSample {
	if t, ending := storeio.SortedTablesProgress(); ending {
		return p.sample(now, tablesProgress{t, true, false})
	}
	t, early := storeio.EarlyTablesProgress()
	return p.sample(now, tablesProgress{t, false, early})
}

// tablesProgress is how far a bulk load is in writing the store's sorted
// tables: at its end (storeio.SortedTablesProgress), or early, while the
// run reads on (storeio.EarlyTablesProgress).
type tablesProgress struct {
	storeio.TablesProgress
	ending bool // the end of a bulk load is under way
	early  bool // a base merge is under way (and no end)
}

func (p *Progress) sample(now time.Time, tables tablesProgress) ProgressSample {
	files, bytes := archiveio.LocalProgress()
	read, indexed := flow.LocalProgress()
	files, bytes, read, indexed = files-p.files0, bytes-p.bytes0, read-p.read0, indexed-p.indexed0
	written := flow.LocalWritten() - p.written0
	rate, writeRate := 0.0, 0.0
	if dt := now.Sub(p.lastAt).Seconds(); dt > 0 {
		rate = float64(indexed-p.lastIndexed) / dt
		writeRate = float64(written-p.lastWritten) / dt
	}
	phase := p.phase(files, read, written, tables, now)
	p.lastIndexed, p.lastRead, p.lastWritten, p.lastAt = indexed, read, written, now
	label := p.label
	if label == "" {
		label = "progress"
	}
	return ProgressSample{
		Label: label, Elapsed: now.Sub(p.start), Phase: phase,
		Files: files, FilesTotal: p.size.Files, Bytes: bytes, BytesAll: p.size.Bytes,
		Read: read, Indexed: indexed, IndexedPerSec: rate, Written: written, WrittenPerSec: writeRate,
		TableCells: tables.Cells, TableCellsAll: tables.CellsAll,
	}
}

// String renders the sample as a progress line.
func (s ProgressSample) String() string {
	line := s.Label + " " + s.Elapsed.Round(time.Second).String() + " [" + s.Phase + "]:"
	if s.FilesTotal > 0 {
		line += fmt.Sprintf(" %d/%d files, %s/%s", s.Files, s.FilesTotal, megabytes(s.Bytes), megabytes(s.BytesAll))
		if s.BytesAll > 0 {
			line += fmt.Sprintf(" (%.0f%%)", 100*float64(min(s.Bytes, s.BytesAll))/float64(s.BytesAll))
		}
		line += ","
	}
	return line + fmt.Sprintf(" %d tweets read, %d indexed (%.0f/s), %d rows written (%.0f/s)", s.Read, s.Indexed, s.IndexedPerSec, s.Written, s.WrittenPerSec)
}

// phase names what the run is doing: reading its input while files remain
// or items keep coming; writing, once everything is read, while rows are
// still being written; a stream then waits for records, as does a
// bounded read before the time it ends at (Until), and a bounded read from
// Kafka for its first (for its brokers, say); a bounded run then closes
// windows (the counts of the last hours,
// which a bounded run writes at its end) and flushing the sink; and the
// end of a bulk load, whenever it is under way, writes the sorted tables.
// While a bulk load writes its first tables as the run reads on (its base
// merge: the pipeline slows meanwhile), the phase says so too.
func (p *Progress) phase(files, read, written int64, tables tablesProgress, now time.Time) string {
	percent := func() float64 { return 100 * tables.Done() }
	var phase string
	switch {
	case tables.ending:
		return fmt.Sprintf("writing the raw, term and authors tables, %.0f%%", percent())
	case p.size.Files > 0 && files < int64(p.size.Files), read > p.lastRead:
		phase = "reading"
	case written > p.lastWritten:
		phase = "writing"
	case p.Streaming:
		phase = "waiting for records"
	case now.Before(p.Until):
		phase = "waiting for records until " + p.Until.UTC().Format(time.RFC3339) + ", where the read ends"
	case read == 0 && p.size.Files == 0 && p.Until.IsZero():
		phase = "waiting for the first records" // from Kafka: for its brokers, say
	default:
		phase = "closing windows, flushing"
	}
	if tables.early {
		phase += fmt.Sprintf(", while the store writes its first tables (%.0f%%)", percent())
	}
	return phase
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
