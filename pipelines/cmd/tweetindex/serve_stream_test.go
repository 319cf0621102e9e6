package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/serve"
)

// TestServeWhileStreamWrites: a stream holds its store; serve, in this
// process, answers from the stream's newest snapshot (saying so in a
// header and in /healthz), moves to newer snapshots as the stream writes
// more, and to the store itself once the stream has ended.
func TestServeWhileStreamWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("streams from Kafka in another process; make test runs it (-short serves a store no one writes)")
	}
	addr, values := streamSample(t, 20)
	store := t.TempDir() + "/store"
	c := startCLI(t, "index", "--kafka", addr, "--topic", "tweets", "--store", store, "--progress", "200ms", "--kafka-checkpoint", "200ms", "--snapshots", "300ms")
	c.waitIndexed(t, 60*time.Second)

	// The first snapshot may not be published yet: open until one is.
	sf := storeFlags(store)
	var src *serve.Source
	var err error
	deadline := time.Now().Add(60 * time.Second)
	for ; src == nil; time.Sleep(100 * time.Millisecond) { // polling for the stream's first snapshot
		src, err = serve.OpenSource(context.Background(), serve.SourceConfig{Open: func() (*sink.Sink, error) { return sf.openForQuery(0) }, Store: store})
		if err != nil && time.Now().After(deadline) {
			t.Fatalf("no snapshot to serve: %v\nstream stderr:\n%s", err, c.stderr)
		}
	}
	base := serveSource(t, src, serve.Config{Refresh: 50 * time.Millisecond})

	type answer struct {
		count    int
		snapshot string
		tables   string
	}
	ask := func() answer {
		resp, err := http.Get(base + "/api/count?format=csv")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(body), "tweets\n")))
		a := answer{count: n, snapshot: resp.Header.Get(serve.HeaderSnapshot)}
		if resp, err = http.Get(base + "/healthz"); err != nil {
			t.Fatal(err)
		}
		var h struct{ Tables string }
		json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		a.tables = h.Tables
		return a
	}
	// until waits for an answer that satisfies ok (the stream writes and
	// publishes meanwhile).
	until := func(what string, ok func(answer) bool) answer {
		t.Helper()
		var a answer
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) { // polling while the stream writes
			if a = ask(); ok(a) {
				return a
			}
		}
		t.Fatalf("%s: last answer %+v\nstream stderr:\n%s", what, a, c.stderr)
		return a
	}
	first := until("a count of the first tweets from a snapshot", func(a answer) bool { return a.count > 0 && a.snapshot != "" && a.tables == "snapshot" })
	if first.count >= 53 {
		t.Fatalf("%d tweets before the rest were produced", first.count)
	}
	kafkatest.Produce(t, addr, "tweets", 0, values[20:])
	later := until("a count of every tweet from a newer snapshot", func(a answer) bool { return a.count == 53 && a.tables == "snapshot" })
	if later.snapshot <= first.snapshot {
		t.Errorf("snapshot %s after %s", later.snapshot, first.snapshot)
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("stream exit %d:\n%s", code, c.stderr)
	}
	until("the store itself once the stream has ended", func(a answer) bool { return a.count == 53 && a.tables == "store" && a.snapshot == "" })
}
