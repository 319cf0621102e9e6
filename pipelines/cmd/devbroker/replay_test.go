package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestReplaySample replays the committed sample, every archive format of
// it, into a broker: the topic then holds exactly the records the archive
// reader reads from the sample, one message each, less the damaged one.
func TestReplaySample(t *testing.T) {
	sample := filepath.Join("..", "..", "..", "testdata", "sample")
	files, err := archiveio.Expand(sample)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	faulted := 0
	for _, f := range files {
		_, err := archiveio.ReadFile(context.Background(), f, archiveio.Options{}, func(b []schemas.Record) error {
			for _, r := range b {
				if r.Fault != "" {
					faulted++
					continue
				}
				want = append(want, string(r.Data))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(want)
	if faulted != 1 || len(want) < 1000 {
		t.Fatalf("the sample has %d records and %d damaged ones; expected about 1900 and 1", len(want), faulted)
	}

	addr, stop := startBroker(t, "-topic", "tweets,again", "-partitions", "3")
	defer stop()
	var errs strings.Builder
	if err := run(context.Background(), []string{"replay", "-broker", addr, "-topic", "tweets", "-rate", "0", "-q", sample}, io.Discard, &errs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), "truncated") || !strings.Contains(errs.String(), "not sent") {
		t.Errorf("the damaged record was not reported: %q", errs.String())
	}
	if got := topicValues(t, addr, "tweets", 3); !slices.Equal(got, want) {
		t.Errorf("the topic holds %d messages, want the sample's %d records", len(got), len(want))
	}

	// -loop with -n: every record, then the first three again.
	n := len(want) + 3
	if err := run(context.Background(), []string{"replay", "-broker", addr, "-topic", "again", "-rate", "0", "-loop", "-n", strconv.Itoa(n), "-q", sample}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := topicValues(t, addr, "again", 3); len(got) != n {
		t.Errorf("-loop -n %d: the topic holds %d messages", n, len(got))
	}
}
