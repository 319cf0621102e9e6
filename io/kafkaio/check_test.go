package kafkaio

import (
	"context"
	"crypto/tls"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
)

// TestCheck runs Check against kfake brokers secured in different ways,
// with right and wrong settings: each wrong one fails in one line naming
// the setting to fix, quickly (nothing is retried).
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	caFile, otherFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "other.pem")
	ca, err := securetest.NewCAFile("broker CA", caFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := securetest.NewCAFile("another CA", otherFile); err != nil {
		t.Fatal(err)
	}
	issue := func(o securetest.Options) tls.Certificate {
		p, err := ca.Issue("broker", o)
		if err != nil {
			t.Fatal(err)
		}
		return p.Cert
	}
	good := issue(securetest.Options{Hosts: []string{"127.0.0.1"}})
	named := issue(securetest.Options{Hosts: []string{"kafka.example.com"}})
	expired := issue(securetest.Options{Hosts: []string{"127.0.0.1"}, NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-time.Hour)})
	client, err := ca.Issue("indexer", securetest.Options{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	clientCert, clientKey := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	if err := client.Write(clientCert, clientKey); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAFKAIO_CHECK_PW", "s3cret")
	t.Setenv("KAFKAIO_CHECK_WRONG", "guess")
	right, wrong := secure.Secret{Env: "KAFKAIO_CHECK_PW"}, secure.Secret{Env: "KAFKAIO_CHECK_WRONG"}

	serverTLS := func(c tls.Certificate, mutual bool) kfake.Opt {
		tc := &tls.Config{Certificates: []tls.Certificate{c}, MinVersion: tls.VersionTLS12}
		if mutual {
			tc.ClientCAs, tc.ClientAuth = ca.Pool(), tls.RequireAndVerifyClientCert
		}
		return kfake.TLS(tc)
	}
	scram := []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "indexer", "s3cret")}
	scramTLS := append([]kfake.Opt{serverTLS(good, false)}, scram...)
	sasl := func(pw secure.Secret) SASLConfig {
		return SASLConfig{Mechanism: "SCRAM-SHA-256", User: "indexer", Password: pw}
	}
	tests := []struct {
		name   string
		broker []kfake.Opt
		tls    secure.TLS
		sasl   SASLConfig
		want   string // "": no error
	}{
		{"plaintext", nil, secure.TLS{}, SASLConfig{}, ""},
		{"scram over tls", scramTLS, secure.TLS{CAFile: caFile}, sasl(right), ""},
		{"mutual tls", []kfake.Opt{serverTLS(good, true)}, secure.TLS{CAFile: caFile, CertFile: clientCert, KeyFile: clientKey}, SASLConfig{}, ""},
		{"wrong password", scramTLS, secure.TLS{CAFile: caFile}, sasl(wrong), `the broker refused SASL SCRAM-SHA-256 authentication as user "indexer" (the password is from environment variable KAFKAIO_CHECK_WRONG): check SASL.Password (--kafka-sasl-password-file or --kafka-sasl-password-env)`},
		{"password not set", scramTLS, secure.TLS{CAFile: caFile}, sasl(secure.Secret{Env: "KAFKAIO_CHECK_UNSET"}), "KAFKAIO_CHECK_UNSET, which should hold the secret, is not set: check SASL.Password"},
		{"unknown CA", scramTLS, secure.TLS{CAFile: otherFile}, sasl(right), "is not signed by a CA it trusts (issuer CN=broker CA): check TLS.CAFile (--kafka-ssl-ca-location)"},
		{"expired broker certificate", []kfake.Opt{serverTLS(expired, false)}, secure.TLS{CAFile: caFile}, SASLConfig{}, "is not valid now (expired at"},
		{"certificate for another name", []kfake.Opt{serverTLS(named, false)}, secure.TLS{CAFile: caFile}, SASLConfig{}, "is for kafka.example.com, not 127.0.0.1: check TLS.ServerName (--kafka-ssl-server-name"},
		{"server name given", []kfake.Opt{serverTLS(named, false)}, secure.TLS{CAFile: caFile, ServerName: "kafka.example.com"}, SASLConfig{}, ""},
		{"no client certificate", []kfake.Opt{serverTLS(good, true)}, secure.TLS{CAFile: caFile}, SASLConfig{}, "refused the client certificate"},
		{"plaintext client, tls broker", []kfake.Opt{serverTLS(good, false)}, secure.TLS{}, SASLConfig{}, "speaks TLS on that port: use security protocol SSL or SASL_SSL: check TLS (--kafka-security-protocol)"},
		{"tls client, plaintext broker", nil, secure.TLS{CAFile: caFile}, SASLConfig{}, "check TLS (--kafka-security-protocol)"},
		{"no sasl, sasl broker", scram, secure.TLS{}, SASLConfig{}, "does it require SASL authentication"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := kafkatest.Start(map[string]int{"tweets": 1}, kafkatest.Options{Extra: tc.broker})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			cfg := Config{Brokers: []string{b.Addr()}, Topic: "tweets", TLS: tc.tls, SASL: tc.sasl}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = Check(context.Background(), cfg)
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("Check took %v", d)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check error = %v\nwant one containing %q", err, tc.want)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "kafkaio: ") || strings.Contains(msg, "s3cret") || strings.Contains(msg, "guess") {
				t.Errorf("Check error is not one kafkaio line without the password: %q", msg)
			}
		})
	}
}

// TestCheckLeavesDownBrokersToTheRead: no broker reachable is not a
// problem of the settings.
func TestCheckLeavesDownBrokersToTheRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := Config{Brokers: []string{addr}, Topic: "tweets", TLS: secure.TLS{Enable: true}}
	if err := Check(context.Background(), cfg); err != nil {
		t.Errorf("Check with the broker down: %v", err)
	}
}
