package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/schemas"
)

// replay produces the records of tweet archives, as tweetindex's archive
// reader reads them (every format it reads: JSON lines, compressed, tar and
// zip members, API pages, tweets.js), one message per record, at a steady
// rate, round robin over the partitions. Damaged input (a truncated gzip
// member, say) has no message to send and is skipped.
func replay(ctx context.Context, args []string, stderr io.Writer) error {
	f, err := parseProducerFlags("replay", "records", 100, "FILE|DIR|GLOB...", args, stderr)
	if err != nil {
		return err
	}
	var files []string
	for _, pattern := range f.inputs {
		matched, err := archiveio.Expand(pattern)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		files = append(files, matched...)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recs := make(chan []schemas.Record, 4)
	readErr := make(chan error, 1)
	go func() { readErr <- readArchives(ctx, files, f.loop, recs) }()
	w := f.writer()
	defer w.Close()

	start, lastReport := time.Now(), time.Now()
	sent, reported, faulted := 0, 0, 0
	var pending []schemas.Record
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for f.limit == 0 || sent < f.limit {
		n := f.due(sent, start)
		if n <= 0 {
			select {
			case <-ctx.Done():
				return report(stderr, sent, start, nil)
			case <-tick.C:
			}
			continue
		}
		for len(pending) < n {
			batch, ok := <-recs
			if !ok {
				break
			}
			pending = append(pending, batch...)
		}
		if len(pending) == 0 {
			if err := <-readErr; err != nil && ctx.Err() == nil {
				return report(stderr, sent, start, err)
			}
			break // every file sent
		}
		var msgs []kafka.Message
		for len(msgs) < n && len(pending) > 0 {
			r := pending[0]
			pending = pending[1:]
			if r.Fault != "" {
				faulted++
				fmt.Fprintf(stderr, "devbroker: %s: %s; not sent\n", r.Origin, r.Fault)
				continue
			}
			msgs = append(msgs, kafka.Message{Value: r.Data})
		}
		if len(msgs) == 0 {
			continue
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			if ctx.Err() != nil {
				return report(stderr, sent, start, nil)
			}
			return report(stderr, sent, start, fmt.Errorf("replay: %w", err))
		}
		sent += len(msgs)
		if now := time.Now(); !f.quiet && now.Sub(lastReport) >= time.Second {
			fmt.Fprintf(stderr, "devbroker: produced %d records (%.0f/s)\n", sent, float64(sent-reported)/now.Sub(lastReport).Seconds())
			lastReport, reported = now, sent
		}
	}
	return report(stderr, sent, start, nil)
}

// readArchives sends the records of files, file by file (forever with
// loop), to out, and closes it.
func readArchives(ctx context.Context, files []string, loop bool, out chan<- []schemas.Record) error {
	defer close(out)
	for {
		for _, f := range files {
			_, err := archiveio.ReadFile(ctx, f, archiveio.Options{}, func(batch []schemas.Record) error {
				select {
				case out <- batch:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			if err != nil {
				return fmt.Errorf("replay: %w", err)
			}
		}
		if !loop {
			return nil
		}
	}
}
