package job

import (
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio"
)

// TestProgressLine pins the text of the progress lines the command prints
// (tests of the command and people's scripts read them): nothing has run
// since the Progress was made, so every count is 0.
func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	p := newProgress(InputSize{Files: 3, Bytes: 2e6}, "", start)
	if got, want := p.Line(start.Add(10*time.Second)), "progress 10s [reading]: 0/3 files, 0.0 MB/2.0 MB (0%), 0 tweets read, 0 indexed (0/s), 0 rows written (0/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p = newProgress(InputSize{}, "stopped after", start)
	if got, want := p.Line(start.Add(90*time.Second)), "stopped after 1m30s [waiting for the first records]: 0 tweets read, 0 indexed (0/s), 0 rows written (0/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p = newProgress(InputSize{Files: 3, Bytes: 2e6}, "", start)
	if got, want := p.sample(start.Add(time.Second), tablesProgress{TablesProgress: storeio.TablesProgress{Cells: 10, CellsAll: 100, Work: 45, WorkAll: 100}, early: true}).String(), "progress 1s [reading, while the store writes its first tables (45%)]: 0/3 files, 0.0 MB/2.0 MB (0%), 0 tweets read, 0 indexed (0/s), 0 rows written (0/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p = newProgress(InputSize{}, "", start)
	if got, want := p.sample(start.Add(time.Second), tablesProgress{TablesProgress: storeio.TablesProgress{Cells: 50, CellsAll: 100, Work: 13, WorkAll: 100}, ending: true}).String(), "progress 1s [writing the raw, term and authors tables, 13%]: 0 tweets read, 0 indexed (0/s), 0 rows written (0/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p = newProgress(InputSize{}, "", start)
	p.Streaming = true
	if got, want := p.Line(start.Add(10*time.Second)), "progress 10s [waiting for records]: 0 tweets read, 0 indexed (0/s), 0 rows written (0/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A bounded read that ends at a time to come waits for records until
	// then; after it, it closes windows.
	p = newProgress(InputSize{}, "", start)
	p.Until = start.Add(time.Hour)
	if got, want := p.Line(start.Add(10*time.Second)), "progress 10s [waiting for records until 2026-11-24T07:00:00Z, where the read ends]: 0 tweets read, 0 indexed (0/s), 0 rows written (0/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got, want := p.Line(start.Add(61*time.Minute)), "progress 1h1m0s [closing windows, flushing]: 0 tweets read, 0 indexed (0/s), 0 rows written (0/s)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
