package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// serveMetrics serves the run's counts in the Prometheus text exposition
// format (version 0.0.4) at http://addr/metrics until stop is called, and
// says where on stderr. The counts are those of the SDK workers in this
// process: with a runner whose workers run elsewhere, the runner's own
// metrics are the place to look. Written by hand: the format is a few
// lines of text, and prometheus/client_golang would add a dependency to a
// build that Beam already makes slow.
func serveMetrics(addr string, l *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	started := time.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		writeMetrics(w, started, time.Now())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	url := fmt.Sprintf("http://%s/metrics", ln.Addr())
	l.Info("metrics", "url", url, line("metrics: "+url))
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			l.Warn("metrics", "error", err.Error(), line(fmt.Sprintf("metrics: %v", err)))
		}
	}, nil
}

// counterHelp describes the counters of the summary.
var counterHelp = map[string]string{
	flow.CounterRead:         "Items read (tweets, control messages and rejects).",
	flow.CounterIndexed:      "Distinct tweets passed to the tables.",
	flow.CounterDuplicates:   "Further copies of a tweet id, dropped.",
	flow.CounterSkipped:      "Stream control messages, keep-alives and tweets outside --from/--to.",
	flow.CounterDeadLettered: "Items that could not be indexed (rows of the deadletter table).",
	flow.CounterOutOfRange:   "Tweets outside --from/--to (part of skipped).",
	flow.CounterRowsDeleted:  "Cells the sinks deleted (every table): retracted versions, honoured deletions.",
}

// writeMetrics writes the exposition at now.
func writeMetrics(out io.Writer, started, now time.Time) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	family := func(name, typ, help string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	counters := flow.LocalCounters()
	names := make([]string, 0, len(counters))
	for name := range counters {
		names = append(names, name)
	}
	sort.Strings(names)
	var rows, skippedBy []string
	for _, name := range names {
		switch {
		case strings.HasPrefix(name, "rows_") && name != flow.CounterRowsDeleted:
			rows = append(rows, name)
		case strings.HasPrefix(name, "skipped_"):
			skippedBy = append(skippedBy, name)
		default:
			metric := "tweetindex_" + name + "_total"
			help := counterHelp[name]
			if help == "" {
				help = "The " + name + " counter of the run."
			}
			family(metric, "counter", help)
			fmt.Fprintf(w, "%s %d\n", metric, counters[name])
		}
	}
	if len(rows) > 0 {
		family("tweetindex_rows_written_total", "counter", "Rows the sink has written (made durable), per table.")
		for _, name := range rows {
			fmt.Fprintf(w, "tweetindex_rows_written_total{table=%q} %d\n", strings.TrimPrefix(name, "rows_"), counters[name])
		}
	}
	if len(skippedBy) > 0 {
		family("tweetindex_skipped_by_kind_total", "counter", "Items skipped, per kind (control, compliance, ...).")
		for _, name := range skippedBy {
			fmt.Fprintf(w, "tweetindex_skipped_by_kind_total{kind=%q} %d\n", strings.TrimPrefix(name, "skipped_"), counters[name])
		}
	}
	files, bytes := archiveio.LocalProgress()
	family("tweetindex_files_read_total", "counter", "Input files read to their end.")
	fmt.Fprintf(w, "tweetindex_files_read_total %d\n", files)
	family("tweetindex_bytes_read_total", "counter", "Bytes of input files read.")
	fmt.Fprintf(w, "tweetindex_bytes_read_total %d\n", bytes)
	family("tweetindex_reading_seconds_total", "counter", "Time spent reading: gaps between reads, each up to a second.")
	fmt.Fprintf(w, "tweetindex_reading_seconds_total %g\n", flow.ActiveReading().Seconds())
	family("tweetindex_run_seconds", "gauge", "Seconds since the run started.")
	fmt.Fprintf(w, "tweetindex_run_seconds %g\n", now.Sub(started).Seconds())

	parts := kafkaio.LocalPartitions()
	if len(parts) == 0 {
		return
	}
	family("tweetindex_kafka_lag", "gauge", "Records of the partition not read yet: its high watermark at the last fetch minus the next offset.")
	for _, p := range parts {
		fmt.Fprintf(w, "tweetindex_kafka_lag{topic=%q,partition=\"%d\"} %d\n", p.Topic, p.Partition, max(0, p.HighWatermark-p.Next))
	}
	family("tweetindex_kafka_next_offset", "gauge", "The next offset of the partition to read.")
	for _, p := range parts {
		fmt.Fprintf(w, "tweetindex_kafka_next_offset{topic=%q,partition=\"%d\"} %d\n", p.Topic, p.Partition, p.Next)
	}
	var delays []string
	for _, p := range parts {
		if p.Watermark.Year() >= 2000 {
			delays = append(delays, fmt.Sprintf("tweetindex_kafka_watermark_delay_seconds{topic=%q,partition=\"%d\"} %g\n", p.Topic, p.Partition, now.Sub(p.Watermark).Seconds()))
		}
	}
	if len(delays) > 0 {
		family("tweetindex_kafka_watermark_delay_seconds", "gauge", "How far the partition's event-time watermark is behind the wall clock (streaming reads).")
		for _, d := range delays {
			io.WriteString(w, d)
		}
	}
}
