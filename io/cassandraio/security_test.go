package cassandraio

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestSecuredCluster writes and reads through the sink against a CQL
// server that requires a password over TLS (with client certificates),
// and checks that each wrong setting fails the connection in one line
// naming it, without the password in it.
func TestSecuredCluster(t *testing.T) {
	dir := t.TempDir()
	caFile, otherFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "other.pem")
	ca, err := securetest.NewCAFile("cluster CA", caFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := securetest.NewCAFile("another CA", otherFile); err != nil {
		t.Fatal(err)
	}
	node, err := ca.Issue("node", securetest.Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	named, err := ca.Issue("node", securetest.Options{Hosts: []string{"cassandra.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.Issue("indexer", securetest.Options{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	clientCert, clientKey := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	if err := client.Write(clientCert, clientKey); err != nil {
		t.Fatal(err)
	}
	old, err := ca.Issue("indexer", securetest.Options{Client: true, NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	oldCert, oldKey := filepath.Join(dir, "old.pem"), filepath.Join(dir, "old-key.pem")
	if err := old.Write(oldCert, oldKey); err != nil {
		t.Fatal(err)
	}
	pwFile := filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CASSANDRAIO_TEST_WRONG", "guess")

	start := func(cert tls.Certificate, mutual bool) *cassandratest.Server {
		tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if mutual {
			tc.ClientCAs, tc.ClientAuth = ca.Pool(), tls.RequireAndVerifyClientCert
		}
		srv, err := cassandratest.New(cassandratest.Options{Users: map[string]string{"indexer": "s3cret"}, TLS: tc})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return srv
	}
	secured := start(node.Cert, true)
	good := func(srv *cassandratest.Server) Config {
		cfg := DefaultConfig(srv.Addr())
		cfg.Consistency, cfg.ConnectTimeout, cfg.MaxRetries = "ONE", 3*time.Second, 0
		cfg.Username, cfg.Password = "indexer", secure.Secret{File: pwFile}
		cfg.TLS = secure.TLS{CAFile: caFile, CertFile: clientCert, KeyFile: clientKey}
		return cfg
	}

	cfg := good(secured)
	ctx := context.Background()
	if err := ApplySchema(ctx, cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatalf("schema on the secured server: %v", err)
	}
	cells := testCells(50, 1)
	if _, err := writeAll(t, cfg, cells); err != nil {
		t.Fatalf("write: %v", err)
	}
	r, err := NewReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := expected(cells)
	for table, rows := range want {
		checkTable(t, table, rows, readCells(t, r, table))
	}
	r.Close()

	plain, err := cassandratest.New(cassandratest.Options{Users: map[string]string{"indexer": "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	tests := []struct {
		name string
		srv  *cassandratest.Server
		mod  func(*Config)
		want string
	}{
		{"wrong password", secured, func(c *Config) { c.Password = secure.Secret{Env: "CASSANDRAIO_TEST_WRONG"} },
			`the cluster refused the password of user "indexer" (from environment variable CASSANDRAIO_TEST_WRONG): check Password (--cassandra-password-file or --cassandra-password-env)`},
		{"unset password variable", secured, func(c *Config) { c.Password = secure.Secret{Env: "CASSANDRAIO_TEST_UNSET"} }, "CASSANDRAIO_TEST_UNSET, which should hold the secret, is not set: check Password"},
		{"no user", secured, func(c *Config) { c.Username, c.Password = "", secure.Secret{} }, "the cluster requires a user name and password: check Username (--cassandra-username)"},
		{"unknown CA", secured, func(c *Config) { c.TLS.CAFile = otherFile }, "is not signed by a CA it trusts (issuer CN=cluster CA): check TLS.CAFile (--cassandra-ssl-certfile)"},
		{"no client certificate", secured, func(c *Config) { c.TLS.CertFile, c.TLS.KeyFile = "", "" }, "refused the client certificate"},
		{"expired client certificate", secured, func(c *Config) { c.TLS.CertFile, c.TLS.KeyFile = oldCert, oldKey }, "client certificate " + oldCert + " expired at"},
		{"key of another certificate", secured, func(c *Config) { c.TLS.KeyFile = oldKey }, "check TLS.KeyFile (--cassandra-ssl-userkey)"},
		{"certificate for another name", start(named.Cert, false), func(c *Config) {}, "is for cassandra.example.com, not 127.0.0.1: check TLS.ServerName"},
		{"plaintext client, TLS server", secured, func(c *Config) { c.TLS = secure.TLS{} }, "speaks TLS on that port: check TLS (--cassandra-ssl)"},
		{"TLS client, plaintext server", plain, func(c *Config) {}, "check TLS (--cassandra-ssl)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good(tc.srv)
			tc.mod(&cfg)
			err := Check(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check error = %v\nwant one containing %q", err, tc.want)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "cassandraio: ") || strings.Contains(msg, "s3cret") || strings.Contains(msg, "guess") {
				t.Errorf("error is not one cassandraio line without the password: %q", msg)
			}
		})
	}
	// Right settings but for the name: the name given, or its check off.
	named2 := start(named.Cert, false)
	for _, mod := range []func(*Config){
		func(c *Config) { c.TLS.ServerName = "cassandra.example.com" },
		func(c *Config) { c.TLS.SkipHostVerification = true },
	} {
		cfg := good(named2)
		mod(&cfg)
		if err := Check(cfg); err != nil {
			t.Errorf("%+v: %v", cfg.TLS, err)
		}
	}
}
