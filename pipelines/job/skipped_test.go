package job

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tweetindex/tweetindex/pipelines"
)

// TestSkippedAndUnreadableInputs: of an --input glob's files, a named
// pipe and a link to a device are not read and the summary names them
// (SkippedFiles); a file whose read fails (a link to /proc/self/mem,
// whose first page no process can read: EIO, where a permission would
// not stop the root user) is dead-lettered and the summary names it
// (UnreadableFiles); the rest is indexed and the counts reconcile.
func TestSkippedAndUnreadableInputs(t *testing.T) {
	dir := filepath.Join(tempDir(t), "in")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "sample", "v1-stream-12a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(dir, "null.json")); err != nil {
		t.Fatal(err)
	}
	mem := filepath.Join(dir, "mem.json")
	if err := os.Symlink("/proc/self/mem", mem); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(mem); err != nil {
		t.Skip("no /proc/self/mem:", err)
	} else {
		_, rerr := f.Read(make([]byte, 1))
		f.Close()
		if rerr == nil {
			t.Skip("/proc/self/mem reads here: no unreadable file to give")
		}
	}
	store := filepath.Join(tempDir(t), "store")
	sum := runPipeline(t, pipelines.Config{Input: filepath.Join(dir, "*"), Store: store})
	has := func(list []string, path, why string) bool {
		return slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, path+" (") && strings.Contains(s, why) })
	}
	if !has(sum.SkippedFiles, filepath.Join(dir, "pipe.json"), "named pipe") || !has(sum.SkippedFiles, filepath.Join(dir, "null.json"), "device") {
		t.Errorf("skipped files %q, want the named pipe and the device", sum.SkippedFiles)
	}
	if len(sum.UnreadableFiles) != 1 || !has(sum.UnreadableFiles, mem, "unreadable: ") {
		t.Errorf("unreadable files %q, want %s alone", sum.UnreadableFiles, mem)
	}
	if sum.DeadLettered < 1 || sum.Indexed == 0 {
		t.Errorf("dead-lettered %d, indexed %d: want the unreadable file dead-lettered and the rest indexed", sum.DeadLettered, sum.Indexed)
	}
}
