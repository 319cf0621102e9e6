package storeio

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A store is locked by the process that writes it. So that questions can
// be asked while a stream writes, the writer publishes snapshots of the
// store (Pebble checkpoints: its tables hard-linked, its manifest and log
// copied) into the sibling directory DIR.snapshots, one every interval,
// and OpenRead falls back to the newest one when the store is locked. A
// snapshot is as of when it was taken: a stream's snapshots hold what was
// written (the log is in them); a bulk load's would miss its memtables, so
// bounded runs publish none. Snapshots a reader has open are locked by it
// and left until it is done; the others are removed as newer ones come,
// and all of them when the writer stops.

// SnapshotsDir is where the snapshots of the store in dir are published.
func SnapshotsDir(dir string) string { return filepath.Clean(dir) + ".snapshots" }

// PublishSnapshots publishes a snapshot of the store in dir, while this
// process has it open, every interval until stop is called; stop removes
// the snapshots no reader has open. took, if not nil, is told how long
// each snapshot took.
func PublishSnapshots(dir string, interval time.Duration, took func(time.Duration)) (stop func()) {
	snaps := SnapshotsDir(dir)
	removeUnused(snaps, "")
	stopTicker := every(interval, func() {
		s := openStore(dir)
		if s == nil || s.bulk {
			return
		}
		start := time.Now()
		name, err := s.checkpointTo(snaps)
		if err != nil {
			logLine(slog.LevelWarn, "store snapshot failed", []any{"dir", dir, "error", err.Error()},
				fmt.Sprintf("storeio: snapshot of %s for readers: %v", dir, err))
			return
		}
		if took != nil {
			took(time.Since(start))
		}
		removeUnused(snaps, name)
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			stopTicker()
			removeUnused(snaps, "")
			os.Remove(snaps) // if empty
		})
	}
}

// checkpointTo writes a checkpoint of s under snaps and returns its name:
// the time it was taken, so that names sort by age.
func (s *Store) checkpointTo(snaps string) (string, error) {
	if err := os.MkdirAll(snaps, 0o755); err != nil {
		return "", err
	}
	name := time.Now().UTC().Format("20060102T150405.000000000")
	tmp := filepath.Join(snaps, ".tmp-"+name)
	if err := s.db.Checkpoint(tmp, pebble.WithFlushedWAL()); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, filepath.Join(snaps, name)); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return name, nil
}

// snapshotNames returns the published snapshots under snaps, newest first.
func snapshotNames(snaps string) []string {
	entries, err := os.ReadDir(snaps)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names
}

// removeUnused removes the snapshots under snaps (and unfinished ones)
// but keep that no reader holds open.
func removeUnused(snaps, keep string) {
	entries, err := os.ReadDir(snaps)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep {
			continue
		}
		p := filepath.Join(snaps, e.Name())
		if strings.HasPrefix(e.Name(), ".tmp-") {
			os.RemoveAll(p)
			continue
		}
		lock, err := pebble.LockDirectory(p, vfs.Default)
		if err != nil {
			continue // a reader has it open
		}
		os.RemoveAll(p)
		lock.Close()
	}
}

// openSnapshot opens the newest snapshot of the store in dir read-only,
// with block cache c (nil: Pebble's default).
func openSnapshot(dir string, c *pebble.Cache) (*Store, time.Time, error) {
	snaps := SnapshotsDir(dir)
	var lastErr error
	for _, name := range snapshotNames(snaps) {
		o := options(false)
		o.ReadOnly = true
		o.Cache = c
		p := filepath.Join(snaps, name)
		db, err := pebble.Open(p, o)
		if err != nil {
			lastErr = err // removed meanwhile: try the next
			continue
		}
		at, _ := time.Parse("20060102T150405.000000000", name)
		return &Store{db: db, dir: p, snapshot: true}, at, nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("no snapshot in %s", snaps)
	}
	return nil, time.Time{}, lastErr
}

// Snapshot reports whether s is a snapshot of a store being written, and
// when it was taken.
func (s *Store) Snapshot() (bool, time.Time) {
	if !s.snapshot {
		return false, time.Time{}
	}
	at, _ := time.Parse("20060102T150405.000000000", filepath.Base(s.dir))
	return true, at
}
