package storeio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/tweetindex/tweetindex/io/storeio/internal/hooks"
	"github.com/tweetindex/tweetindex/schemas"
)

// Store is an open embedded store. It is safe for concurrent use.
type Store struct {
	db   *pebble.DB
	dir  string
	fs   vfs.FS // every file of the store is read and written through it
	bulk bool   // opened by OpenBulk: no write-ahead log
	// readOnly: opened read-only (OpenReadOnly, or a reader's open of a
	// store on a read-only filesystem): nothing is written to it.
	readOnly bool
	// compactions is how many compactions may run at once: 1 while the
	// store is written (the pipeline has the cores), every core during
	// CompactOpen, when nothing else runs.
	compactions *atomic.Int32
	openedBytes int64 // on disk when opened
	// sorted takes the term cells of a bulk load (sortedLoad); nil
	// unless opened by OpenBulk.
	sorted   *sortedLoad
	snapshot bool // a snapshot opened read-only (openSnapshot), not shared
	// compacted says that compact compacted the tables written through
	// the memtable (before the load's ingestion, FlushOpen).
	compacted bool
}

var (
	openMu sync.Mutex
	opened = map[string]*handle{}
)

type handle struct {
	store *Store
	refs  int
}

// Open opens (creating if needed) the store in dir. Within one process every
// Open of the same directory shares one database; each Open needs a Close.
func Open(dir string) (*Store, error) { return open(dir, false) }

// OpenBulk opens the store in dir for a bulk load, as bounded runs write
// it: no write-ahead log (what is written reaches disk when a memtable is
// flushed, and at the latest at FlushOpen; a run that dies is re-run, its
// keys being deterministic), and compactions in larger steps (bulkTuning).
// If the store is already open in this process, the open database is
// shared as it is.
func OpenBulk(dir string) (*Store, error) { return open(dir, true) }

// OpenServed is Open for a stream that serves its own store while it
// writes it (tweetindex index --serve): the same database, shared with
// the stream's writers, with Pebble's read-triggered compactions off, so
// that the server's reads never schedule a compaction (the shape of the
// tree stays the writers': their flushes and the compactions those
// call for). It must be the process's first open of dir for that to hold:
// a store already open is shared as it is.
func OpenServed(dir string) (*Store, error) {
	return openWriter(dir, false, writerOptions{noReadCompactions: true})
}

// ReadCacheSize is a block cache for a process that asks questions again
// (query bench): the uncompressed blocks of what it has read, up to 512 MB,
// kept between questions. Pebble's default, 8 MB, holds about 2,000 tweets.
const ReadCacheSize = 512 << 20

// writeCacheSize is the block cache of a store opened to be written
// (Open, OpenBulk). Pebble counts each memtable against the block cache
// (Cache.Reserve), the one being filled and those being flushed, so a
// cache no larger than a memtable, as Pebble's default of 8 MB is, keeps
// no block at all, and one of two memtables none while one flushes. A run
// into a store that holds tweets reads, for every batch, the identity
// table's Bloom filters (a block a table, up to 1.2 MB) and blocks, and
// the authors blocks of the days it indexes (Identify); a filter the
// cache lost is read from disk again for every batch. So the cache is two
// memtables larger than the 64 MB it is to keep. Memory is taken only as
// blocks are read: a run into a fresh store reads almost none.
const writeCacheSize = 2*memTableSize + 64<<20

// memTableSize is the size of the store's memtables. A bulk load writes
// only the identity, frequency and geo cells through them (the rest goes
// around, bulkload.go), about 50 bytes a tweet. 32 MB rather than 64:
// the same runs into a fresh store (3 M tweets over 30 days, alternated:
// 68.7-69.7 s against 68.9-70.3 s), 30-50 MB less memory, and the cache
// keeps its blocks through the flushes; 3 M tweets of the next 30 days
// into a store of 3 M took 73 s instead of 85 (the fresh run 69 s), and
// the reading of 5 M tweets of a day into a store of that day's 5 M 108 s
// instead of 192 (the fresh run 98 s).
const memTableSize = 32 << 20

