package pipelines

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

var benchTweets = flag.Int("bench.tweets", 100_000, "tweets BenchmarkIndexCommand generates and indexes")

// BenchmarkIndexCommand times `bin/tweetindex index` end to end, as a user
// runs it, on generated realistic v1.1 tweets (make bench). It reports
// tweets/s and the command's peak resident memory.
func BenchmarkIndexCommand(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(root, "bin", "tweetindex")
	build := exec.Command("go", "build", "-o", bin, "./pipelines/cmd/tweetindex")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("build: %v", err)
	}
	data := filepath.Join(root, ".bench", fmt.Sprintf("tweets-%d", *benchTweets))
	if _, err := os.Stat(filepath.Join(data, "EXPECTED.json")); err != nil {
		gen := exec.Command("go", "run", "./testdata/gen", "bench", "-n", fmt.Sprint(*benchTweets), "-seed", "7", "-out", data)
		gen.Dir, gen.Stdout, gen.Stderr = root, os.Stdout, os.Stderr
		if err := gen.Run(); err != nil {
			b.Fatalf("generate: %v", err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		store := b.TempDir()
		summaryPath := filepath.Join(store, "summary.json")
		cmd := exec.Command(bin, "index", "--input", filepath.Join(data, "*.jsonl*"), "--store", filepath.Join(store, "db"), "--summary", summaryPath)
		cmd.Stderr = os.Stderr
		start := time.Now()
		out, err := cmd.Output()
		elapsed := time.Since(start)
		if err != nil {
			b.Fatalf("index: %v\n%s", err, out)
		}
		var sum Summary
		raw, err := os.ReadFile(summaryPath)
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(raw, &sum); err != nil {
			b.Fatal(err)
		}
		if !sum.Reconciles() || sum.Read == 0 {
			b.Fatalf("summary does not reconcile: %+v", sum)
		}
		peakMB := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
		rate := float64(sum.Read) / elapsed.Seconds()
		b.ReportMetric(rate, "tweets/s")
		b.ReportMetric(peakMB, "peak-MB")
		fmt.Printf("index: %d tweets read, %d indexed in %.2f s: %.0f tweets/s, peak memory %.0f MB\n", sum.Read, sum.Indexed, elapsed.Seconds(), rate, peakMB)
	}
}
