package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kfake"
	"google.golang.org/protobuf/proto"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/io/secure/securetest"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/cmd/internal/cmdtest"
	"github.com/tweetindex/tweetindex/schemas"
)

// cliArgv, as the value of cliArgsEnv, makes the test binary run main
// with the arguments of its own command line (startCLIArgv).
const cliArgv = "<argv>"

// startCLIArgv starts tweetindex args in a child process whose command
// line holds args, as the process list shows a command's.
func startCLIArgv(t *testing.T, args ...string) *cli {
	t.Helper()
	c := &cli{stdout: &cmdtest.SyncBuffer{}, stderr: &cmdtest.SyncBuffer{}, done: make(chan error, 1)}
	c.cmd = exec.Command(os.Args[0], args...)
	c.cmd.Env = append(os.Environ(), cliArgsEnv+"="+cliArgv)
	c.cmd.Stdout, c.cmd.Stderr = c.stdout, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- c.cmd.Wait() }()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// The secrets of the secured clusters: each must appear nowhere but in
// its file or variable (not in a command line, an error, the job graph).
const (
	kafkaSecret = "kafka-s3cret-1f9a"
	cqlSecret   = "cql-s3cret-77b2"
)

// securedClusters is a Kafka broker with SCRAM-SHA-512 over TLS and a CQL
// server with a password over TLS (client certificates required), both
// holding their secrets, and the files a client needs.
type securedClusters struct {
	dir                   string
	ca, otherCA           string // PEM files: the clusters' CA, another one
	clientCert, clientKey string
	cqlPassword           string // a file
	broker                *kafkatest.Broker
	cql                   *cassandratest.Server
}

