package main

import (
	"bytes"
	"context"
	"github.com/tweetindex/tweetindex/io/sink"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// watchNow is a fixed time of day for the watch output.
var watchNow = time.Date(2026, 11, 22, 14, 3, 5, 0, time.UTC)

func Example_writeChanges() {
	before := maintain.FrequencySnapshot{
		"202611011200": {"en": 3, "ja": 1},
		"202611011201": {"en": 2},
	}
	after := maintain.FrequencySnapshot{
		"202611011200": {"en": 3, "ja": 1},
		"202611011201": {"en": 4, "es": 1},
		"202611011202": {"ja": 2},
	}
	writeChanges(os.Stdout, after, before, watchNow, 8)
	// Output:
	// 14:03:05  11 tweets counted in 3 minutes (+5); changed minutes:
	//   2026-11-01 12:02     2 (+2)  ja 2
	//   2026-11-01 12:01     5 (+3)  en 4, es 1
}

func TestWriteChanges(t *testing.T) {
	base := maintain.FrequencySnapshot{"202611011200": {"en": 1}}
	tests := []struct {
		name       string
		prev, next maintain.FrequencySnapshot
		max        int
		want       []string // lines, in order
	}{
		{"nothing changed", base, base, 8, nil},
		{"first snapshot", maintain.FrequencySnapshot{}, base, 8, []string{
			"14:03:05  1 tweets counted in 1 minutes (+1); changed minutes:",
			"  2026-11-01 12:00     1 (+1)  en 1",
		}},
		{"languages by count, then name", base, maintain.FrequencySnapshot{"202611011200": {"en": 1, "ja": 3, "ar": 1}}, 8, []string{
			"14:03:05  5 tweets counted in 1 minutes (+4); changed minutes:",
			"  2026-11-01 12:00     5 (+4)  ja 3, ar 1, en 1",
		}},
		{"latest minutes first, at most max", maintain.FrequencySnapshot{}, maintain.FrequencySnapshot{
			"202611011200": {"en": 1}, "202611011300": {"en": 2}, "202611011230": {"en": 3},
		}, 2, []string{
			"14:03:05  6 tweets counted in 3 minutes (+6); changed minutes:",
			"  2026-11-01 13:00     2 (+2)  en 2",
			"  2026-11-01 12:30     3 (+3)  en 3",
			"  ... and 1 more",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeChanges(&b, tc.next, tc.prev, watchNow, tc.max); err != nil {
				t.Fatal(err)
			}
			var got []string
			if b.Len() > 0 {
				got = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestWatchFrequencyReadsTheStore watches a store while cells are written
// to it in the same process: stop prints the changes since the last tick.
func TestWatchFrequencyReadsTheStore(t *testing.T) {
	tables, err := sink.Open(sink.Config{Store: filepath.Join(t.TempDir(), "store"), Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	var out bytes.Buffer
	stop := watchFrequency(tables, time.Hour, newRunLogger(&out, "text")) // no tick: only stop prints
	if err := tables.Write(context.Background(), []schemas.Cell{
		schemas.FrequencyRow{Minute: "202611011200", Lang: "en", Count: 7}.Cell(),
		schemas.FrequencyRow{Minute: "202611011200", Lang: "ja", Count: 2}.Cell(),
	}); err != nil {
		t.Fatal(err)
	}
	stop()
	stop() // idempotent
	got := out.String()
	if !strings.Contains(got, "9 tweets counted in 1 minutes (+9)") || !strings.Contains(got, "2026-11-01 12:00     9 (+9)  en 7, ja 2") {
		t.Errorf("watch printed %q", got)
	}
}
