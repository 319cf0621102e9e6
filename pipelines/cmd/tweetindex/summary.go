package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// printSummary writes a run's summary for people: the counts, which
// reconcile, the rows written per table and the rate.
func printSummary(w io.Writer, s job.Summary) {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d = indexed %d + duplicates %d + skipped %d + dead_lettered %d", s.Read, s.Indexed, s.Duplicates, s.Skipped, s.DeadLettered)
	var why []string
	if s.OutOfRange > 0 {
		why = append(why, fmt.Sprintf("%d outside --from/--to", s.OutOfRange))
	}
	for k := schemas.SkipKind(0); k < schemas.NumSkipKinds; k++ {
		if n := s.SkippedBy[k.Name()]; n > 0 {
			why = append(why, fmt.Sprintf("%d %s", n, k.Name()))
		}
	}
	if len(why) > 0 {
		fmt.Fprintf(&b, "  (skipped: %s)", strings.Join(why, ", "))
	}
	if !s.Reconciles() {
		fmt.Fprintf(&b, "  (DOES NOT RECONCILE: %d unaccounted)", s.Read-s.Indexed-s.Duplicates-s.Skipped-s.DeadLettered)
	}
	if s.Collisions > 0 {
		fmt.Fprintf(&b, "\n%d tweets share their row key with another (all stored: the raw cell is unique per tweet id)", s.Collisions)
	}
	if s.Retracted > 0 {
		fmt.Fprintf(&b, "\n%d stored versions removed (replaced by another version of the tweet, or deleted by a compliance message)", s.Retracted)
	}
	if s.Notices > 0 {
		fmt.Fprintf(&b, "\n%d compliance notices recorded in the metadata table (scrub_geo, withheld, ...: notice/...)", s.Notices)
	}
	if s.GeoScrubbed > 0 {
		fmt.Fprintf(&b, "\n%d geo rows removed by scrub_geo", s.GeoScrubbed)
	}
	if len(s.UnreadableFiles) > 0 {
		fmt.Fprintf(&b, "\n%d input files could not be read (dead-lettered): %s", len(s.UnreadableFiles), strings.Join(s.UnreadableFiles, "; "))
	}
	if len(s.SkippedFiles) > 0 {
		fmt.Fprintf(&b, "\n%d input files not read: %s", len(s.SkippedFiles), strings.Join(s.SkippedFiles, "; "))
	}
	var rows []string
	for _, spec := range schemas.Registry() {
		if spec.Summarized {
			rows = append(rows, fmt.Sprintf("%s %d", spec.Name, s.Rows[spec.Name]))
		}
	}
	fmt.Fprintf(&b, "\nrows written: %s\n", strings.Join(rows, ", "))
	if s.ActiveSeconds > 0 {
		fmt.Fprintf(&b, "%.1f s, %.0f records/s while reading (%.1f s of reading; idle waits left out)", s.Seconds, s.TweetsPerSec, s.ActiveSeconds)
	} else {
		fmt.Fprintf(&b, "%.1f s, %.0f records/s", s.Seconds, s.TweetsPerSec)
		if s.ReadSeconds > 0 {
			fmt.Fprintf(&b, " (reading done after %.1f s, then %.1f s to finish)", s.ReadSeconds, s.TailSeconds())
		}
	}
	b.WriteString("\n")
	if s.FlowStalls > 0 {
		fmt.Fprintf(&b, "flow control: deduplication took no tweet for %v (%d time(s)), so the readers read on without pausing; tweets the runner held back until the input ended may miss from the frequency table: run tweetindex check, then check --repair\n", flow.StallLimit, s.FlowStalls)
	}
	io.WriteString(w, b.String())
}
