package storeio

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/sstable"
	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/io/storeio/internal/extsort"
	"github.com/tweetindex/tweetindex/schemas"
)

// The merges of a bulk load's runs into tables (bulkload.go), a key range
// (part) at a time, a part a core at once: the end's (Finish) and the
// base's (mergeBase), and how the end cuts its parts around the base's.

// sortedTableBytes is the size of the tables the load's end writes.
const sortedTableBytes = 128 << 20

// rawBlockBytes is the size of the raw table's blocks in the tables the
// load's end writes (the other tables' are Pebble's default, 4 KB): a
// tweet's JSON is 2-4 KB, and snappy finds more to share between several
// (the 100K bench's store: 164 MB with 4 KB blocks, 125 MB with 16 KB;
// its end 1.5 -> 1.2 s; the ten questions of query bench as fast).
const rawBlockBytes = 16 << 10

// mergeJob is a merge of runs into tables (writeParts).
type mergeJob struct {
	name    string    // of its tables: name-PART-N.sst
	readBuf int       // the read buffer of each run file, bytes
	runs    []runFile // the runs it merges (but the gone ones), ranked by index
	// The bounds of its parts (extsort.PartitionBounds: about even work),
	// and per part the first of runs it merges (nil: the first run).
	bounds [][]byte
	first  []int
	// A chunk in memory, sorted, merged over runs (ranked after them), if
	// not nil.
	last *extsort.Sorted
	// Once true, no part starts (nil: never true).
	stop *atomic.Bool
	// How many parts are merged at once (0: one per core).
	parallel int
}

// work returns the merge work (extsort.CellWork) of j: of each block of
// its runs that a part reads (a block counts in the part its first key is
// in), and of its last chunk. A key written over is merged once, so the
// work done may end short of it.
func (j mergeJob) work() int64 {
	var w int64
	for r := range j.runs {
		if j.runs[r].gone {
			continue
		}
		for _, rs := range j.runs[r].Restarts {
			p, found := slices.BinarySearchFunc(j.bounds, rs.Key, bytes.Compare)
			if found {
				p++
			}
			if j.first == nil || r >= j.first[p] {
				w += rs.Work
			}
		}
	}
	if j.last != nil {
		w += j.last.Work()
	}
	return w
}

// cutBasePart, if not nil, tells the base's merge which parts to leave
// to the end, as the end's cutBase does (tests).
var cutBasePart func(p int) bool

// writeParts merges j's parts into tables, a part a core at a time, and
// returns their paths and which parts it wrote (all of them, unless j.stop
// came true). merged, if not nil, counts the keys written and their work.
func (l *sortedLoad) writeParts(ctx context.Context, j mergeJob, merged *extsort.Count) ([]string, []bool, error) {
	var lastParts [][]extsort.Ranked
	if j.last != nil {
		lastParts = j.last.Sources(j.bounds, len(j.runs))
	}
	tables := make([][]string, len(j.bounds)+1)
	done := make([]bool, len(tables))
	g, gctx := errgroup.WithContext(ctx)
	if j.parallel > 0 {
		g.SetLimit(j.parallel)
	} else {
		g.SetLimit(runtime.GOMAXPROCS(0))
	}
	for p := range tables {
		var lo, hi []byte
		if p > 0 {
			lo = j.bounds[p-1]
		}
		if p < len(j.bounds) {
			hi = j.bounds[p]
		}
		first := 0
		if j.first != nil {
			first = j.first[p]
		}
		g.Go(func() error {
			if j.stop != nil && (j.stop.Load() || cutBasePart != nil && cutBasePart(p)) {
				return nil
			}
			var srcs []extsort.Ranked
			defer func() { extsort.CloseSources(srcs) }()
			for r := first; r < len(j.runs); r++ {
				if j.runs[r].gone {
					continue
				}
				fs, err := extsort.OpenRun(l.fs, &j.runs[r].Run, lo, hi, j.readBuf)
				if err != nil {
					return err
				}
				srcs = append(srcs, extsort.Ranked{Source: fs, Rank: r})
			}
			if lastParts != nil {
				srcs = append(srcs, lastParts[p]...)
			}
			paths, err := l.writeTables(gctx, j.name, p, srcs, merged)
			tables[p], done[p] = paths, err == nil
			return err
		})
	}
	err := g.Wait()
	var paths []string
	for _, t := range tables {
		paths = append(paths, t...)
	}
	return paths, done, err
}