// OpenRead opens the store in dir as Open does, but only a store that
// exists: a directory that holds none is an error, and is left as it was
// (a command pointed at the wrong directory must not leave a new database
// there). It is for commands that change a store they did not create
// (forget, check --repair); a reader that only reads opens it with
// OpenReadOnly. It has a block cache of cacheSize bytes (Pebble's default if
// 0). Memory is taken as blocks are
// read, and it costs: a one-shot question that reads 80 MB of blocks into a
// large cache spends more time in page faults than it saves, while a
// process that asks again finds what it read uncompressed in memory.
// Pebble runs no compaction of its own in it: the shape of the tree is
// the writers' to keep. If the store is already open in this process,
// the open database is shared as it is.
func OpenRead(dir string, cacheSize int64) (*Store, error) {
	var c *pebble.Cache
	if cacheSize > 0 {
		c = pebble.NewCache(cacheSize)
		defer c.Unref() // the database holds its own reference
	}
	return openWith(dir, false, c, true, false, writerOptions{})
}

// OpenReadOnly is OpenRead for a reader that only reads (dump, query,
// serve): the store is opened read-only, and nothing is written to it,
// neither when it is opened, nor read, nor closed. Pebble, opened to
// write, would replay a write-ahead log a stream left into a new table,
// write a new MANIFEST and OPTIONS file, and remove obsolete files; read-only,
// it replays the log in memory and writes nothing. So a reader works on a
// read-only filesystem, and, on a full disk, neither fails nor takes
// space. It takes Pebble's lock as OpenRead does (the writers of other
// processes wait for it, lockWait), but where the lock file cannot be
// opened, on a read-only filesystem, where no writer can come either.
// The store's bulk load, if one was cut off and must be completed or
// undone first (its readers would see it in part), is left to the next
// writer: the reader is refused, in one line saying so. If the store is
// already open in this process, the open database is shared as it is
// (a writer's, if it was opened to be written).
func OpenReadOnly(dir string, cacheSize int64) (*Store, error) {
	var c *pebble.Cache
	if cacheSize > 0 {
		c = pebble.NewCache(cacheSize)
		defer c.Unref()
	}
	return openWith(dir, false, c, true, true, writerOptions{})
}

// OpenReadOrSnapshot is OpenReadOnly for a reader that may read a snapshot:
// when another process holds the store (a stream writing it) and
// publishes snapshots (PublishSnapshots), it opens the newest snapshot,
// read-only, instead (Store.Snapshot says so and when it was taken).
func OpenReadOrSnapshot(dir string, cacheSize int64) (*Store, error) {
	s, err := OpenReadOnly(dir, cacheSize)
	var locked lockedError
	if errors.As(err, &locked) {
		var c *pebble.Cache
		if cacheSize > 0 {
			c = pebble.NewCache(cacheSize)
			defer c.Unref()
		}
		if snap, _, serr := openSnapshot(dir, c); serr == nil {
			return snap, nil
		}
	}
	return s, err
}

// lockedError is the error of opening a store another process holds.
type lockedError struct{ error }

func (e lockedError) Unwrap() error { return e.error }

// lockWait is how long a writer (Open, OpenBulk) waits for a store
// another process holds: a query holds it for a moment, and a run should
// not fail to start because one was asked just then.
var lockWait = 3 * time.Second

func open(dir string, bulk bool) (*Store, error) {
	return openWriter(dir, bulk, writerOptions{})
}

// writerOptions are the options of a writer's open beyond bulk.
type writerOptions struct {
	// noReadCompactions turns Pebble's read-triggered compactions off
	// (OpenServed).
	noReadCompactions bool
}

