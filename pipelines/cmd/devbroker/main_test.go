package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// startBroker runs `devbroker -addr 127.0.0.1:0 ...args` until the test ends
// and returns its address, read from its first line of output.
func startBroker(t *testing.T, args ...string) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.CloseWithError(errors.New("devbroker exited"))
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no address printed: %v (exit: %v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("devbroker: %v", err)
		}
	}
	return strings.TrimSpace(line), stop
}

// topicValues returns every message value of topic, sorted.
func topicValues(t *testing.T, addr, topic string, partitions int) []string {
	t.Helper()
	return clientValues(t, &kafka.Client{Addr: kafka.TCP(addr), Timeout: 10 * time.Second}, topic, partitions)
}

// clientValues returns every message value of topic read through c, sorted.
func clientValues(t *testing.T, c *kafka.Client, topic string, partitions int) []string {
	t.Helper()
	var out []string
	for p := range partitions {
		for offset := int64(0); ; {
			res, err := c.Fetch(context.Background(), &kafka.FetchRequest{Topic: topic, Partition: p, Offset: offset, MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 100 * time.Millisecond})
			if err != nil || res.Error != nil {
				t.Fatalf("fetch %s/%d@%d: %v %v", topic, p, offset, err, res.Error)
			}
			n := 0
			for {
				r, err := res.Records.ReadRecord()
				if err != nil {
					break
				}
				if r.Offset < offset {
					continue
				}
				v, _ := io.ReadAll(r.Value)
				out = append(out, string(v))
				offset = r.Offset + 1
				n++
			}
			if n == 0 && offset >= res.HighWatermark {
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestBrokerProduceAndPersist(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(plain, []byte("{\"n\":1}\n\n{\"n\":2}\n{\"n\":3}"), 0o600); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("{\"n\":4}\n{\"n\":5}\n"))
	zw.Close()
	compressed := filepath.Join(dir, "b.json.gz")
	if err := os.WriteFile(compressed, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")

	addr, stop := startBroker(t, "-topic", "tweets,other", "-partitions", "3", "-data", data)
	ctx := context.Background()
	if err := run(ctx, []string{"produce", "-broker", addr, "-topic", "tweets", "-rate", "0", "-q", plain, compressed}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	// -loop with -n: the five lines, then the first two again.
	if err := run(ctx, []string{"produce", "-broker", addr, "-topic", "other", "-rate", "1000", "-loop", "-n", "7", "-q", plain, compressed}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	five := []string{`{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`, `{"n":5}`}
	if got := topicValues(t, addr, "tweets", 3); !slices.Equal(got, five) {
		t.Errorf("tweets holds %q, want %q", got, five)
	}
	seven := append(slices.Clone(five), `{"n":1}`, `{"n":2}`)
	slices.Sort(seven)
	if got := topicValues(t, addr, "other", 3); !slices.Equal(got, seven) {
		t.Errorf("other holds %q, want %q", got, seven)
	}
	stop()

	// The data directory keeps the messages across a restart.
	addr, stop = startBroker(t, "-topic", "tweets", "-partitions", "3", "-data", data)
	defer stop()
	if got := topicValues(t, addr, "tweets", 3); !slices.Equal(got, five) {
		t.Errorf("after a restart tweets holds %q, want %q", got, five)
	}
}

func TestProduceErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"produce"}, "no input"},
		{[]string{"produce", "-rate", "-1", "x"}, "-rate must not be negative"},
		{[]string{"produce", "-broker", "127.0.0.1:1", filepath.Join(t.TempDir(), "missing.jsonl")}, "no such file"},
		{[]string{"-partitions", "0"}, "-partitions must be at least 1"},
	}
	for _, tc := range tests {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %q = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestUsageAndHelp: no arguments is a usage error (exit 2) that prints the
// usage; -h on every command is help (exit 0); a wrong flag is a usage error.
func TestUsageAndHelp(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), nil, io.Discard, &stderr)
	if !errors.As(err, new(usageError)) || !strings.Contains(stderr.String(), "devbroker serve") {
		t.Errorf("no arguments: %v, usage %q; want a usage error and the usage", err, stderr.String())
	}
	for _, args := range [][]string{{"-h"}, {"serve", "-h"}, {"produce", "-h"}, {"replay", "-h"}, {"demo", "-h"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%q: %v, want help", args, err)
		}
	}
	for _, args := range [][]string{{"serve", "-nope"}, {"bogus"}, {"serve", "extra"}, {"produce"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); !errors.As(err, new(usageError)) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// TestAutoCreatesTopics: a producer that asks for a topic the broker does not
// have gets it created (as kcat expects of Kafka's default), with -partitions
// partitions.
func TestAutoCreatesTopics(t *testing.T) {
	addr, stop := startBroker(t, "-topic", "tweets", "-partitions", "2")
	defer stop()
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: "fresh", AllowAutoTopicCreation: true, BatchTimeout: time.Millisecond}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var err error
	for ctx.Err() == nil { // the first write may find the topic still being made
		if err = w.WriteMessages(ctx, kafka.Message{Value: []byte(`{"n":1}`)}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("produce to a new topic: %v", err)
	}
	if got := topicValues(t, addr, "fresh", 2); !slices.Equal(got, []string{`{"n":1}`}) {
		t.Errorf("fresh holds %q", got)
	}
}
