//go:build unix

package archiveio

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestFIFORefused: a named pipe given as input is refused at once, in one
// line, by Expand and by ReadFile (opening it would wait for a writer for
// ever); a glob or a walk skips it.
func TestFIFORefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	writeFile(t, dir, "a.json", []byte("{}\n"))

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := Expand(fifo)
		if err == nil || !strings.Contains(err.Error(), "named pipe") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Expand(fifo) = %v, want a one-line error naming a named pipe", err)
		}
		_, err = ReadFile(context.Background(), fifo, Options{}, func([]schemas.Record) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadFile(fifo) = %v, want an error naming a named pipe", err)
		}
		for _, pattern := range []string{dir, filepath.Join(dir, "*.json")} {
			files, err := Expand(pattern)
			if err != nil || len(files) != 1 || filepath.Base(files[0]) != "a.json" {
				t.Errorf("Expand(%q) = %v, %v, want a.json only", pattern, files, err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("hangs on a named pipe")
	}
}

// TestExpandNamesSkipped: a walk and a glob name what they skip, with
// why: a named pipe, a link to a device, a link to nothing; regular files
// and links to them are read.
func TestExpandNamesSkipped(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	writeFile(t, dir, "a.json", []byte("{}\n"))
	for name, target := range map[string]string{"zero.json": "/dev/zero", "gone.json": filepath.Join(dir, "nothing"), "b.json": filepath.Join(dir, "a.json")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	want := []Skipped{
		{filepath.Join(dir, "gone.json"), "a link to nothing"},
		{filepath.Join(dir, "pipe.json"), "a named pipe (FIFO)"},
		{filepath.Join(dir, "zero.json"), "a device"},
	}
	for _, pattern := range []string{dir, filepath.Join(dir, "*.json")} {
		files, skipped, err := ExpandSkipping(pattern)
		if err != nil || len(files) != 2 || !slices.Equal(skipped, want) {
			t.Errorf("ExpandSkipping(%q) = %v, %v, %v; want a.json, b.json and skipped %v", pattern, files, skipped, err, want)
		}
	}
}