func openWriter(dir string, bulk bool, wo writerOptions) (*Store, error) {
	c := pebble.NewCache(writeCacheSize)
	defer c.Unref() // the database holds its own reference
	deadline := time.Now().Add(lockWait)
	for {
		s, err := openWith(dir, bulk, c, false, false, wo)
		var locked lockedError
		if !errors.As(err, &locked) || time.Now().After(deadline) {
			return s, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openWith opens the store in dir, with block cache c (nil: Pebble's
// default); if it is not open in this process and holds no database, it
// creates one, or fails if mustExist. readOnly (with mustExist) opens it
// read-only (OpenReadOnly).
func openWith(dir string, bulk bool, c *pebble.Cache, mustExist, readOnly bool, wo writerOptions) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	openMu.Lock()
	defer openMu.Unlock()
	if h, ok := opened[abs]; ok {
		if h.store.readOnly && !readOnly {
			// Pebble's database cannot be reopened to be written while
			// its readers read it.
			return nil, fmt.Errorf("store %s is open read-only in this process (a reader has it): close the reader before writing the store", abs)
		}
		h.refs++
		return h.store, nil
	}
	fs := storeFS()
	if mustExist {
		// Before Open, which would leave a LOCK file behind.
		if d, err := pebble.Peek(abs, fs); err == nil && !d.Exists {
			return nil, openError(abs, pebble.ErrDBDoesNotExist)
		}
	}
	o := options(bulk)
	o.Logger = quietLogger{dir: abs}
	o.EventListener.BackgroundError = func(err error) { backgroundError(abs, fs, err) }
	o.Cache = c
	o.ErrorIfNotExists = mustExist
	// A reader (OpenRead) leaves the shape of the tree to writers: after
	// two runs of the same days, whose tables Pebble then wants to merge,
	// a query started one of those compactions and waited for it when it
	// closed the store (2.6-3.9 s for an answer of 0.1 s). Its manual
	// compactions still run, if a writer that shares it (in this process)
	// asks for one.
	o.DisableAutomaticCompactions = mustExist
	if wo.noReadCompactions {
		o.Experimental.ReadSamplingMultiplier = -1
	}
	compactions := new(atomic.Int32)
	compactions.Store(1)
	o.CompactionConcurrencyRange = func() (int, int) { n := int(compactions.Load()); return n, n }
	o.FS = fatalFS{FS: fs, dir: abs}
	o.ReadOnly = readOnly
	defer stopOnPanic(abs) // Pebble's, in its recovery of the log (recoverIngest's writes)
	db, err := pebble.Open(abs, o)
	rofs := false // on a read-only filesystem
	if err != nil && mustExist && errors.Is(err, syscall.EROFS) {
		// A reader of a store on a read-only filesystem (a snapshot, a
		// mount): opened read-only, and without the lock, which no
		// writer can take there either.
		o.ReadOnly, o.FS = true, lockless{fatalFS{FS: fs, dir: abs}}
		db, err = pebble.Open(abs, o)
		readOnly, rofs = err == nil, err == nil
	}
	if err != nil {
		if isLocked(err) {
			return nil, lockedError{openError(abs, err)}
		}
		return nil, openError(abs, err)
	}
	if readOnly {
		if err := unfinishedLoad(db, fs, abs, rofs); err != nil {
			db.Close()
			return nil, err
		}
	} else if _, err := recoverIngest(db, fs, abs); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: completing the end of a bulk load that was cut off: %w (remove %s to give it up, and run its input again)",
			abs, err, filepath.Join(abs, "bulk-load"))
	}
	s := &Store{db: db, dir: abs, fs: fs, bulk: bulk, readOnly: readOnly, compactions: compactions, openedBytes: int64(db.Metrics().DiskSpaceUsage())}
	if bulk {
		o.FS = fs // the load's files: its errors are its own (sortedLoad.fail)
		if s.sorted, err = newSortedLoad(db, o, abs); err != nil {
			db.Close()
			return nil, openError(abs, err)
		}
	}
	opened[abs] = &handle{store: s, refs: 1}
	return s, nil
}

// compactionBegun, if not nil, counts the compactions that Pebble begins
// in any store of the process (tests).
var compactionBegun *atomic.Int64

// storeFS returns the filesystem stores are opened on: the operating
// system's (tests wrap it with Pebble's vfs/errorfs: storeiotest.SetFS).
func storeFS() vfs.FS { return hooks.FS() }

// lockless is a filesystem whose locks are taken by no one: a read-only
// one, where Pebble's lock file cannot be opened for writing.
type lockless struct{ vfs.FS }

func (lockless) Lock(string) (io.Closer, error) { return io.NopCloser(nil), nil }

// unfinishedLoad says, for a store opened read-only, whether a bulk load
// into it was cut off and must be completed or undone (recoverIngest),
// which a reader does not do: its readers would see the load in part.
// rofs says that the store is on a read-only filesystem.
func unfinishedLoad(db *pebble.DB, fs vfs.FS, dir string, rofs bool) error {
	_, err := fs.Stat(filepath.Join(dir, "bulk-load", ingestPlanFile))
	pending := err == nil
	if !pending {
		it, err := db.NewIter(&pebble.IterOptions{LowerBound: intentBounds[0], UpperBound: intentBounds[1]})
		if err != nil {
			return openError(dir, err)
		}
		pending = it.First()
		it.Close()
	}
	switch {
	case pending && rofs:
		return fmt.Errorf("store %s is on a read-only filesystem and a bulk load into it was cut off: open it once where it can be written (tweetindex index, whatever its input, or forget, or check --repair completes the load), then read it here", dir)
	case pending:
		return fmt.Errorf("store %s: a bulk load into it was cut off, and a reader does not write the store to complete it: run a command that writes it once (tweetindex index, whatever its input, or forget, or check --repair completes the load), then read it", dir)
	}
	return nil
}

func options(bulk bool) *pebble.Options {
	o := &pebble.Options{
		MemTableSize:                memTableSize,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       16,
		L0StopWritesThreshold:       1000,
		LBaseMaxBytes:               256 << 20,
		CompactionConcurrencyRange:  func() (int, int) { return 1, 1 },
	}
	// Bloom filters of the identity table's keys (identityFilter):
	// deduplication asks it for every tweet, and most ids are not there.
	// Tables written before it have a filter of every key; Filters lets
	// reads use those too.
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = identityFilter{}
	}
	o.Filters = map[string]pebble.FilterPolicy{
		identityFilterName:            identityFilter{},
		bloom.FilterPolicy(10).Name(): bloom.FilterPolicy(10),
	}
	if bulk {
		o.DisableWAL = true
		bulkTuning(o)
	}
	o.Logger = quietLogger{}
	o.EventListener = &pebble.EventListener{
		// A damaged file: the read that finds it fails with an error
		// naming it (readError), where Pebble's default stops the
		// process (Logger.Fatalf) with a trace.
		DataCorruption: func(pebble.DataCorruptionInfo) {},
		CompactionBegin: func(pebble.CompactionInfo) {
			if compactionBegun != nil {
				compactionBegun.Add(1)
			}
		},
	}
	return o
}