// endParts returns the parts of the end's merge (Finish), and per part the
// first run it merges. Without a base: every run and the last chunk,
// cut into parts of about even work. With one, the runs after the base,
// the last chunk, and the base's runs where the base did not write its
// part (cut short by the end: cutBase), again cut by work, and at the
// edges of those parts of the base as well, so that each part of the end
// lies in parts of the base that were all written (it merges the runs
// after the base) or in one that was not (it merges every run).
func (l *sortedLoad) endParts(last *extsort.Sorted) (bounds [][]byte, first []int) {
	parts := 8 * runtime.GOMAXPROCS(0) // more than cores: they stay busy to the end however the keys compare in cost
	if l.baseRuns == 0 {
		return extsort.PartitionBounds(runsOf(l.runs), last, parts), nil
	}
	basePart := func(k []byte) int { // the part of the base that holds k
		if k == nil {
			return 0
		}
		i, found := slices.BinarySearchFunc(l.baseBounds, k, bytes.Compare)
		if found {
			i++
		}
		return i
	}
	// The work: the base's runs, where it did not write them, and the rest.
	work := runsOf(l.runs)
	for i := range l.baseRuns {
		work[i].Restarts = slices.DeleteFunc(slices.Clone(work[i].Restarts), func(r extsort.Restart) bool { return l.baseDone[basePart(r.Key)] })
	}
	bounds = extsort.PartitionBounds(work, last, parts)
	for p, done := range l.baseDone {
		if !done {
			if p > 0 {
				bounds = append(bounds, l.baseBounds[p-1])
			}
			if p < len(l.baseBounds) {
				bounds = append(bounds, l.baseBounds[p])
			}
		}
	}
	slices.SortFunc(bounds, bytes.Compare)
	bounds = slices.CompactFunc(bounds, bytes.Equal)
	first = make([]int, len(bounds)+1)
	for p := range first {
		var lo []byte
		if p > 0 {
			lo = bounds[p-1]
		}
		if l.baseDone[basePart(lo)] {
			first[p] = l.baseRuns
		}
	}
	return bounds, first
}

// maybeMergeBase starts the base merge (mergeBase) once the run has read
// MergeEarlyAt of its input, unless it has begun or a merge is under way;
// mu held. The base is every run written so far, up to the first one not
// written yet: the runs spill in the background, and the base must hold
// the first chunks in the order they filled (the end's tables, ingested
// after it, hold every later one).
//
// A load of many runs starts it once earlyBaseRuns are written, before
// runFanIn are and would be merged into one run of the next level
// (maybeMerge): that merge wrote three quarters of 5 M tweets' cells once
// more, and kept the base from starting, so that the end merged nearly
// the whole load again (26 s of a 128 s run). Its parts are then merged
// one at a time, on one core, beside the run's reading.
func (l *sortedLoad) maybeMergeBase() {
	if l.based || l.merging || l.finishing || l.failed.Load() != nil {
		return
	}
	read, ok := inputRead.Load(l.store)
	if !ok {
		return
	}
	n := 0
	for n < len(l.runs) && (l.runs[n].Path != "" || l.runs[n].gone) {
		n++
	}
	early := (*read.(*func() float64))() < MergeEarlyAt
	if n == 0 || early && n < earlyBaseRuns() {
		return
	}
	l.based, l.merging = true, true
	l.spills.Add(1)
	parallel := runtime.GOMAXPROCS(0)
	if early {
		parallel = 1
	}
	go l.mergeBase(n, slices.Clone(l.runs[:n]), parallel)
}

