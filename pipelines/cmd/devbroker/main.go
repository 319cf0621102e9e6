// Command devbroker runs a local Kafka broker for development and demos, and
// produces tweet files into it at a steady rate. It needs nothing installed:
// the broker is franz-go's in-process kfake, spoken to over the real Kafka
// protocol on a loopback port.
//
// Run a broker until SIGINT or SIGTERM ("serve" may be left out when a flag
// follows):
//
//	devbroker serve [-addr 127.0.0.1:9092] [-topic tweets] [-partitions 4] [-data DIR] [-auto-create=true]
//	                [-tls-dir DIR | -tls-cert FILE -tls-key FILE] [-tls-client-ca FILE]
//	                [-sasl PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 -sasl-user NAME [-sasl-password-file FILE]]
//
// Secured, it serves TLS (with -tls-dir, a CA and certificates made for
// the occasion in DIR; clients trust DIR/ca.pem) and requires SASL
// authentication as the one user it is given (the password from
// -sasl-password-file or the environment variable DEVBROKER_SASL_PASSWORD,
// never a flag value); produce and replay take the matching client flags
// (-tls-ca, -sasl, -sasl-user, -sasl-password-file).
//
// It prints its address on the first line of standard output. With -data the
// topics, records and committed offsets persist in DIR across restarts. A
// topic that does not exist is created (with -partitions partitions) when a
// client first asks for it, as Kafka does by default (auto.create.topics.enable).
//
// With no arguments it prints its usage. -h on any command prints its flags
// (exit 0); a usage error exits 2, a failure 1.
//
// Produce the JSON lines of FILES (plain, .gz, .bz2 or .zst; blank lines are
// skipped), one message per line, round robin over the partitions:
//
//	devbroker produce [-broker 127.0.0.1:9092] [-topic tweets] [-rate N] [-loop] [-n MAX] FILES...
//
// -rate is messages per second (0: as fast as the broker takes them); -loop
// starts over at the first file after the last, until interrupted.
//
// Replay tweet archives in any format tweetindex reads (tar, zip, API pages,
// tweets.js, ...), one message per record as its archive reader sees them:
//
//	devbroker replay [-broker 127.0.0.1:9092] [-topic tweets] [-rate N] [-loop] [-n MAX] FILE|DIR|GLOB...
//
// Run the streaming demo (make demo-stream): a broker, a replay of FILES
// into it, and bin/tweetindex index --kafka reading it into a local store,
// printing the per-minute counts as they grow; Ctrl-C drains and stops:
//
//	devbroker demo [-addr 127.0.0.1:19092] [-rate 50] [-store DIR] FILE|DIR|GLOB... [-- tweetindex index flags]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const usageText = `devbroker runs a local Kafka broker (franz-go's kfake) and produces tweets into it.

Usage:
  devbroker serve [-addr HOST:PORT] [-topic T[,T...]] [-partitions N] [-data DIR] [-auto-create=false]
                  [-tls-dir DIR | -tls-cert F -tls-key F] [-tls-client-ca F] [-sasl MECHS -sasl-user U [-sasl-password-file F]]
  devbroker produce [-broker HOST:PORT] [-topic T] [-rate N] [-loop] [-n MAX] FILES...
  devbroker replay [-broker HOST:PORT] [-topic T] [-rate N] [-loop] [-n MAX] FILE|DIR|GLOB...
  devbroker demo [-addr HOST:PORT] [-rate N] [-store DIR] FILE|DIR|GLOB... [-- tweetindex index flags]

'devbroker COMMAND -h' lists the flags of a command.
`

// usageError is a mistake in the command line: exit 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// parseFlags parses fs, marking its errors as usage errors (but for
// flag.ErrHelp: the flags were printed as asked).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil && !errors.Is(err, flag.ErrHelp) {
		return usageError{err}
	} else if err != nil {
		return err
	}
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "devbroker:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "devbroker:", err)
		os.Exit(1)
	}
}

// run runs the command with args until ctx ends (the broker) or the input
// is produced (produce).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return usageError{errors.New("name a command: serve, produce, replay or demo")}
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return nil
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "produce":
		return produce(ctx, args[1:], stderr)
	case "replay":
		return replay(ctx, args[1:], stderr)
	case "demo":
		return demo(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		return serve(ctx, args, stdout, stderr)
	}
	return usageError{fmt.Errorf("unknown command %q (want serve, produce, replay or demo)", args[0])}
}
