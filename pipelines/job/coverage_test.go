package job

import (
	"fmt"
	"testing"
	"time"
)

func TestCoverageOf(t *testing.T) {
	day := time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)
	h := func(n int) time.Time { return day.Add(time.Duration(n) * time.Hour) }
	run := func(from, to int, status string) RunRecord {
		return RunRecord{From: h(from).Format(time.RFC3339), To: h(to).Format(time.RFC3339), Status: status}
	}
	tests := []struct {
		name string
		runs []RunRecord
		step time.Duration
		want string
	}{
		{"nothing", nil, time.Hour, "[0,6) missing 0"},
		{"one range", []RunRecord{run(1, 3, RunSucceeded)}, time.Hour,
			"[0,1) missing 0 | [1,3) covered 0 | [3,6) missing 0"},
		{"overlapping runs join", []RunRecord{run(1, 3, RunSucceeded), run(2, 4, RunSucceeded)}, time.Hour,
			"[0,1) missing 0 | [1,4) covered 0 | [4,6) missing 0"},
		{"a failed run is partial", []RunRecord{run(1, 3, RunSucceeded), run(3, 5, RunFailed)}, time.Hour,
			"[0,1) missing 0 | [1,3) covered 0 | [3,5) partial 1 | [5,6) missing 0"},
		{"a run that never finished is partial", []RunRecord{run(0, 2, RunRunning)}, time.Hour,
			"[0,2) partial 1 | [2,6) missing 0"},
		{"a failed retry of a covered range stays covered", []RunRecord{run(1, 3, RunSucceeded), run(1, 3, RunFailed)}, time.Hour,
			"[0,1) missing 0 | [1,3) covered 1 | [3,6) missing 0"},
		{"steps of three hours", []RunRecord{run(0, 3, RunSucceeded)}, 3 * time.Hour,
			"[0,3) covered 0 | [3,6) missing 0"},
		{"a run that read nothing is empty, not covered", []RunRecord{run(1, 3, RunEmpty)}, time.Hour,
			"[0,1) missing 0 | [1,3) empty 0 | [3,6) missing 0"},
		{"an empty run beside a failed one is partial", []RunRecord{run(1, 3, RunEmpty), run(2, 4, RunFailed)}, time.Hour,
			"[0,1) missing 0 | [1,2) empty 0 | [2,4) partial 1 | [4,6) missing 0"},
		{"runs without a range do not count", []RunRecord{{Status: RunSucceeded}}, time.Hour, "[0,6) missing 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spans := CoverageOf(tc.runs, h(0), h(6), tc.step)
			got := ""
			for i, s := range spans {
				if i > 0 {
					got += " | "
				}
				got += fmt.Sprintf("[%d,%d) %s %d", int(s.From.Sub(day).Hours()), int(s.To.Sub(day).Hours()), s.Status, s.Failed)
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	// A step that cuts a run's range: the cut step is partial.
	spans := CoverageOf([]RunRecord{run(0, 2, RunSucceeded)}, h(0), h(6), 3*time.Hour)
	if len(spans) != 2 || spans[0].Status != Partial || spans[1].Status != Missing {
		t.Errorf("coverage by 3 h of [0,2): %v, want partial then missing", spans)
	}
}

// TestSuperseded: a failed or interrupted run is superseded once
// succeeded runs started after it cover its range (a run without a range:
// once a succeeded run of its source without a range follows it); then
// CoverageOf no longer counts it as failed.
func TestSuperseded(t *testing.T) {
	day := time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)
	h := func(n int) string { return day.Add(time.Duration(n) * time.Hour).Format(time.RFC3339) }
	at := func(minute int) string {
		return day.Add(48*time.Hour + time.Duration(minute)*time.Minute).Format(time.RFC3339Nano)
	}
	run := func(started, from, to int, status string) RunRecord {
		return RunRecord{Source: "files", Started: at(started), From: h(from), To: h(to), Status: status}
	}
	whole := func(started int, source, status string) RunRecord {
		return RunRecord{Source: source, Started: at(started), Status: status}
	}
	tests := []struct {
		name string
		runs []RunRecord
		want string // per run: s (superseded) or - (not)
	}{
		{"run again over the same range", []RunRecord{run(0, 1, 3, RunInterrupted), run(1, 1, 3, RunSucceeded)}, "s-"},
		{"run again, failing again", []RunRecord{run(0, 1, 3, RunFailed), run(1, 1, 3, RunFailed)}, "--"},
		{"a failure after the success", []RunRecord{run(0, 1, 3, RunSucceeded), run(1, 1, 3, RunFailed)}, "--"},
		{"covered by two later runs", []RunRecord{run(0, 1, 5, RunFailed), run(1, 1, 3, RunSucceeded), run(2, 3, 5, RunSucceeded)}, "s--"},
		{"covered in part", []RunRecord{run(0, 1, 5, RunFailed), run(1, 1, 3, RunSucceeded)}, "--"},
		{"an empty run covers nothing", []RunRecord{run(0, 1, 3, RunFailed), run(1, 1, 3, RunEmpty)}, "--"},
		{"still running", []RunRecord{run(0, 1, 3, RunRunning), run(1, 1, 3, RunSucceeded)}, "--"},
		{"no range, same source", []RunRecord{whole(0, "a/*", RunInterrupted), whole(1, "a/*", RunSucceeded)}, "s-"},
		{"no range, another source", []RunRecord{whole(0, "a/*", RunInterrupted), whole(1, "b/*", RunSucceeded)}, "--"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			for _, s := range Superseded(tc.runs) {
				got += map[bool]string{true: "s", false: "-"}[s]
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	spans := CoverageOf([]RunRecord{run(0, 1, 3, RunInterrupted), run(1, 1, 3, RunSucceeded)}, day, day.Add(4*time.Hour), time.Hour)
	for _, s := range spans {
		if s.Failed != 0 {
			t.Errorf("coverage after the range was run again: %+v, want no failed runs", spans)
			break
		}
	}
}
