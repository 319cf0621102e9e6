package secure

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/secure/securetest"
)

func TestSecretResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("SECURE_TEST_PW", "from env")
	t.Setenv("SECURE_TEST_EMPTY", "")
	tests := []struct {
		name    string
		s       Secret
		want    string
		wantErr string
	}{
		{"file with a line break", Secret{File: write("pw", "s3cret\n")}, "s3cret", ""},
		{"file with CRLF", Secret{File: write("crlf", "s3cret\r\n")}, "s3cret", ""},
		{"file keeps inner and leading spaces", Secret{File: write("sp", " a b\n")}, " a b", ""},
		{"env", Secret{Env: "SECURE_TEST_PW"}, "from env", ""},
		{"missing file", Secret{File: filepath.Join(dir, "nope")}, "", "secret file " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"empty file", Secret{File: write("empty", "\n")}, "", "is empty"},
		{"unset env", Secret{Env: "SECURE_TEST_UNSET"}, "", "SECURE_TEST_UNSET, which should hold the secret, is not set"},
		{"empty env", Secret{Env: "SECURE_TEST_EMPTY"}, "", "is empty"},
		{"both", Secret{File: "f", Env: "E"}, "", "not both"},
		{"none", Secret{}, "", "no secret given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.Resolve()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve() = %q, %v; want an error containing %q", got, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Resolve() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if s := (Secret{Env: "SECURE_TEST_PW"}).String(); s != "environment variable SECURE_TEST_PW" {
		t.Errorf("String() = %q", s)
	}
}

// pki is a CA with a server certificate for 127.0.0.1 and a client
// certificate, in files.
type pki struct {
	dir                   string
	ca                    *securetest.CA
	caFile                string
	server                *securetest.Pair
	clientCert, clientKey string
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	dir := t.TempDir()
	ca, err := securetest.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ca.Issue("server", securetest.Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	cli, err := ca.Issue("client", securetest.Options{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	p := &pki{dir: dir, ca: ca, caFile: filepath.Join(dir, "ca.pem"), server: srv,
		clientCert: filepath.Join(dir, "client.pem"), clientKey: filepath.Join(dir, "client-key.pem")}
	if err := ca.WriteCA(p.caFile); err != nil {
		t.Fatal(err)
	}
	if err := cli.Write(p.clientCert, p.clientKey); err != nil {
		t.Fatal(err)
	}
	return p
}

// handshake runs a TLS server with cfg on a loopback port and returns the
// error of a client handshake with client's settings (nil: it succeeded).
func handshake(t *testing.T, server *tls.Config, client TLS) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", server)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			if c.(*tls.Conn).Handshake() == nil { // the client's certificate is checked here
				c.Write([]byte{1})
			}
			c.Close()
		}
	}()
	tc, err := client.Config()
	if err != nil {
		return err
	}
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", ln.Addr().String(), tc)
	if err != nil {
		return err
	}
	defer c.Close()
	// With TLS 1.3 the server's verdict on the client certificate comes
	// after the client's handshake is done: the byte it sends once it is
	// content, or its alert.
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		return err
	}
	return nil
}

