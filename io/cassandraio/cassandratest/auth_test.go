package cassandratest

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/io/secure/securetest"
)

// TestPasswordAuthentication: with Users the server asks for a password,
// as Cassandra's PasswordAuthenticator does, and gocql's
// PasswordAuthenticator gets through with the right one only.
func TestPasswordAuthentication(t *testing.T) {
	srv, err := New(Options{Users: map[string]string{"indexer": "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	connect := func(auth gocql.Authenticator) error {
		cl := gocql.NewCluster(srv.Addr())
		cl.Timeout, cl.ConnectTimeout = 5*time.Second, 5*time.Second
		cl.Authenticator = auth
		s, err := cl.CreateSession()
		if err != nil {
			return err
		}
		defer s.Close()
		var v string
		return s.Query("SELECT release_version FROM system.local").Scan(&v)
	}
	if err := connect(gocql.PasswordAuthenticator{Username: "indexer", Password: "s3cret"}); err != nil {
		t.Fatalf("the right password: %v", err)
	}
	for _, tc := range []struct {
		name string
		auth gocql.Authenticator
		want string
	}{
		{"wrong password", gocql.PasswordAuthenticator{Username: "indexer", Password: "guess"}, "Provided username indexer and/or password are incorrect"},
		{"unknown user", gocql.PasswordAuthenticator{Username: "nobody", Password: "s3cret"}, "Provided username nobody and/or password are incorrect"},
		{"no credentials", nil, "authentication required"},
	} {
		if err := connect(tc.auth); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
	if n := srv.Stats().AuthFailures; n < 2 {
		t.Errorf("AuthFailures = %d, want at least 2", n)
	}
}

// TestRequestsWaitForAuthentication: on the wire, a request before the
// password is refused, and so is an AUTH_RESPONSE nobody asked for.
func TestRequestsWaitForAuthentication(t *testing.T) {
	srv, err := New(Options{Users: map[string]string{"indexer": "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c := dialRaw(t, srv)
	c.send(protoVersion, 1, opStartup, stringMapBody(map[string]string{"CQL_VERSION": "3.0.0"}))
	if h, r := c.recv(); h.opcode != opAuthenticate || r.string() != passwordAuthenticator {
		t.Fatalf("STARTUP answered opcode %d, want AUTHENTICATE naming the PasswordAuthenticator", h.opcode)
	}
	c.send(protoVersion, 2, opQuery, queryBody("SELECT * FROM system.local"))
	if h, r := c.recv(); h.opcode != opError || r.int() != codeProtocol || !strings.Contains(r.string(), "requires authentication") {
		t.Fatalf("a query before AUTH_RESPONSE: opcode %d, want a protocol error", h.opcode)
	}
	token := func(user, pw string) []byte {
		w := &writer{}
		w.bytes([]byte("\x00" + user + "\x00" + pw))
		return w.b
	}
	c.send(protoVersion, 3, opAuthResponse, token("indexer", "guess"))
	if h, r := c.recv(); h.opcode != opError || r.int() != codeBadCredentials {
		t.Fatalf("a wrong password: opcode %d, want Bad credentials", h.opcode)
	}
	c.send(protoVersion, 4, opAuthResponse, token("indexer", "s3cret"))
	if h, _ := c.recv(); h.opcode != opAuthSuccess {
		t.Fatalf("the right password: opcode %d, want AUTH_SUCCESS", h.opcode)
	}
	c.send(protoVersion, 5, opAuthResponse, token("indexer", "s3cret"))
	if h, r := c.recv(); h.opcode != opError || r.int() != codeProtocol {
		t.Fatalf("AUTH_RESPONSE after success: opcode %d, want a protocol error", h.opcode)
	}
	c.send(protoVersion, 6, opQuery, queryBody("SELECT * FROM system.local"))
	if h, _ := c.recv(); h.opcode != opResult {
		t.Fatalf("a query once authenticated: opcode %d, want RESULT", h.opcode)
	}
}

// TestTLS: with TLS the server speaks TLS, and requires client
// certificates when its configuration does.
func TestTLS(t *testing.T) {
	ca, err := securetest.NewCA("cassandratest CA")
	if err != nil {
		t.Fatal(err)
	}
	node, err := ca.Issue("node", securetest.Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.Issue("client", securetest.Options{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{TLS: &tls.Config{Certificates: []tls.Certificate{node.Cert}, ClientCAs: ca.Pool(), ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	connect := func(tc *tls.Config) error {
		cl := gocql.NewCluster(srv.Addr())
		cl.Timeout, cl.ConnectTimeout = 5*time.Second, 5*time.Second
		if tc != nil {
			cl.SslOpts = &gocql.SslOptions{Config: tc, EnableHostVerification: true}
		}
		s, err := cl.CreateSession()
		if err != nil {
			return err
		}
		s.Close()
		return nil
	}
	if err := connect(&tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{client.Cert}, MinVersion: tls.VersionTLS12}); err != nil {
		t.Fatalf("TLS with a client certificate: %v", err)
	}
	if err := connect(&tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}); err == nil {
		t.Error("TLS without a client certificate connected")
	}
	if err := connect(nil); err == nil {
		t.Error("a plaintext client connected to the TLS server")
	}
}
