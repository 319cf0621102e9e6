package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// benchProgress returns the line printed on w as each question of query
// bench is answered.
func benchProgress(w io.Writer) func(query.BenchResult) {
	return func(r query.BenchResult) {
		fmt.Fprintf(w, "question %2d: %s: %d, index %s, scan %s\n", r.Number, r.Question, r.Size, r.Index.Round(time.Microsecond), r.Scan.Round(time.Millisecond))
	}
}

// printBench writes the results as the thesis's tables 7.6 to 7.10 set
// them out: a row per question with the result size, the index and scan
// times and the speed-up.
func printBench(w io.Writer, rs []query.BenchResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tquestion\tresult size\tindex\tscan\tspeed-up\tsame answer\t")
	for _, r := range rs {
		same := "yes"
		if !r.Same {
			same = "NO"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Number, r.Question, thousands(r.Size), benchDuration(r.Index), benchDuration(r.Scan), thousands(int64(r.SpeedUp()+0.5))+"x", same)
	}
	return tw.Flush()
}

// benchDuration renders a time in ms with three significant digits.
func benchDuration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return thousands(int64(ms+0.5)) + " ms"
}

// thousands renders n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
