package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/pipelines/cmd/internal/cmdtest"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestServesCQL starts devcql on a free port and applies the schema to it
// through gocql; cancelling the context stops it.
func TestServesCQL(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, pw, io.Discard); pw.Close() }()
	addr, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	cfg := cassandraio.DefaultConfig(strings.TrimSpace(addr))
	cfg.Consistency = "ONE"
	if err := cassandraio.ApplySchema(ctx, cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatalf("schema apply on devcql: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestUsage: -h is help, a wrong flag or an argument a usage error.
func TestUsage(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &out, io.Discard); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "-addr") {
		t.Errorf("-h: %v, %q; want help on stdout", err, out.String())
	}
	for _, args := range [][]string{{"-nope"}, {"extra"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); !errors.As(err, new(usageError)) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// TestVerboseLogsRefusals: under -v a statement the server refuses is
// logged on standard error with the reason.
func TestVerboseLogsRefusals(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr cmdtest.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-v"}, pw, &stderr); pw.Close() }()
	addr, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	cl := gocql.NewCluster(strings.TrimSpace(addr))
	sess, err := cl.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	const refused = "SELECT * FROM system_schema.nosuchtable"
	if err := sess.Query(refused).Exec(); err == nil {
		t.Errorf("%s: no error", refused)
	}
	sess.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := `refused statement "` + refused + `"`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr under -v:\n%s\nwant a line with %s", stderr.String(), want)
	}
}
