package storeio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// What a process does with the stores it has open once their writers are
// done, by directory: FlushOpen ends a bulk load and makes it durable,
// CompactOpen leaves the store compact for the next opener, CloseOpen
// closes them. The run calls them after its pipeline (pipelines/job).

// CloseOpen closes the databases of the stores this process has open in
// dir or beneath it, whatever references remain, and returns how many it
// closed. Runners in process (prism) do not tear down the DoFns of a
// finished job, so the references its sinks took are never released; a
// process that knows nothing uses those stores any more (a test, before
// it removes its directory) closes them here, and with them Pebble's
// background work.
func CloseOpen(dir string) (int, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	var stores []*Store
	openMu.Lock()
	for d, h := range opened {
		if d == abs || strings.HasPrefix(d, abs+string(filepath.Separator)) {
			h.refs = 1
			stores = append(stores, h.store)
		}
	}
	openMu.Unlock()
	var errs []error
	for _, s := range stores {
		errs = append(errs, s.Close())
	}
	return len(stores), errors.Join(errs...)
}

// FlushOpen makes the writes to the store in dir durable, if this process
// has it open (a bulk load's sorted term cells are merged and ingested,
// its memtables flushed), and reports whether it had. With compact, a
// bulk load's end compacts the tables written through the memtable
// before it ingests the sorted tables (compact, as CompactOpen does):
// once ingested, sorted tables that overlap the store's (a run of the
// same days as an earlier one) give Pebble's own compactions work, which
// took precedence over that compaction: 5 M tweets into a store of 5 M
// of the same day waited 36 s for them, 21 % of the run.
func FlushOpen(ctx context.Context, dir string, compact bool) (bool, error) {
	s := openStore(dir)
	if s == nil {
		return false, nil
	}
	if !s.bulk {
		return true, s.Sync()
	}
	if s.sorted != nil {
		s.sorted.beforeIngest = nil
		if compact {
			s.sorted.beforeIngest = s.compact
		}
		if err := s.sorted.Finish(ctx); err != nil {
			// A load that failed for good: its files go, and what the
			// memtable holds reaches disk all the same (the run's record
			// of the failure), as a kill after a flush would leave it:
			// running the input again completes the load.
			if s.sorted.abandon() {
				if ferr := s.db.Flush(); ferr != nil {
					err = fmt.Errorf("%w; flushing the memtable: %v", err, ferr)
				}
			}
			if strings.HasPrefix(err.Error(), "store "+s.dir+":") { // the compaction's (beforeIngest)
				return true, err
			}
			return true, fmt.Errorf("store %s: %w", s.dir, err)
		}
	}
	if err := s.db.Flush(); err != nil {
		return true, fmt.Errorf("store %s: flush: %w", s.dir, err)
	}
	return true, nil
}

// CompactOpen leaves the store in dir, if this process has it open after
// a bulk load (OpenBulk), compact for whoever opens it next: its memtables
// flushed and the tables written through them (memtableRanges) compacted
// down to the bottom, so that no first-level files are left for the next
// opener to compact (a query would otherwise start compacting 50-60
// files, and read through all of them meanwhile). The sorted tables stay
// as the load ingested them: the end's tables in one sublevel over the
// base's when the load merged early (MergeEarly), which no opener
// compacts. A compaction rewrites those tables of the store, so it is done
// only when the load wrote at least half of what is on disk (a fresh
// store, or one whose size the run doubled). A compaction that takes longer than compactReportEvery
// says how far it is every compactReportEvery (logLine: msg "store
// compacting"), and once at the end when it took that long ("store
// compacted"). It reports whether it compacted. ctx cancels it (the store
// is left as it was, compacted or not: both are valid).
func CompactOpen(ctx context.Context, dir string) (bool, error) {
	s := openStore(dir)
	if s == nil || !s.bulk {
		return false, nil
	}
	return true, s.compact(ctx)
}

// compactReportEvery is how often a long compaction (CompactOpen) says
// how far it is.
var compactReportEvery = 10 * time.Second

