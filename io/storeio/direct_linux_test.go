package storeio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/unix"
)

// TestCreateDirectSetsODirect: a table the load writes is created through
// the store's filesystem and written with O_DIRECT, set on the open file,
// where the file system takes it.
func TestCreateDirectSetsODirect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	w, err := createDirect(vfs.Default, path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !w.direct {
		t.Skip("the test's file system refuses O_DIRECT")
	}
	flags, err := unix.FcntlInt(w.f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_DIRECT == 0 {
		t.Errorf("the file's flags %#x lack O_DIRECT", flags)
	}
}

// TestWriteDirectFallsBack writes a block that O_DIRECT refuses (its
// memory misaligned, as a file system with blocks larger than
// directAlign would refuse an aligned one): writeDirect writes it through
// the page cache instead.
func TestWriteDirectFallsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := vfs.Default.Create(path, writeCategory)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !setDirect(f) {
		t.Skip("the test's file system refuses O_DIRECT")
	}
	b := alignedBlock(2 * directAlign)
	for i := range b {
		b[i] = byte(i)
	}
	want := b[1 : directAlign+1]
	if err := writeDirect(f, want); err != nil {
		t.Fatalf("writeDirect of a misaligned block: %v", err)
	}
	if err := writeDirect(f, b[:directAlign]); err != nil {
		t.Fatalf("writeDirect after falling back: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(append([]byte(nil), want...), b[:directAlign]...)) {
		t.Fatalf("read back %d bytes, not what was written", len(got))
	}
}
