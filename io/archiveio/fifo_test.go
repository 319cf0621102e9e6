//go:build unix

package archiveio

import (
	"context"
	"path/filepath"
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
