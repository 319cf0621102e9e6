//go:build unix

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// demo runs the streaming demo (make demo-stream): a broker, a replay of
// the input into it at a steady rate, and `tweetindex index --kafka ...
// --watch` reading it unbounded into a local store, which prints the
// per-minute counts as they grow.
//
// Ctrl-C drains the pipeline: the replay stops, the pipeline gets one
// SIGINT (it runs in its own process group, so that the terminal's
// Ctrl-C reaches this process alone), stops reading, writes what it has
// read, fires every window and prints its summary; the broker stays up
// until then, and closes after. A second Ctrl-C kills the pipeline.
func demo(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devbroker demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:19092", "host:port of the broker")
	topic := fs.String("topic", "tweets", "topic")
	partitions := fs.Int("partitions", 4, "partitions of the topic")
	rate := fs.Float64("rate", 50, "records per second replayed")
	bin := fs.String("bin", "bin/tweetindex", "the tweetindex command")
	store := fs.String("store", ".tweetindex/stream", "store the pipeline writes")
	watch := fs.Duration("watch", 3*time.Second, "how often the pipeline prints the counts that changed")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: devbroker demo [flags] FILE|DIR|GLOB... [-- more tweetindex index flags]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	inputs, extra := fs.Args(), []string(nil)
	for i, a := range inputs {
		if a == "--" {
			inputs, extra = inputs[:i], inputs[i+1:]
			break
		}
	}
	if len(inputs) == 0 {
		return usageError{errors.New("demo: no input to replay (devbroker demo -h lists the flags)")}
	}
	// Signals are ours from here on: the first one drains, the second kills.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	b, err := kafkatest.Start(map[string]int{*topic: *partitions}, kafkatest.Options{Addr: *addr})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer b.Close()
	fmt.Fprintf(stderr, "demo: Kafka broker on %s; replaying %v into topic %s (%d partitions) at %g records/s\n", b.Addr(), inputs, *topic, *partitions, *rate)

	// The replay runs first: the pipeline's watermark follows the replayed
	// tweet times, not the wall clock, once it has read some.
	replayCtx, stopReplay := context.WithCancel(context.Background())
	defer stopReplay()
	replayed := make(chan error, 1)
	go func() {
		replayed <- replay(replayCtx, append([]string{"-broker", b.Addr(), "-topic", *topic, "-rate", fmt.Sprint(*rate), "-q"}, inputs...), stderr)
	}()

	cmd := exec.Command(*bin, append([]string{"index", "--kafka", b.Addr(), "--topic", *topic, "--store", *store, "--watch", watch.String()}, extra...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("demo: %w (run make build first)", err)
	}
	fmt.Fprintf(stderr, "demo: indexing into %s, counts per minute every %v below; Ctrl-C drains and stops\n", *store, *watch)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	signals := 0
	for {
		select {
		case err := <-exited:
			stopReplay()
			if err != nil {
				return fmt.Errorf("demo: tweetindex: %w", err)
			}
			fmt.Fprintf(stderr, "demo: stopped; the tables are in %s (%s dump --store %s --table frequency)\n", *store, *bin, *store)
			return nil
		case <-sigs:
			signals++
			if signals == 1 {
				stopReplay()
				fmt.Fprintln(stderr, "demo: draining the pipeline (Ctrl-C again to kill it)")
				cmd.Process.Signal(os.Interrupt)
			} else {
				cmd.Process.Kill()
			}
		case err := <-replayed:
			if err != nil {
				fmt.Fprintf(stderr, "demo: %v\n", err)
			}
			replayed = nil
		}
	}
}
