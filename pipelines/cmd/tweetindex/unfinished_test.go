package main

import (
	"os"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/pipelines"
)

// TestUnfinishedRunOnOtherHost: a run record left running by a process on
// another host is listed as running there, and as something this host
// cannot check, not as a process of this host.
func TestUnfinishedRunOnOtherHost(t *testing.T) {
	host, _ := os.Hostname()
	runs := []pipelines.RunRecord{
		{Started: "2026-11-01T00:00:00Z", Status: pipelines.RunRunning, Source: "a", Host: "elsewhere.invalid", PID: 4242},
		{Started: "2026-11-02T00:00:00Z", Status: pipelines.RunRunning, Source: "b", Host: host, PID: os.Getpid()},
	}
	var b strings.Builder
	printUnfinished(&b, runs)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a heading and two runs, got:\n%s", b.String())
	}
	if !strings.Contains(lines[1], "running on elsewhere.invalid, pid 4242: cannot check from this host") {
		t.Errorf("the other host's run: %q", lines[1])
	}
	if !strings.Contains(lines[2], "(pid ") || strings.Contains(lines[2], "cannot check") {
		t.Errorf("this host's run: %q", lines[2])
	}
}
