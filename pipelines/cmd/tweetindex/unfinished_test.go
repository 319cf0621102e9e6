package main

import (
	"os"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/pipelines/job"
)

// TestUnfinishedRunOnOtherHost: a run record left running by a process on
// another host is listed as running there, and as something this host
// cannot check, not as a process of this host.
func TestUnfinishedRunOnOtherHost(t *testing.T) {
	host, _ := os.Hostname()
	runs := []job.RunRecord{
		{Started: "2026-11-01T00:00:00Z", Status: job.RunRunning, Source: "a", Host: "elsewhere.invalid", PID: 4242},
		{Started: "2026-11-02T00:00:00Z", Status: job.RunRunning, Source: "b", Host: host, PID: os.Getpid()},
	}
	var b strings.Builder
	printUnfinished(&b, runs, job.Superseded(runs))
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

// TestUnfinishedRunAgainListedApart: a run that was run again since is
// listed under its own heading, after the runs still to see to, and does
// not count as incomplete.
func TestUnfinishedRunAgainListedApart(t *testing.T) {
	runs := []job.RunRecord{
		{Started: "2026-11-01T00:00:00Z", Status: job.RunInterrupted, Source: "a", From: "2026-10-01T00:00:00Z", To: "2026-10-02T00:00:00Z"},
		{Started: "2026-11-01T01:00:00Z", Status: job.RunSucceeded, Source: "a", From: "2026-10-01T00:00:00Z", To: "2026-10-02T00:00:00Z"},
		{Started: "2026-11-01T02:00:00Z", Status: job.RunFailed, Source: "a", From: "2026-10-02T00:00:00Z", To: "2026-10-03T00:00:00Z", Error: "boom"},
	}
	superseded := job.Superseded(runs)
	var b strings.Builder
	printUnfinished(&b, runs, superseded)
	out := b.String()
	failed, again := strings.Index(out, "2026-11-01T02:00:00Z  failed"), strings.Index(out, "2026-11-01T00:00:00Z  interrupted")
	heading := strings.Index(out, "run again since")
	if failed < 0 || again < 0 || heading < 0 || !(failed < heading && heading < again) {
		t.Errorf("want the failed run first, then the heading and the interrupted run; got:\n%s", out)
	}
	if n := incomplete(nil, runs, superseded); n != 1 {
		t.Errorf("incomplete: %d, want 1 (the failed run only)", n)
	}
}
