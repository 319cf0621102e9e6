package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
)

// passwordEnv is the environment variable the SASL password is read from
// when no -sasl-password-file is given: never a flag value, which every
// user of the machine sees in the process list.
const passwordEnv = "DEVBROKER_SASL_PASSWORD"

// mechanisms are the SASL mechanisms kfake speaks, as Kafka names them.
var mechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// saslFlags are the SASL flags of serve (the user the broker accepts)
// and of produce and replay (the user they authenticate as).
type saslFlags struct {
	mechanism, user, passwordFile string
}

func (f *saslFlags) register(fs *flag.FlagSet, serving bool) {
	if serving {
		fs.StringVar(&f.mechanism, "sasl", "", "require SASL authentication with these mechanisms, comma separated: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (empty: none)")
		fs.StringVar(&f.user, "sasl-user", "", "with -sasl: the user the broker accepts")
	} else {
		fs.StringVar(&f.mechanism, "sasl", "", "authenticate with this SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (empty: none)")
		fs.StringVar(&f.user, "sasl-user", "", "with -sasl: the user to authenticate as")
	}
	fs.StringVar(&f.passwordFile, "sasl-password-file", "", "with -sasl: a file holding the user's password (default: the environment variable "+passwordEnv+"; never a flag value, which shows in the process list)")
}

// check returns the mechanisms named and the password, or a usage error.
func (f *saslFlags) check(one bool) ([]string, string, error) {
	if f.mechanism == "" {
		if f.user != "" || f.passwordFile != "" {
			return nil, "", usageError{errors.New("-sasl-user and -sasl-password-file need -sasl MECHANISM")}
		}
		return nil, "", nil
	}
	var mechs []string
	for _, m := range strings.Split(f.mechanism, ",") {
		m = strings.ToUpper(strings.TrimSpace(m))
		found := false
		for _, k := range mechanisms {
			found = found || k == m
		}
		if !found {
			return nil, "", usageError{fmt.Errorf("-sasl %q: want %s", m, strings.Join(mechanisms, ", "))}
		}
		mechs = append(mechs, m)
	}
	if one && len(mechs) != 1 {
		return nil, "", usageError{fmt.Errorf("-sasl %q: name one mechanism", f.mechanism)}
	}
	if f.user == "" {
		return nil, "", usageError{errors.New("-sasl needs -sasl-user NAME")}
	}
	ref := secure.Secret{File: f.passwordFile}
	if ref.File == "" {
		ref.Env = passwordEnv
	}
	pw, err := ref.Resolve()
	if err != nil {
		return nil, "", usageError{fmt.Errorf("-sasl needs the password of %s: %w (write it to a file for -sasl-password-file, or set %s)", f.user, err, passwordEnv)}
	}
	return mechs, pw, nil
}

// serveSecurity are serve's flags that secure the broker: TLS and SASL.
type serveSecurity struct {
	tlsCert, tlsKey, clientCA, tlsDir string
	sasl                              saslFlags
}

func (s *serveSecurity) register(fs *flag.FlagSet) {
	fs.StringVar(&s.tlsCert, "tls-cert", "", "serve TLS with this PEM certificate (and -tls-key)")
	fs.StringVar(&s.tlsKey, "tls-key", "", "the PEM key of -tls-cert")
	fs.StringVar(&s.clientCA, "tls-client-ca", "", "with TLS: require client certificates signed by a CA of this PEM file (mutual TLS)")
	fs.StringVar(&s.tlsDir, "tls-dir", "", "serve TLS with a certificate made for the occasion: a CA (DIR/ca.pem, for clients to trust), a certificate for the broker's host and localhost, and a client certificate (DIR/client.pem, client-key.pem), made in DIR unless it holds them already")
	s.sasl.register(fs, true)
}

