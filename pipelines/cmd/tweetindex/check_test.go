package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestCheckCommand: check on the sample's store finds nothing (exit 0);
// with two rows lost, it names them and exits 1 with one line saying
// what to run; --repair writes them back (exit 0), and check then finds
// nothing again.
func TestCheckCommand(t *testing.T) {
	t.Parallel()
	store := indexSampleStore(t)
	report := func(args ...string) (int, maintain.CheckReport, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"check", "--store", store, "--format", "jsonl"}, args...)...)
		var rep maintain.CheckReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("check %v: exit %d, report %q: %v\n%s", args, code, stdout, err, stderr)
		}
		return code, rep, stderr
	}
	if code, rep, stderr := report(); code != 0 || rep.Problems() != 0 || rep.Tweets == 0 {
		t.Fatalf("check of a run's store: exit %d, %d problems in %d tweets\n%s", code, rep.Problems(), rep.Tweets, stderr)
	}

	st, err := storeio.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	var lost []schemas.Cell
	for _, table := range []schemas.Table{schemas.TableEdges, schemas.TableTerms} {
		err := st.Scan(context.Background(), table, nil, nil, func(key, _ []byte) error {
			lost = append(lost, schemas.Cell{Table: table, Key: append([]byte(nil), key...), Delete: true})
			return errStopScan
		})
		if err != nil && !errors.Is(err, errStopScan) {
			t.Fatal(err)
		}
	}
	if err := st.Write(lost); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, rep, stderr := report()
	if code != 1 || rep.Tables["edges"].Missing != 1 || rep.Tables["terms"].Missing != 1 || rep.Problems() != 2 {
		t.Errorf("check after two rows lost: exit %d, %+v", code, rep.Tables)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, "2 problems found") || !strings.Contains(stderr, "--repair") {
		t.Errorf("check's stderr: %q, want one line saying to run --repair", stderr)
	}
	if code, rep, stderr := report("--repair"); code != 0 || rep.Repaired != 2 {
		t.Errorf("check --repair: exit %d, %d repaired\n%s", code, rep.Repaired, stderr)
	}
	if code, rep, _ := report(); code != 0 || rep.Problems() != 0 {
		t.Errorf("check after the repair: exit %d, %d problems", code, rep.Problems())
	}
}

var errStopScan = errors.New("stop")