// Dir returns the store's absolute directory.
func (s *Store) Dir() string { return s.dir }

// Close releases this Open; the last one flushes and closes the database.
func (s *Store) Close() error {
	if s.snapshot {
		return s.db.Close()
	}
	openMu.Lock()
	defer openMu.Unlock()
	h, ok := opened[s.dir]
	if !ok || h.store != s {
		return nil
	}
	h.refs--
	if h.refs > 0 {
		return nil
	}
	delete(opened, s.dir)
	if s.readOnly {
		return s.db.Close()
	}
	if s.sorted != nil {
		if err := s.sorted.Finish(context.Background()); err != nil {
			s.db.Close()
			return fmt.Errorf("close store %s: %w", s.dir, err)
		}
	}
	if err := s.db.Flush(); err != nil {
		s.db.Close()
		return fmt.Errorf("flush store %s: %w", s.dir, err)
	}
	return s.db.Close()
}

// Write stores cells as one atomic batch. Later cells with the same key
// overwrite earlier ones: writes are upserts.
func (s *Store) Write(cells []schemas.Cell) error {
	size := 0
	for i := range cells {
		size += len(cells[i].Key) + len(cells[i].Value) + 16
	}
	b := s.NewBatch(size)
	defer b.Close()
	b.Add(cells)
	return b.Commit()
}

