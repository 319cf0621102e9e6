// Command devcql runs the project's CQL test server (io/cassandraio/cassandratest)
// on a loopback port, for trying the Cassandra path with nothing installed:
// tweetindex schema apply, index --cassandra and query --cassandra talk to
// it through gocql over the real CQL native protocol. It keeps its tables
// in memory, executes only the project's own statements, and forgets
// everything when it stops (SIGINT or SIGTERM).
//
//	devcql [-addr 127.0.0.1:9042] [-v] [-trace]
//	       [-tls-dir DIR | -tls-cert FILE -tls-key FILE] [-tls-client-ca FILE]
//	       [-user NAME [-password-file FILE]]
//
// Secured, it serves TLS (with -tls-dir, a CA and certificates made for
// the occasion in DIR, or reused from it; clients trust DIR/ca.pem) and
// requires the password of -user, as Cassandra's PasswordAuthenticator
// does (the password from -password-file or the environment variable
// DEVCQL_PASSWORD, never a flag value).
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
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
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
	tlsDir := fs.String("tls-dir", "", "serve TLS with a certificate made for the occasion: a CA (DIR/ca.pem, for clients to trust), a certificate for the host of -addr and localhost, and a client certificate (DIR/client.pem, client-key.pem), made in DIR unless it holds them already")
	tlsCert := fs.String("tls-cert", "", "serve TLS with this PEM certificate (and -tls-key)")
	tlsKey := fs.String("tls-key", "", "the PEM key of -tls-cert")
	clientCA := fs.String("tls-client-ca", "", "with TLS: require client certificates signed by a CA of this PEM file")
	user := fs.String("user", "", "require authentication as this user (PasswordAuthenticator)")
	pwFile := fs.String("password-file", "", "with -user: a file holding the password (default: the environment variable "+passwordEnv+"; never a flag value, which shows in the process list)")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: devcql [-addr HOST:PORT] [-v] [-trace] [-tls-dir DIR | -tls-cert F -tls-key F] [-tls-client-ca F] [-user NAME [-password-file F]]\n\ndevcql serves the project's in-memory CQL test server over the CQL native protocol.")
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
	how, err := secureOptions(&opts, *tlsDir, *tlsCert, *tlsKey, *clientCA, *user, *pwFile)
	if err != nil {
		return err
	}
	srv, err := cassandratest.New(opts)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (another server there? pass -addr)", *addr, err)
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.Addr())
	fmt.Fprintf(stderr, "devcql: CQL test server on %s (in memory%s; Ctrl-C stops it). Try:\n  tweetindex schema apply --cassandra %s%s\n", srv.Addr(), how.text, srv.Addr(), how.flags)
	<-ctx.Done()
	return nil
}

// passwordEnv holds -user's password when -password-file is not given.
const passwordEnv = "DEVCQL_PASSWORD"

// security says how the server is secured: for its first line on stderr,
// and the tweetindex flags that reach it.
type security struct{ text, flags string }

// secureOptions sets the TLS and authentication of opts from the flags.
func secureOptions(opts *cassandratest.Options, dir, cert, key, clientCA, user, pwFile string) (security, error) {
	var how security
	if dir != "" {
		if cert != "" || key != "" {
			return how, usageError{errors.New("give -tls-dir or -tls-cert and -tls-key, not both")}
		}
		host, _, _ := net.SplitHostPort(opts.Addr)
		f, made, err := securetest.Ensure(dir, "devcql", host)
		if err != nil {
			return how, fmt.Errorf("-tls-dir %s: %w", dir, err)
		}
		cert, key = f.ServerCert, f.ServerKey
		verb := "using"
		if made {
			verb = "made"
		}
		how.text += fmt.Sprintf("; TLS (%s %s: trust %s)", verb, dir, f.CA)
		how.flags += " --cassandra-ssl --cassandra-ssl-certfile " + f.CA
	} else if cert != "" {
		how.text += "; TLS"
		how.flags += " --cassandra-ssl"
	}
	if (cert == "") != (key == "") {
		return how, usageError{errors.New("-tls-cert and -tls-key go together")}
	}
	if clientCA != "" && cert == "" {
		return how, usageError{errors.New("-tls-client-ca needs TLS: -tls-cert and -tls-key, or -tls-dir")}
	}
	if cert != "" {
		tc, err := securetest.ServerConfig(cert, key, clientCA)
		if err != nil {
			return how, err
		}
		opts.TLS = tc
		if clientCA != "" {
			how.text += ", client certificates required"
			how.flags += " --cassandra-ssl-usercert FILE --cassandra-ssl-userkey FILE"
		}
	}
	if user == "" {
		if pwFile != "" {
			return how, usageError{errors.New("-password-file needs -user NAME")}
		}
		return how, nil
	}
	ref := secure.Secret{File: pwFile}
	if ref.File == "" {
		ref.Env = passwordEnv
	}
	pw, err := ref.Resolve()
	if err != nil {
		return how, usageError{fmt.Errorf("-user %s needs a password: %w (write it to a file for -password-file, or set %s)", user, err, passwordEnv)}
	}
	opts.Users = map[string]string{user: pw}
	how.text += "; password required for " + user
	how.flags += " --cassandra-username " + user + " --cassandra-password-file FILE"
	return how, nil
}
