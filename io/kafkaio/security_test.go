package kafkaio

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
)

// selfSigned returns a server certificate for 127.0.0.1 and a PEM file of
// its CA, to trust.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	ca, err := securetest.NewCA("kafkatest CA")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ca.Issue("kafkatest", securetest.Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := ca.WriteCA(caFile); err != nil {
		t.Fatal(err)
	}
	return srv.Cert, caFile
}

// TestReadWithTLSAndSASL reads from brokers that require TLS, SASL, or
// both, and checks that bad credentials fail the read (an untrusted
// certificate at once).
func TestReadWithTLSAndSASL(t *testing.T) {
	const topic = "secure"
	cert, caFile := selfSigned(t)
	pwFile := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAFKAIO_TEST_PASSWORD", "s3cret")
	t.Setenv("KAFKAIO_TEST_GUESS", "guess")
	env := secure.Secret{Env: "KAFKAIO_TEST_PASSWORD"}
	serverTLS := kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	tests := []struct {
		name    string
		broker  []kfake.Opt
		tls     secure.TLS
		sasl    SASLConfig
		wantErr string
	}{
		{"tls", []kfake.Opt{serverTLS}, secure.TLS{CAFile: caFile}, SASLConfig{}, ""},
		{"sasl plain", []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("PLAIN", "indexer", "s3cret")}, secure.TLS{}, SASLConfig{Mechanism: "plain", User: "indexer", Password: env}, ""},
		{"sasl scram-sha-256 with a password file", []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "indexer", "s3cret")}, secure.TLS{}, SASLConfig{Mechanism: "scram-sha-256", User: "indexer", Password: secure.Secret{File: pwFile}}, ""},
		{"sasl scram-sha-512 over tls", []kfake.Opt{serverTLS, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "indexer", "s3cret")}, secure.TLS{CAFile: caFile}, SASLConfig{Mechanism: "scram-sha-512", User: "indexer", Password: env}, ""},
		// kfake closes the connection on a failed SASL exchange, where Kafka
		// answers SASL_AUTHENTICATION_FAILED: the client sees EOF, a network
		// error, retried until RetryTimeout.
		{"wrong password", []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "indexer", "s3cret")}, secure.TLS{}, SASLConfig{Mechanism: "scram-sha-256", User: "indexer", Password: secure.Secret{Env: "KAFKAIO_TEST_GUESS"}}, "EOF"},
		{"untrusted certificate", []kfake.Opt{serverTLS}, secure.TLS{Enable: true}, SASLConfig{}, "certificate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := kafkatest.Start(map[string]int{topic: 2}, kafkatest.Options{Extra: tc.broker})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			cfg := Config{Brokers: []string{b.Addr()}, Topic: topic, Stop: "latest", TLS: tc.tls, SASL: tc.sasl, RetryTimeout: 2 * time.Second}
			if tc.wantErr == "" {
				produceSecure(t, b.Addr(), topic, tc.tls, tc.sasl, caFile)
			}
			key, sink := newSink(t)
			start := time.Now()
			err = ptest.Run(readPipeline(cfg, key))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("read error = %v, want one mentioning %q", err, tc.wantErr)
				}
				if d := time.Since(start); tc.wantErr == "certificate" && d > cfg.RetryTimeout/2 {
					t.Errorf("the read failed after %v: a permanent error should not be retried", d)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := diffLines(lines(sink.snapshot()), want(topic, map[int][2]int64{0: {0, 5}, 1: {0, 5}})); d != "" {
				t.Errorf("records differ:\n%s", d)
			}
		})
	}
}

// produceSecure produces 5 test values to each of two partitions through a
// client with the given security settings.
func produceSecure(t *testing.T, addr, topic string, tc secure.TLS, sc SASLConfig, caFile string) {
	t.Helper()
	d := &kafka.Dialer{Timeout: 10 * time.Second}
	var err error
	if d.TLS, err = tlsConfig(tc); err != nil {
		t.Fatal(err)
	}
	if d.SASLMechanism, err = saslMechanism(sc); err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		conn, err := d.DialLeader(t.Context(), "tcp", addr, topic, p)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []kafka.Message
		for _, v := range values(p, 0, 5) {
			msgs = append(msgs, kafka.Message{Value: v})
		}
		if _, err := conn.WriteMessages(msgs...); err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
}
