package storeio

import (
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// fatalFS is the filesystem Pebble opens a store on: the store's (storeFS),
// but a failed write of its write-ahead log, or a failed sync of the
// store's directory, ends the process at once as Fatalf does (one line
// naming the store, saying what to do, exit 1), from the goroutine that
// met it. Pebble cannot go on after either (its own words: its commit
// pipeline "will be horked"), and does not always say so through Fatalf:
// it panics where it closes the log to start another (rotateWAL, called
// under deferred unlocks of its mutex, which turns the panic into Go's
// "fatal error: sync: unlock of unlocked mutex" and a trace of every
// goroutine) and where it moves its MANIFEST marker, in its own
// goroutines, where no caller can recover. A write that was acknowledged
// (synced) before is on disk, as after a kill; the next opener replays
// the log. Other files (tables, whose writes Pebble retries; the bulk
// load's, which it reports) are the store's filesystem's, untouched.
type fatalFS struct {
	vfs.FS
	dir string
}

// fatal reports whether a failure of a write to the file at path ends the
// process: a write-ahead log, or the store's directory itself.
func (fs fatalFS) fatal(path string) bool {
	return strings.HasSuffix(path, ".log") || filepath.Clean(path) == fs.dir
}

func (fs fatalFS) check(err error) error {
	if err != nil {
		quietLogger{dir: fs.dir}.Fatalf("%v", err)
	}
	return nil
}

func (fs fatalFS) wrap(path string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !fs.fatal(path) {
		return f, err
	}
	return fatalFile{File: f, fs: fs}, nil
}

func (fs fatalFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil && fs.fatal(name) {
		return nil, fs.check(err)
	}
	return fs.wrap(name, f, err)
}

func (fs fatalFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, category, opts...)
	return fs.wrap(name, f, err)
}

func (fs fatalFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil && fs.fatal(newname) {
		return nil, fs.check(err)
	}
	return fs.wrap(newname, f, err)
}

func (fs fatalFS) OpenDir(name string) (vfs.File, error) {
	f, err := fs.FS.OpenDir(name)
	return fs.wrap(name, f, err)
}

// Unwrap returns the store's filesystem.
func (fs fatalFS) Unwrap() vfs.FS { return fs.FS }

// fatalFile is a write-ahead log or the store's directory (fatalFS).
type fatalFile struct {
	vfs.File
	fs fatalFS
}

func (f fatalFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.fs.check(err)
}

func (f fatalFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.fs.check(err)
}

func (f fatalFile) Sync() error     { return f.fs.check(f.File.Sync()) }
func (f fatalFile) SyncData() error { return f.fs.check(f.File.SyncData()) }

func (f fatalFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	return full, f.fs.check(err)
}

func (f fatalFile) Preallocate(off, length int64) error {
	return f.fs.check(f.File.Preallocate(off, length))
}
