package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/job"
)

// TestLogFormatJSON indexes the sample with --log-format json, progress,
// --watch and the metrics endpoint on: every line on stderr is one JSON
// object with time, level and msg, and the progress records carry the
// counts as numbers. A run that fails after its flags were checked says
// so in one JSON line too (exit 1).
func TestLogFormatJSON(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	c := startCLI(t, "index", "--input", "../../../testdata/sample/*", "--store", store,
		"--log-format", "json", "--progress", "100ms", "--watch", "150ms", "--metrics-addr", "127.0.0.1:0")
	if code := c.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, c.stderr.String())
	}
	msgs := map[string]int{}
	var last map[string]any
	for i, l := range strings.Split(strings.TrimSuffix(c.stderr.String(), "\n"), "\n") {
		var rec map[string]any
		d := json.NewDecoder(strings.NewReader(l))
		d.UseNumber()
		if err := d.Decode(&rec); err != nil || d.More() {
			t.Fatalf("stderr line %d is not one JSON object (%v): %q", i+1, err, l)
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("stderr line %d has no %q: %q", i+1, k, l)
			}
		}
		if _, ok := rec[lineKey]; ok {
			t.Errorf("stderr line %d carries the text line: %q", i+1, l)
		}
		msg, _ := rec["msg"].(string)
		msgs[msg]++
		if msg == "progress" {
			last = rec
		}
	}
	if msgs["progress"] == 0 || msgs["metrics"] != 1 || msgs["counts"] == 0 {
		t.Fatalf("records by msg %v: want progress, counts and one metrics", msgs)
	}
	for _, k := range []string{"elapsed_seconds", "phase", "files_read", "files_total", "bytes_read", "bytes_total", "read", "indexed", "indexed_per_second", "rows_written", "rows_written_per_second"} {
		if _, ok := last[k]; !ok {
			t.Errorf("progress record has no %q: %v", k, last)
		}
	}
	if last["level"] != "INFO" {
		t.Errorf("progress level %v, want INFO", last["level"])
	}
	if _, err := last["read"].(json.Number).Int64(); err != nil {
		t.Errorf("read is not an integer: %v", last["read"])
	}

	// A failure after the flags were checked: one JSON line, exit 1.
	c = startCLI(t, "index", "--input", filepath.Join(t.TempDir(), "none-*.json"), "--store", store, "--log-format", "json")
	code := c.wait(t, time.Minute)
	var rec map[string]any
	if err := json.Unmarshal([]byte(c.stderr.String()), &rec); code != 1 || err != nil || rec["msg"] != "run failed" || rec["level"] != "ERROR" || rec["error"] == nil {
		t.Errorf("failed run: exit %d, stderr %q; want exit 1 and one JSON line with msg \"run failed\"", code, c.stderr.String())
	}
}

// TestLogFormatText: the text format prints the lines as they were, and
// a record without a line as msg key=value.
func TestLogFormatText(t *testing.T) {
	var b bytes.Buffer
	l := newRunLogger(&b, "text")
	logProgress(l, job.ProgressSample{Label: "progress", Elapsed: 10 * time.Second, Phase: "reading", Read: 5, Indexed: 4})
	l.Warn("pebble", "error", "disk full")
	want := "progress 10s [reading]: 5 tweets read, 4 indexed (0/s), 0 rows written (0/s)\npebble error=disk full\n"
	if b.String() != want {
		t.Errorf("text log:\n%q\nwant\n%q", b.String(), want)
	}
}
