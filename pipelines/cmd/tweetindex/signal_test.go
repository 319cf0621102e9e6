package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/cmd/internal/cmdtest"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/schemas"
)

// cliArgsEnv, when set, makes the test binary run main with these
// arguments (separated by \x1f) instead of the tests: a real process to
// send signals to.
const cliArgsEnv = "TWEETINDEX_TEST_CLI_ARGS"

// cli is the command running in a child process.
type cli struct {
	cmd            *exec.Cmd
	stdout, stderr *cmdtest.SyncBuffer
	done           chan error
}

// startCLI starts tweetindex args in a child process.
func startCLI(t *testing.T, args ...string) *cli {
	t.Helper()
	c := &cli{stdout: &cmdtest.SyncBuffer{}, stderr: &cmdtest.SyncBuffer{}, done: make(chan error, 1)}
	c.cmd = exec.Command(os.Args[0])
	c.cmd.Env = append(os.Environ(), cliArgsEnv+"="+strings.Join(args, "\x1f"))
	c.cmd.Stdout, c.cmd.Stderr = c.stdout, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- c.cmd.Wait() }()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

var readRE = regexp.MustCompile(`progress [^\n]* (\d+) tweets read, (\d+) indexed`)

// waitIndexed waits until a progress line says some tweets were indexed.
func (c *cli) waitIndexed(t *testing.T, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, m := range readRE.FindAllStringSubmatch(c.stderr.String(), -1) {
			if n, _ := strconv.Atoi(m[2]); n > 0 {
				return
			}
		}
		select {
		case err := <-c.done:
			t.Fatalf("exited before indexing anything (%v)\nstdout:\n%s\nstderr:\n%s", err, c.stdout, c.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("nothing indexed after %v\nstderr:\n%s", timeout, c.stderr)
}

// wait waits for the process to exit and returns its exit code.
func (c *cli) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-c.done:
		return c.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("still running %v after the signal\nstderr:\n%s", timeout, c.stderr)
	}
	return -1
}

