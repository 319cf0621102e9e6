package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl/scram"

	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
	"github.com/tweetindex/tweetindex/pipelines/cmd/internal/cmdtest"
)

// securedBroker starts devbroker serving TLS (certificates made in a
// temporary directory) and SCRAM-SHA-512 as indexer, and returns its
// address, the PKI files and the password file.
func securedBroker(t *testing.T) (addr string, pki securetest.Files, pwFile string) {
	t.Helper()
	dir := t.TempDir()
	pwFile = filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tlsDir := filepath.Join(dir, "pki")
	addr, stop := startBroker(t, "-topic", "tweets", "-partitions", "2", "-tls-dir", tlsDir,
		"-sasl", "SCRAM-SHA-512", "-sasl-user", "indexer", "-sasl-password-file", pwFile)
	t.Cleanup(stop)
	return addr, securetest.FilesIn(tlsDir), pwFile
}

// secureValues reads every message value of topic through a client
// with TLS and SCRAM-SHA-512, sorted.
func secureValues(t *testing.T, addr, topic, caFile string, partitions int) []string {
	t.Helper()
	tc, err := secure.TLS{CAFile: caFile}.Config()
	if err != nil {
		t.Fatal(err)
	}
	m, err := scram.Mechanism(scram.SHA512, "indexer", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	c := &kafka.Client{Addr: kafka.TCP(addr), Timeout: 10 * time.Second, Transport: &kafka.Transport{TLS: tc, SASL: m}}
	return clientValues(t, c, topic, partitions)
}

// TestSecuredBroker: serve -tls-dir -sasl runs a broker that only a
// client with the CA and the password gets into: produce with the
// matching flags writes, a consumer reads it back, and produce without
// the password or the CA fails.
func TestSecuredBroker(t *testing.T) {
	addr, pki, pwFile := securedBroker(t)
	input := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(input, []byte("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client := []string{"-tls-ca", pki.CA, "-sasl", "SCRAM-SHA-512", "-sasl-user", "indexer", "-sasl-password-file", pwFile}
	args := append([]string{"produce", "-broker", addr, "-topic", "tweets", "-rate", "0", "-q"}, client...)
	if err := run(ctx, append(args, input), io.Discard, io.Discard); err != nil {
		t.Fatalf("produce to the secured broker: %v", err)
	}
	if got, want := secureValues(t, addr, "tweets", pki.CA, 2), []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}; !slices.Equal(got, want) {
		t.Errorf("tweets holds %q, want %q", got, want)
	}

	wrong := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrong, []byte("guess\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused := map[string][]string{
		"wrong password": {"-tls-ca", pki.CA, "-sasl", "SCRAM-SHA-512", "-sasl-user", "indexer", "-sasl-password-file", wrong},
		"no SASL":        {"-tls-ca", pki.CA},
		"no TLS":         {"-sasl", "SCRAM-SHA-512", "-sasl-user", "indexer", "-sasl-password-file", pwFile},
	}
	var wg sync.WaitGroup
	for name, args := range refused {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			var stderr cmdtest.SyncBuffer
			all := append(append([]string{"produce", "-broker", addr, "-topic", "tweets", "-rate", "0", "-q"}, args...), input)
			run(ctx, all, io.Discard, &stderr) // an error, or stopped by ctx: either way nothing produced
			if !strings.Contains(stderr.String(), "produced 0 messages") {
				t.Errorf("%s: %s", name, stderr.String())
			}
		}()
	}
	wg.Wait()
	if got := secureValues(t, addr, "tweets", pki.CA, 2); len(got) != 3 {
		t.Errorf("after the refused producers tweets holds %d messages, want 3", len(got))
	}
}

// TestSecuredBrokerFlags: the security flags' mistakes are usage errors.
func TestSecuredBrokerFlags(t *testing.T) {
	t.Setenv(passwordEnv, "")
	os.Unsetenv(passwordEnv)
	for _, args := range [][]string{
		{"-sasl", "GSSAPI", "-sasl-user", "u"},
		{"-sasl", "PLAIN"},
		{"-sasl", "PLAIN", "-sasl-user", "u"}, // no password anywhere
		{"-sasl-user", "u"},
		{"-tls-cert", "c.pem"},
		{"-tls-client-ca", "ca.pem"},
	} {
		err := run(context.Background(), append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), io.Discard, io.Discard)
		if _, ok := err.(usageError); !ok {
			t.Errorf("serve %q: %v, want a usage error", args, err)
		}
	}
}

// TestKcatReadsSecuredBroker: kcat (librdkafka), a client written by
// others, produces to and consumes from the broker with
// security.protocol=SASL_SSL and SCRAM-SHA-512, the password in a
// configuration file (-F), not on its command line.
func TestKcatReadsSecuredBroker(t *testing.T) {
	kcat := cmdtest.Kcat(t)
	addr, pki, _ := securedBroker(t)
	conf := filepath.Join(t.TempDir(), "kcat.conf")
	props := "security.protocol=SASL_SSL\nsasl.mechanisms=SCRAM-SHA-512\nsasl.username=indexer\nsasl.password=s3cret\nssl.ca.location=" + pki.CA + "\n"
	if err := os.WriteFile(conf, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	produce := exec.CommandContext(ctx, kcat, "-F", conf, "-b", addr, "-t", "tweets", "-P", "-p", "0")
	produce.Stdin = strings.NewReader("{\"n\":1}\n{\"n\":2}\n")
	if out, err := produce.CombinedOutput(); err != nil {
		t.Fatalf("kcat -P: %v\n%s", err, out)
	}
	consume := exec.CommandContext(ctx, kcat, "-F", conf, "-b", addr, "-t", "tweets", "-C", "-e", "-q", "-f", "%s\n")
	out, err := consume.Output()
	if err != nil {
		t.Fatalf("kcat -C: %v", err)
	}
	if got := strings.Fields(string(out)); !slices.Equal(got, []string{`{"n":1}`, `{"n":2}`}) {
		t.Errorf("kcat read %q", got)
	}
	if got := secureValues(t, addr, "tweets", pki.CA, 2); len(got) != 2 {
		t.Errorf("kafka-go reads %d messages of kcat's, want 2", len(got))
	}
	// The wrong password: kcat fails.
	if err := os.WriteFile(conf, []byte(strings.Replace(props, "s3cret", "guess", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	wrongCtx, cancelWrong := context.WithTimeout(ctx, 30*time.Second)
	defer cancelWrong()
	bad := exec.CommandContext(wrongCtx, kcat, "-F", conf, "-b", addr, "-L", "-m", "2")
	if out, err := bad.CombinedOutput(); err == nil {
		t.Errorf("kcat -L with the wrong password succeeded:\n%s", out)
	}
}