// Batch gathers cells for one atomic write. Cells are copied into it as
// they are added, so a writer need not keep them. A Batch is not safe for
// concurrent use.
type Batch struct {
	store *Store
	b     *pebble.Batch
	key   []byte
	size  int   // capacity hint
	err   error // of the sorted load, returned by Commit
}

// NewBatch returns an empty batch of s with room for about size bytes of
// writes (it grows past them as needed).
func (s *Store) NewBatch(size int) *Batch {
	return &Batch{store: s, b: s.db.NewBatchWithSize(size), size: size}
}

// Add copies cells into the batch; a deletion (Cell.Delete) removes the
// cell's key. In a bulk load the term cells go to the sorted load instead
// (sortedLoad.Take), written and deleted in the order they come, whoever
// writes them.
func (b *Batch) Add(cells []schemas.Cell) {
	if l := b.store.sorted; l != nil && b.err == nil {
		rest, err := l.Take(cells)
		if err != nil {
			b.err = err
			return
		}
		cells = rest
	}
	for i := range cells {
		b.key = appendKey(b.key[:0], cells[i].Table, cells[i].Key)
		if cells[i].Delete {
			// Errors of Set and Delete are for batches that cannot take
			// writes (indexed or read-only batches), which this is not.
			_ = b.b.Delete(b.key, nil)
			continue
		}
		_ = b.b.Set(b.key, cells[i].Value, nil)
	}
}

// Len returns the size of the batch's encoded writes in bytes.
func (b *Batch) Len() int { return b.b.Len() }

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.b.Empty() }

// Commit writes the batch to the store (without syncing: see Sync) and
// empties it for reuse.
func (b *Batch) Commit() error {
	defer stopOnPanic(b.store.dir)
	if b.err != nil {
		return fmt.Errorf("store %s: %w", b.store.dir, b.err)
	}
	if b.b.Empty() {
		return nil
	}
	if err := b.b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("store %s: commit: %w", b.store.dir, err)
	}
	// A committed batch may be referenced by the memtable that holds it
	// (a large batch is flushed as it is): start a fresh one rather than
	// Reset it.
	b.b.Close()
	b.b = b.store.db.NewBatchWithSize(b.size)
	return nil
}

// Close releases the batch; what was not committed is dropped.
func (b *Batch) Close() {
	if b.b != nil {
		b.b.Close()
		b.b = nil
	}
}

// Sync makes every write so far durable. Write commits without syncing,
// which leaves the tail of the write-ahead log in memory until the store
// is closed or synced. A store opened by OpenBulk has no log: Sync does
// nothing, and FlushOpen makes its writes durable.
func (s *Store) Sync() error {
	if s.bulk {
		return nil
	}
	defer stopOnPanic(s.dir)
	if err := s.db.LogData(nil, pebble.Sync); err != nil {
		return fmt.Errorf("store %s: sync: %w", s.dir, err)
	}
	return nil
}

// openStore returns the store in dir if this process has it open.
func openStore(dir string) *Store {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	openMu.Lock()
	defer openMu.Unlock()
	if h, ok := opened[abs]; ok {
		return h.store
	}
	return nil
}

