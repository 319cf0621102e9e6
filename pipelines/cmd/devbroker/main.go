// Command devbroker runs a local Kafka broker for development and demos, and
// produces tweet files into it at a steady rate. It needs nothing installed:
// the broker is franz-go's in-process kfake, spoken to over the real Kafka
// protocol on a loopback port.
//
// Run a broker until SIGINT or SIGTERM:
//
//	devbroker [-addr 127.0.0.1:9092] [-topic tweets] [-partitions 4] [-data DIR]
//
// It prints its address on the first line of standard output. With -data the
// topics, records and committed offsets persist in DIR across restarts.
//
// Produce the JSON lines of FILES (plain, .gz, .bz2 or .zst; blank lines are
// skipped), one message per line, round robin over the partitions:
//
//	devbroker produce [-broker 127.0.0.1:9092] [-topic tweets] [-rate N] [-loop] [-n MAX] FILES...
//
// -rate is messages per second (0: as fast as the broker takes them); -loop
// starts over at the first file after the last, until interrupted.
//
// Replay tweet archives in any format tweetindex reads (tar, zip, API pages,
// tweets.js, ...), one message per record as its archive reader sees them:
//
//	devbroker replay [-broker 127.0.0.1:9092] [-topic tweets] [-rate N] [-loop] [-n MAX] FILE|DIR|GLOB...
//
// Run the streaming demo (make demo-stream): a broker, a replay of FILES
// into it, and bin/tweetindex index --kafka reading it into a local store,
// printing the per-minute counts as they grow; Ctrl-C drains and stops:
//
//	devbroker demo [-addr 127.0.0.1:19092] [-rate 50] [-store DIR] FILE|DIR|GLOB... [-- tweetindex index flags]
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "devbroker:", err)
		os.Exit(1)
	}
}

// run runs the command with args until ctx ends (the broker) or the input
// is produced (produce).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "produce" {
		return produce(ctx, args[1:], stderr)
	}
	if len(args) > 0 && args[0] == "replay" {
		return replay(ctx, args[1:], stderr)
	}
	if len(args) > 0 && args[0] == "demo" {
		return demo(args[1:], stdout, stderr)
	}
	err := serve(ctx, args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}