// TestDiagnose connects to TLS servers with the wrong settings, each a
// real handshake, and checks that Diagnose names the setting to fix.
func TestDiagnose(t *testing.T) {
	p := newPKI(t)
	otherFile := filepath.Join(p.dir, "other-ca.pem")
	other, err := securetest.NewCAFile("another CA", otherFile)
	if err != nil {
		t.Fatal(err)
	}
	expired, err := p.ca.Issue("server", securetest.Options{Hosts: []string{"127.0.0.1"}, NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	named, err := p.ca.Issue("server", securetest.Options{Hosts: []string{"db.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	expiredClient, err := p.ca.Issue("client", securetest.Options{Client: true, NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	expiredClientCert, expiredClientKey := filepath.Join(p.dir, "old.pem"), filepath.Join(p.dir, "old-key.pem")
	if err := expiredClient.Write(expiredClientCert, expiredClientKey); err != nil {
		t.Fatal(err)
	}
	otherClient, err := other.Issue("client", securetest.Options{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	otherClientCert, otherClientKey := filepath.Join(p.dir, "stranger.pem"), filepath.Join(p.dir, "stranger-key.pem")
	if err := otherClient.Write(otherClientCert, otherClientKey); err != nil {
		t.Fatal(err)
	}

	serve := func(pair *securetest.Pair, mutual bool) *tls.Config {
		c := &tls.Config{Certificates: []tls.Certificate{pair.Cert}, MinVersion: tls.VersionTLS12}
		if mutual {
			c.ClientCAs, c.ClientAuth = p.ca.Pool(), tls.RequireAndVerifyClientCert
		}
		return c
	}
	tests := []struct {
		name    string
		server  *tls.Config
		client  TLS
		setting Setting // 0: the handshake succeeds
		why     string
	}{
		{"trusted", serve(p.server, false), TLS{CAFile: p.caFile}, 0, ""},
		{"mutual", serve(p.server, true), TLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: p.clientKey}, 0, ""},
		{"unknown CA", serve(p.server, false), TLS{CAFile: otherFile}, SettingCA, "not signed by a CA it trusts"},
		{"system CAs only", serve(p.server, false), TLS{Enable: true}, SettingCA, "not signed by a CA it trusts"},
		{"expired server certificate", serve(expired, false), TLS{CAFile: p.caFile}, SettingCA, "not valid now (expired at"},
		{"name mismatch", serve(named, false), TLS{CAFile: p.caFile}, SettingServerName, "is for db.example.com, not 127.0.0.1"},
		{"server name given", serve(named, false), TLS{CAFile: p.caFile, ServerName: "db.example.com"}, 0, ""},
		{"host verification off", serve(named, false), TLS{CAFile: p.caFile, SkipHostVerification: true}, 0, ""},
		{"host verification off still checks the CA", serve(named, false), TLS{CAFile: otherFile, SkipHostVerification: true}, SettingCA, "not signed by a CA it trusts"},
		{"insecure", serve(expired, false), TLS{InsecureSkipVerify: true}, 0, ""},
		{"no client certificate", serve(p.server, true), TLS{CAFile: p.caFile}, SettingCert, "refused the client certificate"},
		{"client certificate of another CA", serve(p.server, true), TLS{CAFile: p.caFile, CertFile: otherClientCert, KeyFile: otherClientKey}, SettingCert, "refused the client certificate"},
		{"expired client certificate", serve(p.server, true), TLS{CAFile: p.caFile, CertFile: expiredClientCert, KeyFile: expiredClientKey}, SettingCert, "client certificate " + expiredClientCert + " expired at"},
		{"key of another certificate", serve(p.server, true), TLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: otherClientKey}, SettingKey, "private key does not match"},
		{"missing CA file", serve(p.server, false), TLS{CAFile: filepath.Join(p.dir, "nope.pem")}, SettingCA, "no such file"},
		{"CA file without certificates", serve(p.server, false), TLS{CAFile: p.clientKey}, SettingCA, "holds no PEM certificate"},
		{"certificate without key", serve(p.server, false), TLS{CertFile: p.clientCert}, SettingKey, "needs its key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := handshake(t, tc.server, tc.client)
			if tc.setting == 0 {
				if err != nil {
					t.Fatalf("handshake: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("handshake succeeded")
			}
			s, why, ok := Diagnose(err, "127.0.0.1")
			if !ok || s != tc.setting || !strings.Contains(why, tc.why) {
				t.Errorf("Diagnose(%v) = %d, %q, %v; want %d, %q", err, s, why, ok, tc.setting, tc.why)
			}
		})
	}
}

// TestDiagnosePlainServer: a TLS client at a plaintext port is told the
// server does not speak TLS; network errors are not diagnosed.
func TestDiagnosePlainServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write([]byte("HTTP/1.0 400 Bad Request\r\n\r\n"))
		c.Close()
	}()
	_, err = tls.Dial("tcp", ln.Addr().String(), &tls.Config{MinVersion: tls.VersionTLS12})
	if s, why, ok := Diagnose(err, "127.0.0.1"); !ok || s != SettingTLS || !strings.Contains(why, "does not speak TLS") {
		t.Errorf("Diagnose(%v) = %d, %q, %v; want SettingTLS", err, s, why, ok)
	}
	ln.Close()
	_, err = net.Dial("tcp", ln.Addr().String())
	if _, _, ok := Diagnose(err, "127.0.0.1"); ok {
		t.Errorf("Diagnose(%v) diagnosed a refused connection", err)
	}
}
