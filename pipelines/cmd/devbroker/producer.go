package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/segmentio/kafka-go"
)

// maxRequest is the most messages one produce call sends.
const maxRequest = 5000

// producerFlags are the flags of the commands that produce to a topic at
// a steady rate (produce, replay).
type producerFlags struct {
	broker, topic string
	rate          float64
	loop, quiet   bool
	limit         int
	inputs        []string
}

// parseProducerFlags parses the flags of command cmd, whose unit ("messages",
// "records") is produced at defaultRate per second unless -rate says
// otherwise; usage names its positional arguments.
func parseProducerFlags(cmd, unit string, defaultRate float64, usage string, args []string, stderr io.Writer) (*producerFlags, error) {
	f := &producerFlags{}
	fs := flag.NewFlagSet("devbroker "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.broker, "broker", "127.0.0.1:9092", "broker host:port")
	fs.StringVar(&f.topic, "topic", "tweets", "topic to produce to")
	fs.Float64Var(&f.rate, "rate", defaultRate, unit+" per second (0: as fast as possible)")
	fs.BoolVar(&f.loop, "loop", false, "start over after the last file, until interrupted")
	fs.IntVar(&f.limit, "n", 0, "stop after this many "+unit+" (0: no limit)")
	fs.BoolVar(&f.quiet, "q", false, "no progress lines")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() == 0 {
		return nil, usageError{fmt.Errorf("%s: no input (usage: devbroker %s [flags] %s)", cmd, cmd, usage)}
	}
	if f.rate < 0 {
		return nil, usageError{errors.New(cmd + ": -rate must not be negative")}
	}
	f.inputs = fs.Args()
	return f, nil
}

// writer returns a Kafka writer to the topic, round robin over its
// partitions, sending each batch at once.
func (f *producerFlags) writer() *kafka.Writer {
	return &kafka.Writer{
		Addr:         kafka.TCP(f.broker),
		Topic:        f.topic,
		Balancer:     &kafka.RoundRobin{},
		BatchSize:    maxRequest,
		BatchBytes:   900 << 10, // under the broker's 1 MiB message.max.bytes
		BatchTimeout: time.Millisecond,
		RequiredAcks: kafka.RequireOne,
	}
}

// due returns how many more may be sent now, sent so far since start,
// to keep to the rate and the limit (at most maxRequest).
func (f *producerFlags) due(sent int, start time.Time) int {
	n := maxRequest
	if f.rate > 0 {
		n = min(int(f.rate*time.Since(start).Seconds())-sent, maxRequest)
	}
	if f.limit > 0 {
		n = min(n, f.limit-sent)
	}
	return n
}