// options returns the kfake options of the flags, and what they make of
// the broker, for its first line on stderr ("" for plaintext without
// SASL).
func (s *serveSecurity) options(addr string) ([]kfake.Opt, string, error) {
	var opts []kfake.Opt
	var said []string
	cert, key := s.tlsCert, s.tlsKey
	if s.tlsDir != "" {
		if cert != "" || key != "" {
			return nil, "", usageError{errors.New("give -tls-dir or -tls-cert and -tls-key, not both")}
		}
		host, _, _ := net.SplitHostPort(addr)
		f, made, err := securetest.Ensure(s.tlsDir, "devbroker", host)
		if err != nil {
			return nil, "", fmt.Errorf("-tls-dir %s: %w", s.tlsDir, err)
		}
		cert, key = f.ServerCert, f.ServerKey
		verb := "using"
		if made {
			verb = "made"
		}
		said = append(said, fmt.Sprintf("TLS (%s %s: trust %s)", verb, s.tlsDir, f.CA))
	} else if cert != "" || key != "" {
		said = append(said, "TLS")
	}
	if (cert == "") != (key == "") {
		return nil, "", usageError{errors.New("-tls-cert and -tls-key go together")}
	}
	if s.clientCA != "" && cert == "" {
		return nil, "", usageError{errors.New("-tls-client-ca needs TLS: -tls-cert and -tls-key, or -tls-dir")}
	}
	if cert != "" {
		tc, err := securetest.ServerConfig(cert, key, s.clientCA)
		if err != nil {
			return nil, "", err
		}
		opts = append(opts, kfake.TLS(tc))
		if s.clientCA != "" {
			said = append(said, "client certificates required")
		}
	}
	mechs, pw, err := s.sasl.check(false)
	if err != nil {
		return nil, "", err
	}
	if len(mechs) > 0 {
		opts = append(opts, kfake.EnableSASL())
		for _, m := range mechs {
			opts = append(opts, kfake.Superuser(m, s.sasl.user, pw))
		}
		said = append(said, fmt.Sprintf("SASL %s as %s", strings.Join(mechs, "/"), s.sasl.user))
	}
	return opts, strings.Join(said, ", "), nil
}

// clientSecurity are the flags of produce and replay that reach a secured
// broker.
type clientSecurity struct {
	tls                 bool
	ca, cert, key, name string
	sasl                saslFlags
}

func (c *clientSecurity) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.tls, "tls", false, "connect with TLS (implied by -tls-ca, -tls-cert)")
	fs.StringVar(&c.ca, "tls-ca", "", "trust the CAs of this PEM file (serve -tls-dir's DIR/ca.pem; default: the system's)")
	fs.StringVar(&c.cert, "tls-cert", "", "a PEM client certificate, for a broker that requires one (and -tls-key)")
	fs.StringVar(&c.key, "tls-key", "", "the PEM key of -tls-cert")
	fs.StringVar(&c.name, "tls-server-name", "", "the name the broker's certificate must be for (default: the -broker host)")
	c.sasl.register(fs, false)
}

// transport returns the kafka-go transport of the flags.
func (c *clientSecurity) transport() (*kafka.Transport, error) {
	t := &kafka.Transport{DialTimeout: 5 * time.Second}
	tl := secure.TLS{Enable: c.tls, CAFile: c.ca, CertFile: c.cert, KeyFile: c.key, ServerName: c.name}
	if tl.Enabled() {
		tc, err := tl.Config()
		if err != nil {
			return nil, usageError{fmt.Errorf("TLS: %w", err)}
		}
		t.TLS = tc
	}
	mechs, pw, err := c.sasl.check(true)
	if err != nil || len(mechs) == 0 {
		return t, err
	}
	var m sasl.Mechanism
	switch mechs[0] {
	case "PLAIN":
		m = plain.Mechanism{Username: c.sasl.user, Password: pw}
	case "SCRAM-SHA-256":
		m, err = scram.Mechanism(scram.SHA256, c.sasl.user, pw)
	case "SCRAM-SHA-512":
		m, err = scram.Mechanism(scram.SHA512, c.sasl.user, pw)
	}
	t.SASL = m
	return t, err
}
