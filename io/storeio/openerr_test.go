package storeio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// holdEnv, when set to a directory, makes the test binary open the store
// there, say "ready" and hold it until its stdin closes: another process.
const holdEnv = "STOREIO_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		s, err := Open(dir)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestOpenInUse: a store another process holds is reported as in use by
// that process, naming its pid, not as "resource temporarily unavailable".
func TestOpenInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("holder: %q, %v", line, err)
	}
	defer func(w time.Duration) { lockWait = w }(lockWait)
	lockWait = 300 * time.Millisecond
	start := time.Now()
	_, err = Open(dir)
	if err == nil {
		t.Fatal("opened a store another process holds")
	}
	if waited := time.Since(start); waited < lockWait {
		t.Errorf("gave up after %v, want a wait of %v for the holder to let go", waited, lockWait)
	}
	want := "is in use by another process"
	if runtime.GOOS == "linux" {
		want += fmt.Sprintf(" (pid %d", cmd.Process.Pid)
	}
	if !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "store "+dir) {
		t.Errorf("Open = %v\nwant it to start with the store and say %q", err, want)
	}
}

// TestOpenWaitsForAQuery: a writer that finds the store held (a query
// reading it for a moment) waits for it instead of failing.
func TestOpenWaitsForAQuery(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("holder: %q, %v", line, err)
	}
	time.AfterFunc(300*time.Millisecond, func() { stdin.Close() })
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open while the holder lets go within %v: %v", lockWait, err)
	}
	s.Close()
}

// TestOpenNotAStore: a directory whose CURRENT file is garbage is reported
// as not a store or a damaged one, not as "format major version 1".
func TestOpenNotAStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "is not a tweetindex store, or is damaged") {
		t.Errorf("Open = %v, want it to say the directory is not a store or is damaged", err)
	}
}

// TestOpenReadNeedsAStore: OpenRead of a directory that holds no store
// says so and leaves the directory as it was (no database created in
// it); Open of the same directory creates one.
func TestOpenReadNeedsAStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := OpenRead(dir, 0); err == nil || !strings.Contains(err.Error(), "holds no tweetindex store") {
		if s != nil {
			s.Close()
		}
		t.Errorf("OpenRead of a directory without a store = %v, want it to say it holds none", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("OpenRead left %v in the directory, want only notes.txt", names)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = OpenRead(dir, 0); err != nil {
		t.Fatalf("OpenRead of the store Open created: %v", err)
	}
	s.Close()
}

// TestFatalLine: the line the process ends with when Pebble cannot go on
// is one line, the first of Pebble's message (the rest is its detail and
// traces), naming the store, with what to do: free space for a full
// disk, restore or re-index otherwise.
func TestFatalLine(t *testing.T) {
	for _, tc := range []struct{ dir, msg, want string }{
		{"/data/s", "MANIFEST flush failed: write /s/MANIFEST-000007: no space left on device", "free space"},
		{"/data/s", "on-disk corruption: /s/000041.sst; details: crc32c checksum mismatch\n(1) path: /s/000041.sst\nWraps: (2) attached stack trace", "restore it from a copy"},
		{"", "MANIFEST sync failed: input/output error", "restore it from a copy"},
	} {
		got := fatalLine(tc.dir, tc.msg)
		prefix := "tweetindex: store " + tc.dir + ": the database stopped: "
		if tc.dir == "" {
			prefix = "tweetindex: the store's database stopped: "
		}
		if strings.Contains(got, "\n") || !strings.Contains(got, tc.want) || !strings.HasPrefix(got, prefix+strings.Split(tc.msg, "\n")[0]) {
			t.Errorf("fatalLine(%q, %q) = %q, want one line naming the store with Pebble's first line and %q", tc.dir, tc.msg, got, tc.want)
		}
	}
}

// TestValidUTF8: a DoFn's error whose text holds bytes that are not UTF-8
// (a key in Pebble's words) is given a valid text, which a runner can send
// over gRPC, and still unwraps to itself; a valid one is left as it is.
func TestValidUTF8(t *testing.T) {
	bad := fmt.Errorf("pebble: bounds [r\x00\xe7\xff]: %w", syscall.ENOSPC)
	got := validUTF8(bad)
	if !utf8.ValidString(got.Error()) || !errors.Is(got, syscall.ENOSPC) || !strings.HasPrefix(got.Error(), "pebble: bounds [r") {
		t.Errorf("validUTF8(%q) = %q, want valid UTF-8 that unwraps to ENOSPC", bad, got)
	}
	ok := errors.New("storeio: no space left on device")
	if validUTF8(ok) != ok || validUTF8(nil) != nil {
		t.Error("validUTF8 changed a valid error, or nil")
	}
}
