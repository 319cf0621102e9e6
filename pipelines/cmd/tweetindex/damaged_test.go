package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedStoreOneLine flips 64 bytes in the middle of the store's
// largest table file (the raw table's, for the sample), as a rotten disk
// block would, keeping its size: every command that reads the damaged
// block fails with one line that names the store, says the file is
// damaged and what to do, and exits 1, where Pebble's default stopped
// the process with a panic, a trace and exit status 2.
func TestDamagedStoreOneLine(t *testing.T) {
	t.Parallel()
	store := indexSampleStore(t)
	files, err := filepath.Glob(filepath.Join(store, "*.sst"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no table files in %s (%v)", store, err)
	}
	largest, size := "", int64(0)
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			largest, size = f, fi.Size()
		}
	}
	data, err := os.ReadFile(largest)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		data[len(data)/3+i] ^= 0xff
	}
	if err := os.WriteFile(largest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"dump", "--store", store, "--table", "raw"},
		{"query", "export", "--store", store},
		{"check", "--store", store},
	} {
		code, _, stderr := runCLI(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 1 || len(lines) != 1 || !strings.Contains(stderr, "a file of the store is damaged") || !strings.Contains(stderr, store) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 1 and one line naming the store and saying a file is damaged", strings.Join(args, " "), code, stderr)
		}
	}
}

// indexSampleStore indexes the sample into a new store of the test's own
// with the command, and returns the store's directory.
func indexSampleStore(t *testing.T) string {
	t.Helper()
	store := filepath.Join(t.TempDir(), "store")
	if code, _, stderr := runCLI(t, "index", "--input", "../../../testdata/sample/*", "--store", store); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, stderr)
	}
	return store
}