// runRecords reads the run records of the store in dir.
func runRecords(t *testing.T, dir string) []job.RunRecord {
	t.Helper()
	tables, err := sink.Open(sink.Config{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	runs, err := job.ReadRunRecords(context.Background(), tables)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// writeTweets writes n small distinct v1.1 tweets, one per line.
func writeTweets(t *testing.T, path string, n int) {
	t.Helper()
	var b bytes.Buffer
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"created_at":%q,"id_str":"%d","text":"tweet number %d about #signals and stopping","lang":"en","user":{"screen_name":"u%d"}}`+"\n",
			base.Add(time.Duration(i)*time.Second).Format(time.RubyDate), 1e15+i, i, i%97)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSIGTERMStopsBoundedRun: SIGTERM in the middle of a run over files
// stops it within seconds, says how far it got, exits 1 and leaves its run
// record interrupted, not running.
func TestSIGTERMStopsBoundedRun(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 3; i++ {
		writeTweets(t, filepath.Join(dir, fmt.Sprintf("in-%d.jsonl", i)), 100000)
	}
	store := filepath.Join(dir, "store")
	c := startCLI(t, "index", "--input", filepath.Join(dir, "*.jsonl"), "--store", store, "--progress", "100ms")
	c.waitIndexed(t, 60*time.Second)
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := c.wait(t, 30*time.Second)
	stderr := c.stderr.String()
	if code != 1 || !strings.Contains(stderr, "tweetindex index: interrupted by SIGTERM") || !strings.Contains(stderr, "stopped after") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1, a line of how far it got and the interruption", code, stderr)
	}
	runs := runRecords(t, store)
	if len(runs) != 1 || runs[0].Status != "interrupted" || runs[0].Finished == "" {
		t.Errorf("run records %+v, want one interrupted", runs)
	}
	// What it read before it stopped is recorded, and answers over it
	// say so: partial.
	if len(runs) == 1 && (runs[0].Seen == nil || len(runs[0].Seen.Spans) != 1 || runs[0].Seen.Spans[0].From != "2026-11-01T12:00:00Z") {
		t.Errorf("the interrupted run's record: seen %+v, want the minutes from 2026-11-01T12:00Z of the tweets it read", runs[0].Seen)
	}
	if line := coverageOf(t, store, "--from", "2026-11-01T12:00", "--to", "2026-11-01T12:01"); line != "coverage: 2026-11-01T12:00Z..2026-11-01T12:01Z partial (1 run failed or unfinished)" {
		t.Errorf("the answer over what the interrupted run read: %s, want partial", line)
	}
}

// streamSample starts a Kafka broker (kfake) with one partition of topic
// tweets and produces to it the first n lines of the sample's v1.1 stream
// file (all of them if n is 0); it returns the broker's address and every
// line, for the test to produce more.
func streamSample(t *testing.T, n int) (addr string, values [][]byte) {
	t.Helper()
	sample, err := os.ReadFile("../../../testdata/sample/v1-stream-12a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	values = bytes.Split(bytes.TrimSpace(sample), []byte("\n"))
	if n == 0 {
		n = len(values)
	}
	addr = kafkatest.StartBroker(t, map[string]int{"tweets": 1})
	kafkatest.Produce(t, addr, "tweets", 0, values[:n])
	return addr, values
}

// TestSIGTERMDrainsStream: SIGTERM drains a streaming run as SIGINT does:
// it ends with its summary, exits 0 and records the run as succeeded.
func TestSIGTERMDrainsStream(t *testing.T) {
	addr, values := streamSample(t, 0)
	dir := t.TempDir()
	store, summary := filepath.Join(dir, "store"), filepath.Join(dir, "summary.json")
	c := startCLI(t, "index", "--kafka", addr, "--topic", "tweets", "--store", store, "--summary", summary, "--progress", "100ms", "--kafka-checkpoint", "200ms")
	c.waitIndexed(t, 60*time.Second)
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := c.wait(t, 60*time.Second)
	if code != 0 || !strings.Contains(c.stderr.String(), "SIGTERM: draining") || !strings.Contains(c.stdout.String(), fmt.Sprintf("read %d = ", len(values))) {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 0, a drain and a summary of the %d records", code, c.stdout, c.stderr, len(values))
	}
	var sum job.Summary
	if data, err := os.ReadFile(summary); err != nil || json.Unmarshal(data, &sum) != nil || sum.Read != int64(len(values)) {
		t.Errorf("summary file: %+v (%v), want read %d", sum, err, len(values))
	}
	runs := runRecords(t, store)
	if len(runs) != 1 || runs[0].Status != job.RunSucceeded {
		t.Errorf("run records %+v, want one succeeded", runs)
	}
	// The drained stream covers the minutes of the tweets it read: the
	// answer over the data's extent is covered.
	if line := coverageOf(t, store); !strings.HasSuffix(line, " covered") {
		t.Errorf("the answer after the drained stream: %s, want covered", line)
	}
}

// TestKilledRunIsInterrupted: a run killed with SIGKILL leaves its record
// running; reading the records reports it interrupted (its process is
// gone), backfill status lists it so (and exits 3: not covered), and the
// next run records it so.
func TestKilledRunIsInterrupted(t *testing.T) {
	dir := t.TempDir()
	hour := filepath.Join(dir, "2026", "11", "01", "12")
	if err := os.MkdirAll(hour, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		writeTweets(t, filepath.Join(hour, fmt.Sprintf("%02d.json", i)), 100000)
	}
	store := filepath.Join(t.TempDir(), "store")
	c := startCLI(t, "backfill", "--root", dir, "--from", "2026-11-01", "--to", "2026-11-02", "--store", store, "--progress", "100ms")
	c.waitIndexed(t, 60*time.Second)
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.wait(t, 10*time.Second)
	runs := runRecords(t, store)
	if len(runs) != 1 || runs[0].Status != job.RunInterrupted || !strings.Contains(runs[0].Error, "is gone") {
		t.Fatalf("run records %+v, want one interrupted whose process is gone", runs)
	}
	status := startCLI(t, "backfill", "status", "--store", store)
	if code := status.wait(t, 30*time.Second); code != exitIncomplete || !strings.Contains(status.stdout.String(), "interrupted") {
		t.Errorf("backfill status exit %d:\n%s%s\nwant exit %d and the run listed as interrupted", code, status.stdout, status.stderr, exitIncomplete)
	}

	writeTweets(t, filepath.Join(dir, "small.jsonl"), 10)
	next := startCLI(t, "index", "--input", filepath.Join(dir, "small.jsonl"), "--store", store)
	if code := next.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("next run exit %d:\n%s", code, next.stderr)
	}
	tables, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	var meta bytes.Buffer
	if _, err := dump(context.Background(), tables, schemas.TableMeta, &meta); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(meta.String(), `"status":"interrupted"`); n != 1 || strings.Contains(meta.String(), `"status":"running"`) {
		t.Errorf("stored run records after the next run:\n%s\nwant the killed one stored as interrupted", meta.String())
	}
}
