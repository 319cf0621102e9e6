package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunFlagsCheckedBeforeStart: a --summary that cannot be written, a
// negative --progress or --watch, and --ttl with --store are refused as
// usage errors (exit 2, one line and a pointer to --help) before anything
// runs (no store is made).
func TestRunFlagsCheckedBeforeStart(t *testing.T) {
	dir := t.TempDir()
	input := "../../../testdata/sample/v1-array.json"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--summary", filepath.Join(dir, "no", "such", "dir", "s.json")}, "--summary "},
		{[]string{"--summary", dir}, "is a directory"},
		{[]string{"--progress", "-1s"}, "--progress must not be negative"},
		{[]string{"--watch", "-1s"}, "--watch must not be negative"},
		{[]string{"--log-format", "xml"}, `--log-format must be text or json, got "xml"`},
		{[]string{"--ttl", "24h"}, "--ttl applies to --cassandra only"},
	}
	for _, tt := range tests {
		store := filepath.Join(dir, "store")
		for _, cmd := range [][]string{
			{"index", "--input", input},
			{"backfill", "--root", dir, "--from", "2026-11-01", "--to", "2026-11-02"},
		} {
			c := startCLI(t, append(append(cmd, "--store", store), tt.args...)...)
			code := c.wait(t, 30*time.Second)
			lines := strings.Split(strings.TrimSpace(c.stderr.String()), "\n")
			if code != 2 || !strings.Contains(lines[0], tt.want) || len(lines) != 2 || !strings.Contains(lines[1], "--help") {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2, a line with %q and a pointer to --help", cmd[0], tt.args, code, lines, tt.want)
			}
			if _, err := os.Stat(store); err == nil {
				t.Errorf("%s %v: made the store before refusing", cmd[0], tt.args)
			}
		}
	}
}
