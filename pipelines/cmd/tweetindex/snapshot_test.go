package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio"
)

// TestQueryWhileStreamWrites: a stream holds its store; tweetindex query,
// another process, reads the stream's newest snapshot instead, says so on
// stderr, and counts the tweets written; when the stream ends, its
// snapshots are gone and the query reads the store itself.
func TestQueryWhileStreamWrites(t *testing.T) {
	addr, _ := streamSample(t, 0)
	store := t.TempDir() + "/store"
	c := startCLI(t, "index", "--kafka", addr, "--topic", "tweets", "--store", store, "--progress", "200ms", "--kafka-checkpoint", "200ms", "--snapshots", "300ms")
	// A query before the stream holds its store would be a query of the
	// store itself (the stream then waits for it): wait until it is held.
	c.waitIndexed(t, 60*time.Second)
	query := func() (string, string, int) {
		q := exec.Command(os.Args[0])
		q.Env = append(os.Environ(), cliArgsEnv+"="+strings.Join([]string{"query", "count", "--store", store, "--format", "csv"}, "\x1f"))
		var out, errOut bytes.Buffer
		q.Stdout, q.Stderr = &out, &errOut
		err := q.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return out.String(), errOut.String(), code
	}
	var out, errOut string
	var code int
	deadline := time.Now().Add(60 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) { // polling until the written tweets show
		out, errOut, code = query()
		if code == 0 && strings.Contains(errOut, "reading its snapshot") && strings.Contains(out, "\n53\n") {
			break
		}
	}
	if code != 0 || !strings.Contains(errOut, "is being written by another process; reading its snapshot of") || !strings.Contains(out, "\n53\n") {
		t.Fatalf("query while the stream writes: exit %d, stdout %q, stderr %q; want 53 tweets from a snapshot\nstream stderr:\n%s", code, out, errOut, c.stderr)
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("stream exit %d:\n%s", code, c.stderr)
	}
	if _, err := os.Stat(storeio.SnapshotsDir(store)); !os.IsNotExist(err) {
		t.Errorf("snapshots left after the stream: %v", err)
	}
	out, errOut, code = query()
	if code != 0 || strings.Contains(errOut, "snapshot") || !strings.Contains(out, "\n53\n") {
		t.Errorf("query after the stream: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
