package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// TestMetricsDuringStream scrapes --metrics-addr while a streaming run reads
// a topic of kfake: the counters reach the records produced, rows are
// counted per table, every partition has a lag line that falls to 0 and a
// watermark delay; then SIGTERM drains the run as usual.
func TestMetricsDuringStream(t *testing.T) {
	sample, err := os.ReadFile("../../../testdata/sample/v1-stream-12a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	values := bytes.Split(bytes.TrimSpace(sample), []byte("\n"))
	addr := kafkatest.StartBroker(t, map[string]int{"tweets": 2})
	kafkatest.Produce(t, addr, "tweets", 0, values[:len(values)/2])
	kafkatest.Produce(t, addr, "tweets", 1, values[len(values)/2:])
	store := t.TempDir() + "/store"
	c := startCLI(t, "index", "--kafka", addr, "--topic", "tweets", "--store", store, "--progress", "0", "--kafka-checkpoint", "200ms", "--metrics-addr", "127.0.0.1:0")

	urlRE := regexp.MustCompile(`metrics: (http://\S+/metrics)`)
	read := regexp.MustCompile(`(?m)^tweetindex_read_total (\d+)$`)
	lag := regexp.MustCompile(`(?m)^tweetindex_kafka_lag\{topic="tweets",partition="(\d)"\} (\d+)$`)
	delay := regexp.MustCompile(`(?m)^tweetindex_kafka_watermark_delay_seconds\{topic="tweets",partition="\d"\} \S+$`)
	rawRows := regexp.MustCompile(`(?m)^tweetindex_rows_written_total\{table="raw"\} (\d+)$`)
	var body string
	deadline := time.Now().Add(60 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) { // polling for readiness
		m := urlRE.FindStringSubmatch(c.stderr.String())
		if m == nil {
			continue
		}
		resp, err := http.Get(m[1])
		if err != nil {
			t.Fatalf("scrape: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/plain; version=0.0.4; charset=utf-8" {
			t.Fatalf("scrape: %s, Content-Type %q", resp.Status, ct)
		}
		body = string(b)
		r := read.FindStringSubmatch(body)
		lags := lag.FindAllStringSubmatch(body, -1)
		rows := rawRows.FindStringSubmatch(body)
		if r == nil || len(lags) != 2 || rows == nil || !delay.MatchString(body) {
			continue
		}
		n, _ := strconv.Atoi(r[1])
		raw, _ := strconv.Atoi(rows[1])
		if n == len(values) && lags[0][2] == "0" && lags[1][2] == "0" && raw > 0 {
			break
		}
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := c.wait(t, 60*time.Second)
	if m := read.FindStringSubmatch(body); m == nil || m[1] != strconv.Itoa(len(values)) || len(lag.FindAllString(body, -1)) != 2 || !delay.MatchString(body) || !rawRows.MatchString(body) {
		t.Fatalf("last scrape does not show %d records read, both partitions' lag, a watermark delay and raw rows:\n%s\nstderr:\n%s", len(values), body, c.stderr)
	}
	for _, want := range []string{"# TYPE tweetindex_read_total counter", "tweetindex_indexed_total ", "tweetindex_duplicates_total ", "tweetindex_dead_lettered_total ", `tweetindex_rows_written_total{table="terms"} `} {
		if !bytes.Contains([]byte(body), []byte(want)) {
			t.Errorf("scrape lacks %q:\n%s", want, body)
		}
	}
	if code != 0 {
		t.Errorf("exit %d after SIGTERM\nstderr:\n%s", code, c.stderr)
	}
}

// TestMetricsRowsDeletedIsNoTable: the cells sinks deleted are their own
// counter, not a "deleted" table among the rows written per table.
func TestMetricsRowsDeletedIsNoTable(t *testing.T) {
	var b strings.Builder
	writeMetrics(&b, time.Now(), time.Now())
	out := b.String()
	if strings.Contains(out, `table="deleted"`) || !strings.Contains(out, "\ntweetindex_rows_deleted_total ") || !strings.Contains(out, `tweetindex_rows_written_total{table="raw"} `) {
		t.Errorf("metrics: want rows_written_total per table without a deleted table, and rows_deleted_total; got\n%s", out)
	}
}
