package storeio

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio/internal/extsort"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestSortedTablesProgress: while FlushOpen writes a bulk load's sorted
// tables, SortedTablesProgress says so, with the cells the load took and
// their work; it reports nothing before or after. It is read each time the
// end's report (every compactReportEvery, here always) writes a line.
func TestSortedTablesProgress(t *testing.T) {
	setChunkBytes(t, 1<<20) // runs spilled, and a last chunk
	s, dir := openBulkTemp(t)
	var cells []schemas.Cell
	var work int64
	for i := range 100_000 {
		cells = append(cells, schemas.TermRow{Term: fmt.Sprintf("t%d", i%5000), Field: "text", Key: schemas.NewRowKey(int64(i), nil)}.Cell())
		work += extsort.CellWork(1+len(cells[i].Key), len(cells[i].Value))
	}
	for b := range slices.Chunk(cells, 1000) {
		if rest, err := s.sorted.Take(b); err != nil || len(rest) != 0 {
			t.Fatalf("Take: %d left, %v", len(rest), err)
		}
	}
	s.sorted.spills.Wait()
	if len(s.sorted.runs) == 0 || s.sorted.cur == nil {
		t.Fatal("the test wants cells both spilled and in memory")
	}
	if _, ok := SortedTablesProgress(); ok {
		t.Fatal("SortedTablesProgress before FlushOpen: a load is ending")
	}
	var seen progressWriter
	oldOut, oldEvery := logOutput, compactReportEvery
	logOutput, compactReportEvery = &seen, time.Nanosecond
	defer func() { logOutput, compactReportEvery = oldOut, oldEvery }()
	if _, err := FlushOpen(context.Background(), dir, false); err != nil {
		t.Fatal(err)
	}
	if len(seen.samples) == 0 {
		t.Fatal("no report during FlushOpen")
	}
	for _, p := range seen.samples {
		if !p.ok || p.CellsAll != int64(len(cells)) || p.Cells < 0 || p.Cells > p.CellsAll ||
			p.WorkAll != work || p.Work < 0 || p.Work > p.WorkAll {
			t.Fatalf("SortedTablesProgress during FlushOpen: %+v, want a load ending with %d cells, %d of work", p, len(cells), work)
		}
	}
	if p, ok := SortedTablesProgress(); ok {
		t.Fatalf("SortedTablesProgress after FlushOpen: %+v, want no load ending", p)
	}
	line := regexp.MustCompile(`^storeio: writing the raw, term and authors tables: \d+% \(\d+ of 100000 cells\), \d+s\n$`)
	for _, l := range seen.lines {
		if !line.MatchString(l) {
			t.Fatalf("the end's report %q, want it to match %s", l, line)
		}
	}
}

// TestEarlyTablesProgress: while a bulk load's base merge runs (the run
// has read MergeEarlyAt of its input), EarlyTablesProgress says so, with
// the cells of the runs it merges; before it and once it is done it
// reports nothing. It is sampled as each of the base's parts begins.
func TestEarlyTablesProgress(t *testing.T) {
	setChunkBytes(t, 64<<10)
	s, dir := openBulkTemp(t)
	var mu sync.Mutex
	var samples []progressSample
	cutBasePart = func(int) bool {
		p, ok := EarlyTablesProgress()
		mu.Lock()
		samples = append(samples, progressSample{p, ok})
		mu.Unlock()
		return false
	}
	t.Cleanup(func() { cutBasePart = nil })
	var written atomic.Int64
	defer MergeEarly(dir, func() float64 { return float64(written.Load()) / 20_000 })()
	if _, ok := EarlyTablesProgress(); ok {
		t.Fatal("EarlyTablesProgress before any cell: a base merge is under way")
	}
	for i := range 20_000 {
		written.Store(int64(i))
		if _, err := s.sorted.Take([]schemas.Cell{schemas.TermRow{Term: fmt.Sprintf("t%d", i%3000), Field: "text", Key: schemas.NewRowKey(int64(i), nil)}.Cell()}); err != nil {
			t.Fatal(err)
		}
	}
	s.sorted.spills.Wait() // the base merge, whole
	if _, ok := EarlyTablesProgress(); ok {
		t.Fatal("EarlyTablesProgress after the base merge: one is under way")
	}
	if s.sorted.baseRuns == 0 {
		t.Fatal("no base merge: the test wants one")
	}
	// The cells the base merged, and their work: the keys are distinct,
	// each run's cells are the first of the load's, in order.
	var inBase int64
	for _, r := range s.sorted.runs[:s.sorted.baseRuns] {
		inBase += r.Cells
	}
	if inBase == 0 || inBase > 20_000 || s.sorted.baseCells != inBase {
		t.Fatalf("the base's runs hold %d cells and the base %d, want the same, some of the 20000", inBase, s.sorted.baseCells)
	}
	var work int64
	for i := range inBase {
		c := schemas.TermRow{Term: fmt.Sprintf("t%d", i%3000), Field: "text", Key: schemas.NewRowKey(i, nil)}.Cell()
		work += extsort.CellWork(1+len(c.Key), len(c.Value))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(samples) == 0 {
		t.Fatal("no sample: no part of the base began")
	}
	for _, p := range samples {
		if !p.ok || p.CellsAll != inBase || p.Cells < 0 || p.Cells > p.CellsAll || p.WorkAll != work || p.Work < 0 || p.Work > p.WorkAll {
			t.Fatalf("EarlyTablesProgress during the base merge: %+v, want one under way over %d cells, %d of work", p, inBase, work)
		}
	}
	if _, err := FlushOpen(context.Background(), dir, false); err != nil {
		t.Fatal(err)
	}
}

// progressWriter samples SortedTablesProgress at each write.
type progressWriter struct {
	samples []progressSample
	lines   []string
}

type progressSample struct {
	TablesProgress
	ok bool
}

func (w *progressWriter) Write(b []byte) (int, error) {
	p, ok := SortedTablesProgress()
	w.samples = append(w.samples, progressSample{p, ok})
	w.lines = append(w.lines, string(b))
	return len(b), nil
}
