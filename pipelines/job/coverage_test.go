package job

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/transforms/flow"
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
		{"runs that record no range make the rest unknown", []RunRecord{{Status: RunSucceeded}}, time.Hour, "[0,6) unknown 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spans := CoverageOf(tc.runs, h(0), h(6), tc.step)
			if got := spansText(spans, day); got != tc.want {
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

// TestCoverageOfObserved: runs given no range count with the range they
// observed (RunRecord.Seen), cut at their bounds with step 0; a record
// without one (written before ranges were observed) makes what no range
// touches unknown, not missing.
func TestCoverageOfObserved(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	h := func(n int) time.Time { return day.Add(time.Duration(n) * time.Hour) }
	seen := func(status string, spans ...[2]int) RunRecord {
		s := &Seen{Spans: []SeenSpan{}}
		for _, sp := range spans {
			s.Spans = append(s.Spans, SeenSpan{From: h(sp[0]).Format(time.RFC3339), To: h(sp[1]).Format(time.RFC3339)})
		}
		return RunRecord{Source: "files", Started: day.Format(time.RFC3339Nano), Seen: s, Status: status}
	}
	later := func(r RunRecord) RunRecord { r.Started = h(200).Format(time.RFC3339Nano); return r }
	asked := func(from, to int, status string) RunRecord {
		return RunRecord{Source: "root", Started: h(100).Format(time.RFC3339Nano), From: h(from).Format(time.RFC3339), To: h(to).Format(time.RFC3339), Status: status}
	}
	old := RunRecord{Source: "old", Started: day.Format(time.RFC3339Nano), Status: RunSucceeded}
	tests := []struct {
		name string
		runs []RunRecord
		want string
	}{
		{"two files apart", []RunRecord{seen(RunSucceeded, [2]int{0, 24}, [2]int{72, 96})},
			"[0,24) covered 0 | [24,72) missing 0 | [72,96) covered 0 | [96,120) missing 0"},
		{"an interrupted run is partial", []RunRecord{seen(RunInterrupted, [2]int{0, 30})},
			"[0,30) partial 1 | [30,120) missing 0"},
		{"a run that read nothing covers nothing", []RunRecord{seen(RunSucceeded)}, "[0,120) missing 0"},
		{"a backfill fills the gap", []RunRecord{seen(RunSucceeded, [2]int{0, 24}, [2]int{72, 96}), asked(24, 72, RunSucceeded)},
			"[0,96) covered 0 | [96,120) missing 0"},
		{"an old record makes the rest unknown", []RunRecord{old, asked(24, 48, RunSucceeded)},
			"[0,24) unknown 0 | [24,48) covered 0 | [48,120) unknown 0"},
		{"an old record run again since records its range", []RunRecord{{Source: "files", Started: day.Format(time.RFC3339Nano), Status: RunInterrupted}, later(seen(RunSucceeded, [2]int{0, 24}))},
			"[0,24) covered 0 | [24,120) missing 0"},
		{"cuts inside the range only", []RunRecord{seen(RunSucceeded, [2]int{-24, 200})}, "[0,120) covered 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spans := CoverageOf(tc.runs, h(0), h(120), 0)
			if got := spansText(spans, day); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestSeenOf: the extents of a run's sources become whole minutes, those
// that overlap or touch merged, at most maxSeenSpans of them.
func TestSeenOf(t *testing.T) {
	at := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix()
	}
	text := seenText
	tests := []struct {
		name    string
		extents []flow.Extent
		want    string
	}{
		{"nothing read", nil, ""},
		{"one file", []flow.Extent{{Min: at("2026-11-01T00:00:05Z"), Max: at("2026-11-01T23:59:30Z")}},
			"[2026-11-01T00:00:00Z 2026-11-02T00:00:00Z)"},
		{"files of a day a minute apart join", []flow.Extent{{Min: at("2026-11-01T00:01:00Z"), Max: at("2026-11-01T00:01:59Z")}, {Min: at("2026-11-01T00:00:02Z"), Max: at("2026-11-01T00:00:40Z")}},
			"[2026-11-01T00:00:00Z 2026-11-01T00:02:00Z)"},
		{"files of days apart stay apart", []flow.Extent{{Min: at("2026-11-03T00:00:00Z"), Max: at("2026-11-03T23:59:59Z")}, {Min: at("2026-11-01T00:00:00Z"), Max: at("2026-11-01T23:59:59Z")}},
			"[2026-11-01T00:00:00Z 2026-11-02T00:00:00Z)[2026-11-03T00:00:00Z 2026-11-04T00:00:00Z)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := text(seenOf(tc.extents)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	// More sources apart than a record keeps: the shortest gaps close.
	var many []flow.Extent
	base := at("2026-11-01T00:00:00Z")
	for i := range maxSeenSpans + 3 {
		gap := int64(3600)
		if i == 10 || i == 20 || i == 30 {
			gap = 120 // the three shortest gaps
		}
		many = append(many, flow.Extent{Min: base, Max: base + 59})
		base += 60 + gap
	}
	s := seenOf(many)
	if len(s.Spans) != maxSeenSpans {
		t.Fatalf("%d extents apart: %d spans, want %d", len(many), len(s.Spans), maxSeenSpans)
	}
	if s.Spans[10].To != unixText(at("2026-11-01T00:00:00Z")+10*3660+60+120+60) {
		t.Errorf("span 10 is %v, want it joined with the next across the short gap", s.Spans[10])
	}
}

// TestRunRecordWithoutSeen: a record written before observed ranges were
// recorded reads, with no range (Seen nil), and one that read nothing
// keeps its empty list (it read nothing; not unrecorded).
func TestRunRecordWithoutSeen(t *testing.T) {
	var r RunRecord
	if err := json.Unmarshal([]byte(`{"source":"in/*.jsonl","started":"2026-10-01T10:00:00Z","finished":"2026-10-01T10:01:00Z","status":"succeeded","summary":{"read":3,"indexed":3,"rows":{}}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Seen != nil || r.Status != RunSucceeded || r.Summary.Read != 3 {
		t.Errorf("old record: %+v", r)
	}
	b, _ := json.Marshal(RunRecord{Source: "x", Seen: seenOf(nil)})
	var back RunRecord
	if err := json.Unmarshal(b, &back); err != nil || back.Seen == nil || len(back.Seen.Spans) != 0 {
		t.Errorf("a run that read nothing: %s read back as %+v (%v)", b, back.Seen, err)
	}
}

// TestCoverageByBoundsMatchesSteps: with every bound on the hour, the
// coverage cut at the runs' bounds (step 0, one sweep) is the coverage cut
// into hours, on random runs of every state, asked and observed.
func TestCoverageByBoundsMatchesSteps(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	h := func(n int) time.Time { return day.Add(time.Duration(n) * time.Hour) }
	rng := rand.New(rand.NewPCG(7, 40))
	statuses := []string{RunSucceeded, RunFailed, RunInterrupted, RunRunning, RunEmpty}
	for trial := range 500 {
		var runs []RunRecord
		for i := range rng.IntN(6) {
			from := rng.IntN(40) - 4
			r := RunRecord{Source: fmt.Sprint("s", rng.IntN(2)), Started: h(100 + i).Format(time.RFC3339Nano), Status: statuses[rng.IntN(len(statuses))]}
			switch rng.IntN(3) {
			case 0:
				r.From, r.To = h(from).Format(time.RFC3339), h(from+1+rng.IntN(12)).Format(time.RFC3339)
			case 1:
				if r.Status == RunEmpty {
					r.Status = RunSucceeded // only asked ranges are recorded empty
				}
				r.Seen = &Seen{Spans: []SeenSpan{}}
				for at := from; at < 44 && len(r.Seen.Spans) < 3; at += 2 + rng.IntN(8) {
					end := at + 1 + rng.IntN(3)
					r.Seen.Spans = append(r.Seen.Spans, SeenSpan{From: h(at).Format(time.RFC3339), To: h(end).Format(time.RFC3339)})
					at = end
				}
			default:
				if r.Status == RunEmpty {
					r.Status = RunSucceeded
				}
			}
			runs = append(runs, r)
		}
		bySteps := fmt.Sprint(CoverageOf(runs, h(0), h(36), time.Hour))
		byBounds := fmt.Sprint(CoverageOf(runs, h(0), h(36), 0))
		if bySteps != byBounds {
			t.Fatalf("trial %d, runs %+v:\nby hours  %s\nby bounds %s", trial, runs, bySteps, byBounds)
		}
	}
}

// spansText writes spans as "[from,to) status failed", hours from day,
// joined by " | ".
func spansText(spans []Span, day time.Time) string {
	got := ""
	for i, s := range spans {
		if i > 0 {
			got += " | "
		}
		got += fmt.Sprintf("[%d,%d) %s %d", int(s.From.Sub(day).Hours()), int(s.To.Sub(day).Hours()), s.Status, s.Failed)
	}
	return got
}
