package storeio

import (
	"errors"
	"unsafe"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/tweetindex/tweetindex/io/storeio/internal/extsort"
)

// The tables the end of a bulk load writes (and Pebble then ingests) are
// written around the page cache where the system allows it (O_DIRECT on
// Linux): a write through the page cache costs the kernel a fresh page
// for every 4 KB, and on a virtual machine whose free memory goes back to
// the host (a balloon's free page reporting, as on the 2-core machine)
// each fresh page is a fault in the host too. There, writing 1.3 GB took
// 2.2 s of system CPU through the page cache and 0.13-0.19 s around it
// (`dd bs=64k` against `dd oflag=direct`), and the end of 1M tweets over
// an hour 5.8 s instead of 7.2. The run files gained nothing from it:
// read back around the page cache as well, their reads waited on the
// disk, and the end took 7.6-8.0 s.
//
// The files are created through the store's filesystem (vfs.FS, as Pebble's
// own and the run files are), so that a fault injected there (a full disk,
// an I/O error: storeiotest) reaches them too, and O_DIRECT is then set
// on the open file (fcntl F_SETFL, which Linux allows for it): the writes
// go through the filesystem's File as well, one block of directBlockBytes
// at a time, aligned as O_DIRECT asks. The cost is one fcntl a file.

// writeCategory is the category of the bulk load's writes, as Pebble's
// filesystem takes it.
const writeCategory = extsort.WriteCategory

// directAlign is the alignment O_DIRECT asks of a write's memory, offset and
// length: the logical block size of the file systems it is used on.
const directAlign = 4096

// directBlockBytes is the size of a directWriter's writes.
const directBlockBytes = 1 << 20

// directFree holds aligned blocks of directBlockBytes for reuse, a few
// (two for each writer under way: one a core).
var directFree = make(chan []byte, 8)

func getDirectBlock() []byte {
	select {
	case b := <-directFree:
		return b[:0]
	default:
		return alignedBlock(directBlockBytes)[:0]
	}
}

func putDirectBlock(b []byte) {
	select {
	case directFree <- b[:0]:
	default:
	}
}

// alignedBlock returns n bytes whose address is a multiple of directAlign.
func alignedBlock(n int) []byte {
	b := make([]byte, n+directAlign)
	off := int(-uintptr(unsafe.Pointer(&b[0])) & (directAlign - 1))
	return b[off : off+n : off+n]
}

// directWriter writes a new file from start to end in blocks of
// directBlockBytes, one block being written in the background while the
// next fills. Write never fails: the first error of the background writes
// is Close's.
type directWriter struct {
	fs     vfs.FS
	path   string
	f      vfs.File
	direct bool   // f is written with O_DIRECT: writes are whole, aligned blocks
	sync   bool   // Close syncs f
	buf    []byte // the block filling
	size   int64  // bytes written (Write) so far
	free   chan []byte
	full   chan []byte
	done   chan error
}

// createDirect creates the file at path on fs for a directWriter; if sync,
// Close makes it durable.
func createDirect(fs vfs.FS, path string, sync bool) (*directWriter, error) {
	f, err := fs.Create(path, writeCategory)
	if err != nil {
		return nil, err
	}
	w := &directWriter{fs: fs, path: path, f: f, direct: setDirect(f), sync: sync,
		free: make(chan []byte, 1), full: make(chan []byte, 1), done: make(chan error, 1)}
	w.buf = getDirectBlock()
	w.free <- getDirectBlock()
	go w.background()
	return w, nil
}

func (w *directWriter) background() {
	var err error
	for b := range w.full {
		if err == nil {
			err = writeDirect(w.f, b)
		}
		w.free <- b[:0]
	}
	w.done <- err
}

func (w *directWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		c := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf, p = w.buf[:len(w.buf)+c], p[c:]
		if len(w.buf) == cap(w.buf) {
			w.full <- w.buf
			w.buf = <-w.free
		}
	}
	w.size += int64(n)
	return n, nil
}

// Close writes what is left, syncs the file if asked to, and closes it.
func (w *directWriter) Close() error {
	tail := len(w.buf)
	if tail > 0 {
		if w.direct {
			// A whole block of zeros after the data, cut off below.
			padded := (tail + directAlign - 1) &^ (directAlign - 1)
			w.buf = w.buf[:padded]
			clear(w.buf[tail:])
		}
		w.full <- w.buf
		w.buf = <-w.free
	}
	close(w.full)
	err := <-w.done
	putDirectBlock(w.buf)
	putDirectBlock(<-w.free)
	if err == nil && w.direct && tail%directAlign != 0 {
		err = truncate(w.f, w.size)
	}
	if err == nil && w.sync {
		err = w.f.Sync()
	}
	return errors.Join(err, w.f.Close())
}

// Abort closes and removes the file.
func (w *directWriter) Abort() {
	w.buf, w.sync = w.buf[:0], false
	w.Close()
	w.fs.Remove(w.path)
}

// directWritable is a directWriter as Pebble's sstable writer takes it.
type directWritable struct{ w *directWriter }

func (d directWritable) Write(p []byte) error { _, err := d.w.Write(p); return err }
func (d directWritable) Finish() error        { return d.w.Close() }
func (d directWritable) Abort()               { d.w.Abort() }
