package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

func TestPrintBench(t *testing.T) {
	var b bytes.Buffer
	err := printBench(&b, []query.BenchResult{
		{Number: 1, Question: "count tweets (6 hours)", Size: 16496, Index: 1330 * time.Microsecond, Scan: 3788 * time.Millisecond, Same: true},
		{Number: 10, Question: "tweets per user (6 hours)", Size: 14598, Index: 359 * time.Millisecond, Scan: 5259 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"   #                   question  result size    index      scan  speed-up  same answer",
		"   1     count tweets (6 hours)       16,496  1.33 ms  3,788 ms    2,848x          yes",
		"  10  tweets per user (6 hours)       14,598   359 ms  5,259 ms       15x           NO",
	}
	if got := strings.Split(strings.TrimRight(b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for n, s := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4321: "-4,321"} {
		if got := thousands(n); got != s {
			t.Errorf("thousands(%d) = %q, want %q", n, got, s)
		}
	}
}
