package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

var errHelp = flag.ErrHelp

// serve runs a broker until ctx ends.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devbroker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9092", "host:port to listen on and advertise (port 0: any free port)")
	topics := fs.String("topic", "tweets", "topics to create, comma separated")
	partitions := fs.Int("partitions", 4, "partitions of each topic")
	data := fs.String("data", "", "directory to persist topics, records and committed offsets in (empty: memory only)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: devbroker [-addr HOST:PORT] [-topic T[,T...]] [-partitions N] [-data DIR]")
		fmt.Fprintln(stderr, "       devbroker produce [-broker HOST:PORT] [-topic T] [-rate N] [-loop] [-n MAX] FILES...")
		fmt.Fprintln(stderr, "       devbroker replay [-broker HOST:PORT] [-topic T] [-rate N] [-loop] [-n MAX] FILE|DIR|GLOB...")
		fmt.Fprintln(stderr, "       devbroker demo [-addr HOST:PORT] [-rate N] [-store DIR] FILE|DIR|GLOB... [-- tweetindex index flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *partitions < 1 {
		return errors.New("-partitions must be at least 1")
	}
	seed := map[string]int{}
	for _, t := range strings.Split(*topics, ",") {
		if t = strings.TrimSpace(t); t != "" {
			seed[t] = *partitions
		}
	}
	b, err := kafkatest.Start(seed, kafkatest.Options{Addr: *addr, DataDir: *data})
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintln(stdout, b.Addr())
	where := "in memory"
	if *data != "" {
		where = "persisted in " + *data
	}
	fmt.Fprintf(stderr, "devbroker: Kafka broker on %s, topics %s with %d partitions each, %s; Ctrl-C stops it\n", b.Addr(), *topics, *partitions, where)
	<-ctx.Done()
	fmt.Fprintln(stderr, "devbroker: stopping")
	return nil
}