// Get returns the value of key in table, and whether it exists.
func (s *Store) Get(table schemas.Table, key []byte) ([]byte, bool, error) {
	k := appendKey(nil, table, key)
	if l := s.loading(table, key, key); l != nil {
		var v []byte
		found, del := false, false
		err := l.scan(context.Background(), k, append(k[:len(k):len(k)], 0), func(_, val []byte, d bool) error {
			v, found, del = bytes.Clone(val), true, d
			return nil
		})
		switch {
		case err != nil:
			return nil, false, readError(s.dir, "get", err)
		case found:
			return v, !del, nil
		}
	}
	v, closer, err := s.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, readError(s.dir, "get", err)
	}
	defer closer.Close()
	return bytes.Clone(v), true, nil
}

// Scan calls fn for every cell of table with start <= key < end, in key
// order (end nil: to the end of the table). Key and value are only valid
// during the call. Scan stops at the first error of fn or when ctx is done.
func (s *Store) Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error {
	lower := appendKey(nil, table, start)
	var upper []byte
	if end == nil {
		upper = []byte{byte(table) + 1}
	} else {
		upper = appendKey(nil, table, end)
	}
	// What a bulk load holds of the range and has not ingested yet: its
	// writes are later than the database's, and win.
	var loaded []loadedCell
	if l := s.loading(table, start, end); l != nil {
		err := l.scan(ctx, lower, upper, func(k, v []byte, del bool) error {
			loaded = append(loaded, loadedCell{bytes.Clone(k), bytes.Clone(v), del})
			return nil
		})
		if err != nil {
			return readError(s.dir, "scan "+table.Name(), err)
		}
	}
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return readError(s.dir, "scan "+table.Name(), err)
	}
	defer it.Close()
	// emitLoaded calls fn with the loaded cells before key (all: nil).
	emitLoaded := func(key []byte) error {
		for len(loaded) > 0 && (key == nil || bytes.Compare(loaded[0].key, key) < 0) {
			c := loaded[0]
			loaded = loaded[1:]
			if !c.del {
				if err := fn(c.key[1:], c.value); err != nil {
					return err
				}
			}
		}
		return nil
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := emitLoaded(it.Key()); err != nil {
			return err
		}
		if len(loaded) > 0 && bytes.Equal(loaded[0].key, it.Key()) {
			continue // written again or deleted by the load: emitLoaded says which
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return readError(s.dir, "scan "+table.Name(), err)
		}
		if err := fn(it.Key()[1:], v); err != nil {
			return err
		}
	}
	if err := emitLoaded(nil); err != nil {
		return err
	}
	if err := it.Error(); err != nil {
		return readError(s.dir, "scan "+table.Name(), err)
	}
	return nil
}

// loading returns the store's bulk load if it may hold cells of table
// with start <= key < end (end nil: to the end of the table) not yet
// ingested (Get and Scan read them too), or nil.
func (s *Store) loading(table schemas.Table, start, end []byte) *sortedLoad {
	l := s.sorted
	if l == nil || !sortedTables[table] || l.done.Load() {
		return nil
	}
	n := schemas.RowKeyLen
	if table == schemas.TableRaw && len(start) >= n && len(end) >= n && bytes.Equal(start[:n], end[:n]) &&
		!l.mayHoldRow(schemas.RowKey(start[:n])) {
		return nil // the cells of one row key (a tweet, a collision), none in the load
	}
	return l
}

// loadedCell is a cell of a bulk load, read before it is ingested.
type loadedCell struct {
	key, value []byte
	del        bool
}

func appendKey(dst []byte, table schemas.Table, key []byte) []byte {
	dst = append(dst, byte(table))
	return append(dst, key...)
}

// quietLogger is Pebble's logger for the store in dir ("" for a
// snapshot).
type quietLogger struct{ dir string }

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	logLine(slog.LevelError, "pebble", []any{"error", text}, "pebble: "+text)
}

// Fatalf is called by Pebble when its database cannot go on (a MANIFEST
// that cannot be written, on a full disk), from any goroutine, and must
// not return: it says so in one line, with what to do, and ends the
// process with exit status 1, no trace.
func (l quietLogger) Fatalf(format string, args ...any) {
	fmt.Fprintln(os.Stderr, fatalLine(l.dir, fmt.Sprintf(format, args...)))
	os.Exit(1)
}