// newSecuredClusters starts the clusters, with the sample in the broker's
// topic "tweets" (4 partitions), and sets TWEETINDEX_KAFKA_PASSWORD.
func newSecuredClusters(t *testing.T) *securedClusters {
	t.Helper()
	s := &securedClusters{dir: t.TempDir()}
	s.ca, s.otherCA = filepath.Join(s.dir, "ca.pem"), filepath.Join(s.dir, "other-ca.pem")
	ca, err := securetest.NewCAFile("clusters CA", s.ca)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := securetest.NewCAFile("another CA", s.otherCA); err != nil {
		t.Fatal(err)
	}
	server, err := ca.Issue("server", securetest.Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.Issue("indexer", securetest.Options{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	s.clientCert, s.clientKey = filepath.Join(s.dir, "client.pem"), filepath.Join(s.dir, "client-key.pem")
	if err := client.Write(s.clientCert, s.clientKey); err != nil {
		t.Fatal(err)
	}
	s.cqlPassword = filepath.Join(s.dir, "cql-password")
	if err := os.WriteFile(s.cqlPassword, []byte(cqlSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(kafkaPasswordEnv, kafkaSecret)

	s.broker = kafkatest.NewBroker(t, map[string]int{"tweets": crashPartitions},
		kfake.TLS(&tls.Config{Certificates: []tls.Certificate{server.Cert}, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "indexer", kafkaSecret))
	produceSecured(t, s.broker.Addr(), s.ca, sampleValues(t))

	s.cql, err = cassandratest.New(cassandratest.Options{
		Users: map[string]string{"indexer": cqlSecret},
		TLS: &tls.Config{Certificates: []tls.Certificate{server.Cert}, ClientCAs: ca.Pool(),
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cql.Close() })
	return s
}

// produceSecured produces values to topic "tweets" as produceSpread does,
// through TLS and SCRAM-SHA-512.
func produceSecured(t *testing.T, addr, caFile string, values [][]byte) {
	t.Helper()
	tc, err := secure.TLS{CAFile: caFile}.Config()
	if err != nil {
		t.Fatal(err)
	}
	m, err := scram.Mechanism(scram.SHA512, "indexer", kafkaSecret)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([][]kafka.Message, crashPartitions)
	for i, v := range values {
		parts[i%crashPartitions] = append(parts[i%crashPartitions], kafka.Message{Value: v})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for p, msgs := range parts {
		d := &kafka.Dialer{Timeout: 10 * time.Second, TLS: tc, SASLMechanism: m}
		if err := kafkatest.WriteMessagesWith(ctx, d, addr, "tweets", p, msgs); err != nil {
			t.Fatal(err)
		}
	}
}

// kafkaArgs are the flags that read the broker bounded, securely.
func (s *securedClusters) kafkaArgs() []string {
	return []string{"--kafka", s.broker.Addr(), "--topic", "tweets", "--stop", "latest",
		"--kafka-security-protocol", "SASL_SSL", "--kafka-sasl-mechanism", "SCRAM-SHA-512", "--kafka-sasl-username", "indexer",
		"--kafka-ssl-ca-location", s.ca}
}

// cqlArgs are the flags that reach the CQL server securely.
func (s *securedClusters) cqlArgs() []string {
	return []string{"--cassandra", s.cql.Addr(), "--cassandra-username", "indexer", "--cassandra-password-file", s.cqlPassword,
		"--cassandra-ssl", "--cassandra-ssl-certfile", s.ca, "--cassandra-ssl-usercert", s.clientCert, "--cassandra-ssl-userkey", s.clientKey}
}

// cqlTables returns every table but meta (which records the runs, with
// their times) of keyspace tweetindex on srv, as key -> value, per table.
func cqlTables(t *testing.T, srv *cassandratest.Server) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, spec := range schemas.Registry() {
		if spec.Table == schemas.TableMeta {
			continue
		}
		cells, err := srv.Cells("tweetindex", spec.Table)
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]string{}
		for _, c := range cells {
			rows[string(c.Key)] = string(c.Value)
		}
		out[spec.Name] = rows
	}
	return out
}

// noSecretIn fails the test if what holds a secret.
func noSecretIn(t *testing.T, where, what string) {
	t.Helper()
	for _, s := range []string{kafkaSecret, cqlSecret} {
		if strings.Contains(what, s) {
			t.Errorf("%s holds a secret:\n%s", where, what)
		}
	}
}

// TestSecuredKafkaIntoCassandra: a bounded Kafka read with SCRAM-SHA-512
// over TLS into a CQL server that wants a password over TLS (and a client
// certificate) writes the same tables as the same read unsecured; the
// process list never shows a secret while it runs; kcat and the Python
// driver, clients written by others, read what was written.
func TestSecuredKafkaIntoCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the sample twice from Kafka into the CQL test server; make test runs it")
	}
	s := newSecuredClusters(t)

	// The unsecured run: plaintext broker, plaintext CQL server.
	plainBroker := kafkatest.NewBroker(t, map[string]int{"tweets": crashPartitions})
	produceSpread(t, plainBroker.Addr(), "tweets", sampleValues(t), 0)
	plainCQL, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plainCQL.Close() })
	for _, args := range [][]string{
		{"schema", "apply", "--cassandra", plainCQL.Addr()},
		{"index", "--kafka", plainBroker.Addr(), "--topic", "tweets", "--stop", "latest", "--cassandra", plainCQL.Addr(), "--progress", "0"},
	} {
		if code, out, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", args, code, out, errOut)
		}
	}

	if code, out, errOut := runCLI(t, append([]string{"schema", "apply"}, s.cqlArgs()...)...); code != 0 {
		t.Fatalf("schema apply on the secured server: exit %d\n%s%s", code, out, errOut)
	}
	args := append(append([]string{"index", "--progress", "0"}, s.kafkaArgs()...), s.cqlArgs()...)
	c := startCLIArgv(t, args...)
	// What ps shows of the run while it runs: its command line, which
	// holds the flags (and their values) as a shell would give them.
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmdline) == 0 {
		// The run ended already (a zombie has no command line): what ps
		// showed of it was its arguments.
		cmdline = []byte(strings.Join(c.cmd.Args, "\x00"))
	}
	if !bytes.Contains(cmdline, []byte(s.cqlPassword)) {
		t.Fatalf("the run's command line does not hold its flags: %q", cmdline)
	}
	noSecretIn(t, "the run's command line", strings.ReplaceAll(string(cmdline), "\x00", " "))
	if ps, err := exec.Command("ps", "-eo", "args").Output(); err == nil {
		noSecretIn(t, "ps", string(ps))
	}
	if code := c.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("secured index: exit %d\nstdout:\n%s\nstderr:\n%s", code, c.stdout, c.stderr)
	}
	noSecretIn(t, "the run's output", c.stdout.String()+c.stderr.String())

	want, got := cqlTables(t, plainCQL), cqlTables(t, s.cql)
	if len(want["raw"]) == 0 {
		t.Fatal("the unsecured run wrote no raw rows")
	}
	for name, rows := range want {
		if len(got[name]) != len(rows) {
			t.Errorf("%s: %d rows secured, %d unsecured", name, len(got[name]), len(rows))
			continue
		}
		for k, v := range rows {
			if g, ok := got[name][k]; !ok || g != v {
				t.Errorf("%s: row %x differs secured (%v)", name, k, ok)
				break
			}
		}
	}

	t.Run("kcat reads the topic", func(t *testing.T) {
		kcat := cmdtest.Kcat(t)
		conf := filepath.Join(t.TempDir(), "kcat.conf")
		props := "security.protocol=SASL_SSL\nsasl.mechanisms=SCRAM-SHA-512\nsasl.username=indexer\nsasl.password=" + kafkaSecret + "\nssl.ca.location=" + s.ca + "\n"
		if err := os.WriteFile(conf, []byte(props), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, kcat, "-F", conf, "-b", s.broker.Addr(), "-t", "tweets", "-C", "-e", "-q", "-f", "%p %o\n").Output()
		if err != nil {
			t.Fatalf("kcat: %v", err)
		}
		if n, want := strings.Count(string(out), "\n"), len(sampleValues(t)); n != want {
			t.Errorf("kcat read %d messages, want %d", n, want)
		}
	})

	t.Run("the Python driver reads the tables", func(t *testing.T) {
		py := cmdtest.PythonCassandra(t)
		host, port, _ := strings.Cut(s.cql.Addr(), ":")
		out, err := exec.Command(py, "-c", pyCount, host, port, s.ca, s.clientCert, s.clientKey, "indexer", s.cqlPassword).CombinedOutput()
		if err != nil {
			t.Fatalf("python driver: %v\n%s", err, out)
		}
		var tweets int64
		for k, v := range got["frequency"] {
			row, err := schemas.DecodeFrequency([]byte(k), []byte(v))
			if err != nil {
				t.Fatal(err)
			}
			tweets += row.Count
		}
		if want := fmt.Sprintf("raw_tweets %d\ntweet_frequency %d %d\n", len(got["raw"]), len(got["frequency"]), tweets); string(out) != want {
			t.Errorf("python driver printed %q, want %q (what the server holds)", out, want)
		}
	})
}

