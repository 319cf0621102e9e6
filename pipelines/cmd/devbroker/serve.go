package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// serve runs a broker until ctx ends.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devbroker serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9092", "host:port to listen on and advertise (port 0: any free port)")
	topics := fs.String("topic", "tweets", "topics to create, comma separated")
	partitions := fs.Int("partitions", 4, "partitions of each topic")
	data := fs.String("data", "", "directory to persist topics, records and committed offsets in (empty: memory only)")
	autoCreate := fs.Bool("auto-create", true, "create a topic that does not exist when a client first asks for it, with -partitions partitions (as Kafka's auto.create.topics.enable)")
	var sec serveSecurity
	sec.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: devbroker serve [-addr HOST:PORT] [-topic T[,T...]] [-partitions N] [-data DIR] [-auto-create=false]\n"+
			"                      [-tls-dir DIR | -tls-cert FILE -tls-key FILE] [-tls-client-ca FILE] [-sasl MECHANISMS -sasl-user NAME [-sasl-password-file FILE]]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q (devbroker serve takes only flags)", fs.Args())}
	}
	if *partitions < 1 {
		return usageError{errors.New("-partitions must be at least 1")}
	}
	seed := map[string]int{}
	for _, t := range strings.Split(*topics, ",") {
		if t = strings.TrimSpace(t); t != "" {
			seed[t] = *partitions
		}
	}
	opts := kafkatest.Options{Addr: *addr, DataDir: *data}
	if *autoCreate {
		opts.Extra = []kfake.Opt{kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(*partitions)}
	}
	secured, how, err := sec.options(*addr)
	if err != nil {
		return err
	}
	opts.Extra = append(opts.Extra, secured...)
	b, err := kafkatest.Start(seed, opts)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintln(stdout, b.Addr())
	where := "in memory"
	if *data != "" {
		where = "persisted in " + *data
	}
	if how != "" {
		where += "; " + how
	}
	fmt.Fprintf(stderr, "devbroker: Kafka broker on %s, topics %s with %d partitions each, %s; Ctrl-C stops it\n", b.Addr(), *topics, *partitions, where)
	<-ctx.Done()
	fmt.Fprintln(stderr, "devbroker: stopping")
	return nil
}
