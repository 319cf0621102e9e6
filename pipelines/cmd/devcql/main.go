// Command devcql runs the project's CQL test server (io/cassandraio/cqlserver)
// on a loopback port, for trying the Cassandra path with nothing installed:
// tweetindex schema apply, index --cassandra and query --cassandra talk to
// it through gocql over the real CQL native protocol. It keeps its tables
// in memory, executes only the project's own statements, and forgets
// everything when it stops (SIGINT or SIGTERM).
//
//	devcql [-addr 127.0.0.1:9042]
//
// It prints its address on the first line of standard output.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tweetindex/tweetindex/io/cassandraio/cqlserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "devcql:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devcql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9042", "address to listen on")
	verbose := fs.Bool("v", false, "log rejected statements and connection errors")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := cqlserver.Options{Addr: *addr}
	if *verbose {
		opts.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	srv, err := cqlserver.New(opts)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (another server there? pass -addr)", *addr, err)
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.Addr())
	fmt.Fprintf(stderr, "devcql: CQL test server on %s (in memory; Ctrl-C stops it). Try:\n  tweetindex schema apply --cassandra %s\n", srv.Addr(), srv.Addr())
	<-ctx.Done()
	return nil
}