// pyCount connects with the DataStax Python driver (PlainTextAuthProvider,
// the password read from a file; an SSL context trusting the CA, checking
// the host name, with a client certificate) and prints the rows of
// raw_tweets, and the rows and tweets of tweet_frequency.
const pyCount = `
import ssl, sys
from cassandra.cluster import Cluster
from cassandra.auth import PlainTextAuthProvider
host, port, ca, cert, key, user, pwfile = sys.argv[1:8]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations(ca)
ctx.load_cert_chain(cert, key)
password = open(pwfile).read().rstrip("\n")
cluster = Cluster([host], port=int(port), ssl_context=ctx, ssl_options={"server_hostname": host},
                  auth_provider=PlainTextAuthProvider(username=user, password=password))
session = cluster.connect()
print("raw_tweets", sum(1 for _ in session.execute("SELECT * FROM tweetindex.raw_tweets")))
rows = list(session.execute("SELECT * FROM tweetindex.tweet_frequency"))
print("tweet_frequency", len(rows), sum(r.tweets for r in rows))
cluster.shutdown()
`

// TestSecuredRunFailsBeforeStart: a wrong password, an unknown CA, an
// expired or mismatched certificate each fail the run before it starts:
// exit 1, one line naming the flag to fix, no secret in it, nothing
// written to the keyspace (whose tables are there to write to).
func TestSecuredRunFailsBeforeStart(t *testing.T) {
	s := newSecuredClusters(t)
	if code, out, errOut := runCLI(t, append([]string{"schema", "apply"}, s.cqlArgs()...)...); code != 0 {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
	ca, err := securetest.NewCA("clients CA")
	if err != nil {
		t.Fatal(err)
	}
	expired, err := ca.Issue("indexer", securetest.Options{Client: true, NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	oldCert, oldKey := filepath.Join(s.dir, "old.pem"), filepath.Join(s.dir, "old-key.pem")
	if err := expired.Write(oldCert, oldKey); err != nil {
		t.Fatal(err)
	}
	wrongPW := filepath.Join(s.dir, "wrong")
	if err := os.WriteFile(wrongPW, []byte("guess\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WRONG_KAFKA_PASSWORD", "guess")
	writes := s.cql.Stats().Writes

	// set replaces the value of flag in args.
	set := func(args []string, flag, value string) []string {
		out := slices.Clone(args)
		i := slices.Index(out, flag)
		if i < 0 {
			return append(out, flag, value)
		}
		out[i+1] = value
		return out
	}
	tests := []struct {
		name       string
		kafka, cql []string
		want       string
	}{
		{"wrong Kafka password", append(s.kafkaArgs(), "--kafka-sasl-password-env", "WRONG_KAFKA_PASSWORD"), s.cqlArgs(),
			`refused SASL SCRAM-SHA-512 authentication as user "indexer" (the password is from environment variable WRONG_KAFKA_PASSWORD): check SASL.Password (--kafka-sasl-password-file or --kafka-sasl-password-env)`},
		{"unknown CA of the brokers", set(s.kafkaArgs(), "--kafka-ssl-ca-location", s.otherCA), s.cqlArgs(),
			"is not signed by a CA it trusts (issuer CN=clusters CA): check TLS.CAFile (--kafka-ssl-ca-location)"},
		{"brokers' certificate for another name", append(s.kafkaArgs(), "--kafka-ssl-server-name", "kafka.example.com"), s.cqlArgs(),
			"is for 127.0.0.1, not kafka.example.com: check TLS.ServerName (--kafka-ssl-server-name"},
		{"wrong Cassandra password", s.kafkaArgs(), set(s.cqlArgs(), "--cassandra-password-file", wrongPW),
			`the cluster refused the password of user "indexer" (from file ` + wrongPW + `): check Password (--cassandra-password-file or --cassandra-password-env)`},
		{"unknown CA of the nodes", s.kafkaArgs(), set(s.cqlArgs(), "--cassandra-ssl-certfile", s.otherCA),
			"check TLS.CAFile (--cassandra-ssl-certfile)"},
		{"expired client certificate", s.kafkaArgs(), set(set(s.cqlArgs(), "--cassandra-ssl-usercert", oldCert), "--cassandra-ssl-userkey", oldKey),
			"client certificate " + oldCert + " expired at"},
		{"client key of another certificate", s.kafkaArgs(), set(s.cqlArgs(), "--cassandra-ssl-userkey", oldKey),
			"check TLS.KeyFile (--cassandra-ssl-userkey)"},
		{"password file missing", s.kafkaArgs(), set(s.cqlArgs(), "--cassandra-password-file", filepath.Join(s.dir, "nope")),
			"no such file or directory: check Password (--cassandra-password-file or --cassandra-password-env)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"index", "--progress", "0"}, tc.kafka...), tc.cql...)
			code, out, errOut := runCLI(t, args...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "tweetindex index: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and one line containing %q", code, errOut, tc.want)
			}
			noSecretIn(t, "the output", out+errOut)
			if w := s.cql.Stats().Writes; w != writes {
				t.Errorf("%d writes reached the keyspace", w-writes)
			}
		})
	}
}

// TestJobGraphHoldsNoSecret builds the graph of a secured index command,
// from its flags, and serializes it as a job server receives it
// (graphx.Marshal, as the universal runner does): decoded, DoFn by DoFn,
// it holds the user names and where the passwords are (a file's path, a
// variable's name), never a password.
func TestJobGraphHoldsNoSecret(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "cql-password")
	if err := os.WriteFile(pwFile, []byte(cqlSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(kafkaPasswordEnv, kafkaSecret)
	c := newCommand("index", "", "")
	var k kafkaFlags
	k.register(c.fs)
	var sk sinkFlags
	sk.register(c.fs, true)
	_, err := c.parse([]string{"--kafka", "127.0.0.1:9093", "--topic", "tweets", "--group", "g", "--commit",
		"--kafka-security-protocol", "SASL_SSL", "--kafka-sasl-mechanism", "SCRAM-SHA-512", "--kafka-sasl-username", "kafka-graph-user",
		"--kafka-ssl-ca-location", filepath.Join(dir, "ca.pem"),
		"--cassandra", "127.0.0.1:9142", "--cassandra-username", "cql-graph-user", "--cassandra-password-file", pwFile, "--cassandra-ssl"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sk.check(); err != nil {
		t.Fatal(err)
	}
	kcfg, err := k.config(drainName)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipelines.Config{Kafka: kcfg, Cassandra: sk.cassandraConfig()}
	p, sc := beam.NewPipelineWithRoot()
	if err := pipelines.Build(sc, cfg, pipelines.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	edges, _, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env, err := graphx.CreateEnvironment(ctx, jobopts.GetEnvironmentUrn(ctx), jobopts.GetEnvironmentConfig)
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := graphx.Marshal(edges, &graphx.Options{Environment: env})
	if err != nil {
		t.Fatal(err)
	}
	texts := graphTexts(t, pipe)
	has := func(s string) bool {
		return slices.ContainsFunc(texts, func(b []byte) bool { return bytes.Contains(b, []byte(s)) })
	}
	// The decoding reaches the configurations: the references are there.
	for _, s := range []string{"kafka-graph-user", "cql-graph-user", pwFile, kafkaPasswordEnv} {
		if !has(s) {
			t.Errorf("the decoded graph does not hold %q: the test does not see the DoFns' configurations", s)
		}
	}
	for _, s := range []string{kafkaSecret, cqlSecret} {
		if has(s) {
			t.Errorf("the job graph holds the secret %q", s)
		}
	}
}

// graphTexts returns the serialized pipeline and every DoFn and CombineFn
// payload of it, decoded (base64, as graphx encodes them).
func graphTexts(t *testing.T, p *pipepb.Pipeline) [][]byte {
	t.Helper()
	whole, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	texts := [][]byte{whole}
	fns := 0
	for _, tr := range p.GetComponents().GetTransforms() {
		payload := tr.GetSpec().GetPayload()
		var specs []*pipepb.FunctionSpec
		var pardo pipepb.ParDoPayload
		if proto.Unmarshal(payload, &pardo) == nil && pardo.GetDoFn() != nil {
			specs = append(specs, pardo.GetDoFn())
		}
		var combine pipepb.CombinePayload
		if proto.Unmarshal(payload, &combine) == nil && combine.GetCombineFn() != nil {
			specs = append(specs, combine.GetCombineFn())
		}
		for _, fs := range specs {
			if d, err := base64.StdEncoding.DecodeString(string(fs.GetPayload())); err == nil {
				texts = append(texts, d)
				fns++
			}
		}
	}
	if fns == 0 {
		t.Fatal("no DoFn payload decoded")
	}
	return texts
}