// stopOnPanic, deferred by a write to the store in dir, ends the process
// as Fatalf does (one line naming the store, exit 1) if Pebble panicked:
// it panics when it cannot write its log (a full disk, an I/O error),
// from the committing goroutine, with its commit pipeline still locked,
// and the database cannot be used after.
func stopOnPanic(dir string) {
	if r := recover(); r != nil {
		quietLogger{dir: dir}.Fatalf("%v", r)
	}
}

// backgroundError takes the errors of Pebble's background work (flushes,
// compactions) in the store in dir on fs. Pebble retries the work, and a
// transient error passes (an I/O error that does not come again): it is
// logged. A full disk (ENOSPC) does not pass until space is freed, and
// meanwhile the memtables are not flushed and the writers wait for them
// for ever: the process ends as Fatalf ends it (one line naming the store,
// saying to free space, exit 1), once the files of a bulk load that
// cannot complete (bulk-load/, unless the load's end saved its plan) are
// removed, so that they do not keep the disk full.
func backgroundError(dir string, fs vfs.FS, err error) {
	if !errors.Is(err, syscall.ENOSPC) {
		logLine(slog.LevelError, "pebble", []any{"error", err.Error()}, "pebble: background error: "+err.Error())
		return
	}
	scratch := filepath.Join(dir, "bulk-load")
	if _, serr := fs.Stat(filepath.Join(scratch, ingestPlanFile)); serr != nil {
		_ = fs.RemoveAll(scratch)
	}
	quietLogger{dir: dir}.Fatalf("background error: %v", err)
}

// Cursor reads a key range of one table with seeks: the many short ranges
// of a box search (a spread's days times geohash ranges) or the sorted row
// keys of a retrieval, through one Pebble iterator instead of one each.
type Cursor struct {
	it    *pebble.Iterator
	table schemas.Table
	buf   []byte
	dir   string
}

// NewCursor opens a cursor over the cells of table with start <= key < end
// (end nil: to the end of the table). Close it when done.
func (s *Store) NewCursor(ctx context.Context, table schemas.Table, start, end []byte) (*Cursor, error) {
	upper := []byte{byte(table) + 1}
	if end != nil {
		upper = appendKey(nil, table, end)
	}
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: appendKey(nil, table, start), UpperBound: upper})
	if err != nil {
		return nil, readError(s.dir, "cursor on "+table.Name(), err)
	}
	return &Cursor{it: it, table: table, dir: s.dir}, nil
}

// SeekGE moves to the first cell whose key is key or after it, and reports
// whether there is one within the cursor's range.
func (c *Cursor) SeekGE(key []byte) bool {
	c.buf = appendKey(c.buf[:0], c.table, key)
	return c.it.SeekGE(c.buf)
}

// Next moves to the next cell, and reports whether there is one.
func (c *Cursor) Next() bool { return c.it.Next() }

// First moves to the first cell of the cursor's range, and reports
// whether there is one.
func (c *Cursor) First() bool { return c.it.First() }

// Last moves to the last cell of the cursor's range, and reports whether
// there is one.
func (c *Cursor) Last() bool { return c.it.Last() }

// Key returns the key of the current cell (without the table prefix),
// valid until the cursor moves.
func (c *Cursor) Key() []byte { return c.it.Key()[1:] }

// Value returns the value of the current cell, valid until the cursor moves.
func (c *Cursor) Value() ([]byte, error) {
	v, err := c.it.ValueAndErr()
	if err != nil {
		return nil, readError(c.dir, "cursor on "+c.table.Name(), err)
	}
	return v, nil
}

// Close closes the cursor and returns the iterator's error, if any.
func (c *Cursor) Close() error {
	if err := c.it.Close(); err != nil {
		return readError(c.dir, "cursor on "+c.table.Name(), err)
	}
	return nil
}
