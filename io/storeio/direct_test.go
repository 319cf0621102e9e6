package storeio

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestDirectWriter writes files of sizes around the alignment and the
// block size, in writes of several sizes, and reads them back: in a
// directory of the test's file system (O_DIRECT on Linux's ext4, xfs) and
// in tmpfs, which refuses O_DIRECT.
func TestDirectWriter(t *testing.T) {
	dirs := map[string]string{"temp": t.TempDir()}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		shm, err := os.MkdirTemp("/dev/shm", "directwriter")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(shm) })
		dirs["tmpfs"] = shm
	}
	sizes := []int{0, 1, directAlign - 1, directAlign, directAlign + 1,
		directBlockBytes - 1, directBlockBytes, directBlockBytes + directAlign + 7, 3*directBlockBytes + 12345}
	rng := rand.New(rand.NewPCG(1, 2))
	for name, dir := range dirs {
		for _, size := range sizes {
			for _, piece := range []int{1 << 10, 16 << 10, 4 << 20} {
				want := make([]byte, size)
				for i := range want {
					want[i] = byte(rng.Uint32())
				}
				path := filepath.Join(dir, "f")
				w, err := createDirect(vfs.Default, path, true)
				if err != nil {
					t.Fatal(err)
				}
				for b := want; len(b) > 0; {
					n := min(len(b), piece/2+rng.IntN(piece))
					if _, err := w.Write(b[:n]); err != nil {
						t.Fatal(err)
					}
					b = b[n:]
				}
				if err := w.Close(); err != nil {
					t.Fatalf("%s: %d bytes in writes of %d: %v", name, size, piece, err)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: %d bytes in writes of %d: read back %d bytes, not what was written", name, size, piece, len(got))
				}
			}
		}
	}
}

func TestDirectWriterAbort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	w, err := createDirect(vfs.Default, path, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bytes.Repeat([]byte{7}, directBlockBytes+5))
	w.Abort()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("after Abort: %v, want no file", err)
	}
}