func (s *Store) compact(ctx context.Context) error {
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("store %s: flush: %w", s.dir, err)
	}
	before := s.Shape()
	if before.L0Files == 0 && before.Levels <= 1 {
		return nil // already one level
	}
	if s.compacted {
		// Before the load's ingestion (FlushOpen): what was written since
		// (the intents cleared) is a file or two, left for the next
		// writer. Compacted now, it would wait for Pebble's compactions
		// of the ingested tables, if they overlap the store's.
		return nil
	}
	if s.openedBytes > (before.Bytes+s.sorted.pendingBytes())/2 {
		// A small load into a large store (an hour's backfill into a
		// month): a compaction rewrites the whole store, out of
		// proportion to the run. Its first-level files are left for the
		// next writer, which compacts them into the base level only.
		return nil
	}
	start := time.Now()
	reported := false
	stop := every(compactReportEvery, func() {
		reported = true
		m := s.db.Metrics()
		logLine(slog.LevelInfo, "store compacting", []any{"dir", s.dir, "seconds", time.Since(start).Round(time.Second).Seconds(),
			"l0_files", m.Levels[0].TablesCount, "bytes", int64(m.DiskSpaceUsage()), "compacting_bytes", m.Compact.InProgressBytes},
			fmt.Sprintf("storeio: compacting %s after the bulk load: %s, %d first-level files left, %.0f MB on disk",
				s.dir, time.Since(start).Round(time.Second), m.Levels[0].TablesCount, float64(m.DiskSpaceUsage())/1e6))
	})
	// The run is over: the compaction may use every core.
	s.compactions.Store(int32(max(1, runtime.GOMAXPROCS(0))))
	var err error
	for _, r := range memtableRanges {
		if err = s.db.Compact(ctx, r[0], r[1], true); err != nil {
			break
		}
	}
	s.compactions.Store(1)
	stop()
	if err != nil {
		return fmt.Errorf("store %s: compact: %w", s.dir, err)
	}
	s.compacted = true
	// The files compacted away are deleted in the background; a process
	// that exits without closing the store (a run on prism never tears
	// its sinks down) would leave them on disk, the store twice its size.
	s.waitObsoleteDeleted(10 * time.Second)
	if reported {
		after := s.Shape()
		logLine(slog.LevelInfo, "store compacted", []any{"dir", s.dir, "seconds", time.Since(start).Seconds(), "bytes", after.Bytes,
			"bytes_before", before.Bytes, "l0_files_before", before.L0Files},
			fmt.Sprintf("storeio: compacted %s in %s: %.0f MB (was %.0f MB in %d first-level files and %d levels)",
				s.dir, time.Since(start).Round(100*time.Millisecond), float64(after.Bytes)/1e6, float64(before.Bytes)/1e6, before.L0Files, before.Levels))
	}
	return nil
}

// memtableRanges are the key ranges of the tables that a bulk load writes
// through the memtable, which the end of the load compacts
// (CompactOpen): every table's keys start with its byte (appendKey), below
// 0xff, and the ranges leave out the sorted tables, which are ingested as
// they are to stay (bulkload.go).
var memtableRanges = func() (ranges [][2][]byte) {
	for lo := 0; lo < 0xff; {
		if sortedTables[lo] {
			lo++
			continue
		}
		hi := lo + 1
		for hi < 0xff && !sortedTables[hi] {
			hi++
		}
		ranges = append(ranges, [2][]byte{{byte(lo)}, {byte(hi)}})
		lo = hi
	}
	return ranges
}()

// every calls fn every d, in a goroutine, until the returned stop is
// called; stop returns once a running fn is done.
func every(d time.Duration, fn func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// waitObsoleteDeleted waits, at most max, until the tables no longer
// referenced are deleted (tables an open iterator still reads stay).
func (s *Store) waitObsoleteDeleted(max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		if m := s.db.Metrics(); m.Table.ObsoleteCount == 0 && m.Table.ZombieCount == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Shape is how an open store lies on disk.
type Shape struct {
	L0Files  int   // first-level tables: overlapping, each read by every lookup until compacted
	Levels   int   // levels holding tables
	WALBytes int64 // write-ahead log not yet flushed into tables
	Bytes    int64 // on disk in all
}

// Shape returns how the store lies on disk now.
func (s *Store) Shape() Shape {
	m := s.db.Metrics()
	sh := Shape{L0Files: int(m.Levels[0].TablesCount), WALBytes: int64(m.WAL.Size), Bytes: int64(m.DiskSpaceUsage())}
	for _, l := range m.Levels {
		if l.TablesCount > 0 {
			sh.Levels++
		}
	}
	return sh
}