// earlyBaseRuns is how many written runs start the base of a load before
// it has read MergeEarlyAt of its input: three quarters of runFanIn, so
// that the base, merged on one core, is done about when the input is
// read, and the end merges the runs after it. 5 M tweets of a day: the
// end 10.7 s of a 119 s run with 384 runs, 13.2 s of 120 s with 512.
func earlyBaseRuns() int { return runFanIn * 3 / 4 }

// mergesEarly reports whether the load will merge a base (MergeEarly
// says how much of its input the run has read) and has not begun it:
// its runs wait for it rather than merge into a level (maybeMerge).
// mu held.
func (l *sortedLoad) mergesEarly() bool {
	_, ok := inputRead.Load(l.store)
	return ok && !l.based
}

// baseReadBuffer is the read buffer of each run the base merge reads: it
// shares the memory with the run, which goes on reading (the end's,
// mergeReadBuffer, is 4 times larger; 3 M tweets: 312 runs, 2 parts at a
// time, 30 MB less).
const baseReadBuffer = 16 << 10

// mergeBase merges runs, the first n of the load, into the base's tables,
// which the end ingests before its own (ingest), a part at a time: once
// the end has begun (cutBase), no part starts, and the end merges the
// parts not written with its own. Until then the runs stay: reads find
// the base's cells there.
func (l *sortedLoad) mergeBase(n int, runs []runFile, parallel int) {
	defer l.spills.Done()
	job := mergeJob{name: "base", readBuf: baseReadBuffer, runs: runs, bounds: extsort.PartitionBounds(runsOf(runs), nil, 8*runtime.GOMAXPROCS(0)), stop: &l.cutBase, parallel: parallel}
	var merged extsort.Count
	var cells int64
	for _, r := range runs {
		cells += r.Cells
	}
	mergingEarly.Store(l, &finishProgress{count: &merged, cells: cells, work: job.work()})
	defer mergingEarly.Delete(l)
	paths, done, err := l.writeParts(context.Background(), job, &merged)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.merging = false
	if err != nil {
		l.fail(fmt.Errorf("storeio: writing the first sorted tables: %w", err))
		return
	}
	l.baseRuns, l.baseBounds, l.baseDone, l.baseTables, l.baseCells = n, job.bounds, done, paths, merged.Keys.Load()
	l.maybeMerge()
}

// writeTables merges srcs (a partition's runs) into tables of about
// sortedTableBytes, named name-PART-N.sst, and returns their paths.
func (l *sortedLoad) writeTables(ctx context.Context, name string, part int, srcs []extsort.Ranked, merged *extsort.Count) ([]string, error) {
	var paths []string
	var w *sstable.Writer
	var table byte // of w's keys
	err := extsort.Merge(ctx, srcs, merged, func(k, v []byte, del bool) error {
		if w != nil && k[0] != table {
			// A table of its own for each table's keys, written with
			// that table's options.
			if err := w.Close(); err != nil {
				return err
			}
			w = nil
		}
		if w == nil {
			path := filepath.Join(l.dir, fmt.Sprintf("%s-%02d-%04d.sst", name, part, len(paths)))
			f, err := createDirect(l.fs, path, true)
			if err != nil {
				return err
			}
			paths = append(paths, path)
			o := l.writer
			if table = k[0]; table == byte(schemas.TableRaw) {
				o.BlockSize = rawBlockBytes
			}
			w = sstable.NewWriter(directWritable{f}, o)
		}
		var err error
		if del {
			err = w.Delete(k)
		} else {
			err = w.Set(k, v)
		}
		if err != nil {
			return err
		}
		if w.Raw().EstimatedSize() >= sortedTableBytes {
			err, w = w.Close(), nil
		}
		return err
	})
	if w != nil {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	return paths, err
}
