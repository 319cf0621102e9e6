package main

import (
	"context"
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
	cmd, unit     string // the command and what it counts ("messages", "records")
	broker, topic string
	rate          float64
	loop, quiet   bool
	limit         int
	inputs        []string
	security      clientSecurity
}

// parseProducerFlags parses the flags of command cmd, whose unit ("messages",
// "records") is produced at defaultRate per second unless -rate says
// otherwise; usage names its positional arguments.
func parseProducerFlags(cmd, unit string, defaultRate float64, usage string, args []string, stderr io.Writer) (*producerFlags, error) {
	f := &producerFlags{cmd: cmd, unit: unit}
	fs := flag.NewFlagSet("devbroker "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.broker, "broker", "127.0.0.1:9092", "broker host:port")
	fs.StringVar(&f.topic, "topic", "tweets", "topic to produce to")
	fs.Float64Var(&f.rate, "rate", defaultRate, unit+" per second (0: as fast as possible)")
	fs.BoolVar(&f.loop, "loop", false, "start over after the last file, until interrupted")
	fs.IntVar(&f.limit, "n", 0, "stop after this many "+unit+" (0: no limit)")
	fs.BoolVar(&f.quiet, "q", false, "no progress lines")
	f.security.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if _, err := f.security.transport(); err != nil {
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
	t, _ := f.security.transport() // checked by parseProducerFlags
	return &kafka.Writer{
		Transport:    t,
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

// send writes the messages next returns to the topic at the flags' rate
// until next returns none (every input sent), -n are sent, or ctx ends,
// printing progress every second (unless -q) and the total at the end on
// stderr. next(n) returns up to n messages.
func (f *producerFlags) send(ctx context.Context, stderr io.Writer, next func(n int) ([]kafka.Message, error)) error {
	w := f.writer()
	defer w.Close()
	start, lastReport := time.Now(), time.Now()
	sent, reported := 0, 0
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
		msgs, err := next(n)
		if err != nil {
			return report(stderr, sent, start, err)
		}
		if len(msgs) == 0 {
			break // every input sent
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			if ctx.Err() != nil {
				return report(stderr, sent, start, nil)
			}
			return report(stderr, sent, start, fmt.Errorf("%s: %w", f.cmd, err))
		}
		sent += len(msgs)
		if now := time.Now(); !f.quiet && now.Sub(lastReport) >= time.Second {
			fmt.Fprintf(stderr, "devbroker: produced %d %s (%.0f/s)\n", sent, f.unit, float64(sent-reported)/now.Sub(lastReport).Seconds())
			lastReport, reported = now, sent
		}
	}
	return report(stderr, sent, start, nil)
}

// report prints the total sent since start and returns err.
func report(w io.Writer, sent int, start time.Time, err error) error {
	fmt.Fprintf(w, "devbroker: produced %d messages in %v\n", sent, time.Since(start).Round(time.Millisecond))
	return err
}
