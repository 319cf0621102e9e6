// Command devcql runs the project's CQL test server (io/cassandraio/cassandratest)
// on a loopback port, for trying the Cassandra path with nothing installed:
// tweetindex schema apply, index --cassandra and query --cassandra talk to
// it through gocql over the real CQL native protocol. It keeps its tables
// in memory, executes only the project's own statements, and forgets
// everything when it stops (SIGINT or SIGTERM).
//
//	devcql [-addr 127.0.0.1:9042] [-v] [-trace]
//
// It prints its address on the first line of standard output. -h prints the
// flags (exit 0); a usage error exits 2, a failure 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "devcql: %v\nRun 'devcql -h' for usage.\n", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "devcql:", err)
		os.Exit(1)
	}
}

// usageError is a mistake in the command line: exit 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devcql", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:9042", "address to listen on")
	verbose := fs.Bool("v", false, "log refused statements (with the reason) and connection errors on standard error")
	trace := fs.Bool("trace", false, "also log every statement received (implies -v)")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: devcql [-addr HOST:PORT] [-v] [-trace]\n\ndevcql serves the project's in-memory CQL test server over the CQL native protocol.")
			fs.PrintDefaults()
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (devcql takes only flags)", fs.Arg(0))}
	}
	opts := cassandratest.Options{Addr: *addr, Trace: *trace}
	if *verbose || *trace {
		opts.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	srv, err := cassandratest.New(opts)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (another server there? pass -addr)", *addr, err)
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.Addr())
	fmt.Fprintf(stderr, "devcql: CQL test server on %s (in memory; Ctrl-C stops it). Try:\n  tweetindex schema apply --cassandra %s\n", srv.Addr(), srv.Addr())
	<-ctx.Done()
	return nil
}
