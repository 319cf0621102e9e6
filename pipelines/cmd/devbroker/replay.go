package main

import (
	"context"
	"fmt"
	"io"

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
	var pending []schemas.Record
	eof := false
	next := func(n int) ([]kafka.Message, error) {
		var msgs []kafka.Message
		for len(msgs) < n && !eof {
			if len(pending) == 0 {
				batch, ok := <-recs
				if !ok {
					eof = true
					if err := <-readErr; err != nil && ctx.Err() == nil {
						return nil, err
					}
					break
				}
				pending = batch
				continue
			}
			r := pending[0]
			pending = pending[1:]
			if r.Fault != "" {
				fmt.Fprintf(stderr, "devbroker: %s: %s; not sent\n", r.Origin, r.Fault)
				continue
			}
			msgs = append(msgs, kafka.Message{Value: r.Data})
		}
		return msgs, nil
	}
	return f.send(ctx, stderr, next)
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
