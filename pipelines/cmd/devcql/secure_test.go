package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
	"github.com/tweetindex/tweetindex/pipelines/cmd/internal/cmdtest"
	"github.com/tweetindex/tweetindex/schemas"
)

// startSecured runs devcql with TLS (certificates made in a temporary
// directory) and the password of indexer, until the test ends, and
// returns its address, the PKI files and the password file.
func startSecured(t *testing.T) (addr string, pki securetest.Files, pwFile string) {
	t.Helper()
	dir := t.TempDir()
	pwFile = filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tlsDir := filepath.Join(dir, "pki")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-tls-dir", tlsDir, "-user", "indexer", "-password-file", pwFile}, pw, io.Discard)
		pw.CloseWithError(errors.New("devcql exited"))
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no address printed: %v (exit: %v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("devcql: %v", err)
		}
	})
	return strings.TrimSpace(line), securetest.FilesIn(tlsDir), pwFile
}

// TestSecuredServer: devcql -tls-dir -user takes the sink's connections
// with the CA and the password only.
func TestSecuredServer(t *testing.T) {
	addr, pki, pwFile := startSecured(t)
	cfg := cassandraio.DefaultConfig(addr)
	cfg.Consistency = "ONE"
	cfg.Username, cfg.Password = "indexer", secure.Secret{File: pwFile}
	cfg.TLS = secure.TLS{CAFile: pki.CA}
	if err := cassandraio.ApplySchema(context.Background(), cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatalf("schema apply on the secured devcql: %v", err)
	}
	t.Setenv("DEVCQL_TEST_WRONG", "guess")
	for name, mod := range map[string]func(*cassandraio.Config){
		"wrong password": func(c *cassandraio.Config) { c.Password = secure.Secret{Env: "DEVCQL_TEST_WRONG"} },
		"no TLS":         func(c *cassandraio.Config) { c.TLS = secure.TLS{} },
		"system CAs":     func(c *cassandraio.Config) { c.TLS = secure.TLS{Enable: true} },
	} {
		c := cfg
		mod(&c)
		if err := cassandraio.Check(c); err == nil {
			t.Errorf("%s: connected", name)
		}
	}
}

// TestSecuredFlags: the security flags' mistakes are usage errors.
func TestSecuredFlags(t *testing.T) {
	os.Unsetenv(passwordEnv)
	for _, args := range [][]string{
		{"-user", "u"}, // no password anywhere
		{"-password-file", "pw"},
		{"-tls-cert", "c.pem"},
		{"-tls-client-ca", "ca.pem"},
		{"-tls-dir", t.TempDir(), "-tls-cert", "c.pem", "-tls-key", "k.pem"},
	} {
		err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0"}, args...), io.Discard, io.Discard)
		if !errors.As(err, new(usageError)) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// pyConnect connects with the DataStax Python driver: PlainTextAuthProvider
// with the password read from a file, an SSL context trusting the CA
// file, the host name checked; it prints the release version.
const pyConnect = `
import ssl, sys
from cassandra.cluster import Cluster
from cassandra.auth import PlainTextAuthProvider
host, port, ca, user, pwfile = sys.argv[1:6]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations(ca)
password = open(pwfile).read().rstrip("\n")
cluster = Cluster([host], port=int(port), ssl_context=ctx, ssl_options={"server_hostname": host},
                  auth_provider=PlainTextAuthProvider(username=user, password=password))
session = cluster.connect()
print(session.execute("SELECT release_version FROM system.local").one().release_version)
cluster.shutdown()
`

// TestPythonDriverSecured: the DataStax Python driver, a client written by
// others, connects to the secured devcql with PlainTextAuthProvider and an
// SSL context, and is refused with the wrong password.
func TestPythonDriverSecured(t *testing.T) {
	py := cmdtest.PythonCassandra(t)
	addr, pki, pwFile := startSecured(t)
	host, port, _ := strings.Cut(addr, ":")
	out, err := exec.Command(py, "-c", pyConnect, host, port, pki.CA, "indexer", pwFile).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "4.") {
		t.Fatalf("python driver: %v\n%s", err, out)
	}
	wrong := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrong, []byte("guess\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(py, "-c", pyConnect, host, port, pki.CA, "indexer", wrong).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "AuthenticationFailed") {
		t.Errorf("python driver with the wrong password: %v\n%s", err, out)
	}
}
