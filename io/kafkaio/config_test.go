package kafkaio

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/io/secure"
)

func TestValidate(t *testing.T) {
	ok := Config{Brokers: []string{"127.0.0.1:9092"}, Topic: "tweets"}
	with := func(f func(*Config)) Config { c := ok; f(&c); return c }
	tests := []struct {
		name string
		cfg  Config
		want []string // the first problem, one line; none: valid
	}{
		{"minimal", ok, nil},
		{"every position", with(func(c *Config) { c.Start, c.Stop = "2026-11-01T00:00:00Z", "2026-11-02T00:00:00.5Z" }), nil},
		{"group resume with commit", with(func(c *Config) { c.Group, c.Start, c.Commit = "g", "group", true }), nil},
		{"offsets", with(func(c *Config) { c.Start, c.Stop = "offset:10", "offset:20" }), nil},
		{"sasl and tls", with(func(c *Config) {
			c.SASL = SASLConfig{Mechanism: "scram-sha-512", User: "u", Password: secure.Secret{File: "/run/secrets/kafka"}}
			c.TLS = secure.TLS{CAFile: "ca.pem"}
		}), nil},
		{"nothing", Config{}, []string{"no brokers"}},
		{"bad broker", with(func(c *Config) { c.Brokers = []string{"localhost"} }), []string{`broker "localhost" is not host:port`}},
		{"bad start", with(func(c *Config) { c.Start = "yesterday" }), []string{`start "yesterday" is not earliest, latest, group`}},
		{"bad stop", with(func(c *Config) { c.Stop = "group" }), []string{`stop "group" is not latest, offset:N`}},
		{"negative offset", with(func(c *Config) { c.Start = "offset:-1" }), []string{"offset must be a non-negative integer"}},
		{"group start without group", with(func(c *Config) { c.Start = "group" }), []string{`start "group" needs a consumer group`}},
		{"commit without group", with(func(c *Config) { c.Commit = true }), []string{"committing offsets needs a consumer group"}},
		{"stop before start", with(func(c *Config) { c.Start, c.Stop = "2026-11-02T00:00:00Z", "2026-11-01T00:00:00Z" }), []string{"is not after start time"}},
		{"stop offset below start", with(func(c *Config) { c.Start, c.Stop = "offset:9", "offset:3" }), []string{"stop offset 3 is below start offset 9"}},
		{"negative tuning", with(func(c *Config) { c.PollTimeout, c.AllowedSkew = -time.Second, -time.Second }), []string{"AllowedSkew -1s is negative"}},
		{"half a client certificate", with(func(c *Config) { c.TLS.CertFile = "c.pem" }), []string{"needs its key too: check TLS.KeyFile (--kafka-ssl-key-location)"}},
		{"unknown sasl", with(func(c *Config) { c.SASL = SASLConfig{Mechanism: "gssapi", User: "u"} }), []string{`SASL mechanism "gssapi"`}},
		{"sasl without user or password", with(func(c *Config) { c.SASL = SASLConfig{Mechanism: "plain"} }), []string{"SASL plain needs a user"}},
		{"sasl without password", with(func(c *Config) { c.SASL = SASLConfig{Mechanism: "plain", User: "u"} }), []string{"SASL plain needs a password: set SASL.Password (--kafka-sasl-password-file or --kafka-sasl-password-env)"}},
		{"password file and env", with(func(c *Config) {
			c.SASL = SASLConfig{Mechanism: "plain", User: "u", Password: secure.Secret{File: "f", Env: "E"}}
		}), []string{"not both"}},
		{"password without mechanism", with(func(c *Config) { c.SASL = SASLConfig{User: "u", Password: secure.Secret{Env: "P"}} }), []string{"without a mechanism"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tc.want)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("Validate() reported %d problems, want %d:\n%v", len(got), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], "kafkaio: ") || !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want a kafkaio: line containing %q", i, got[i], w)
				}
			}
		})
	}
}

func TestTryReadRejectsInvalidConfig(t *testing.T) {
	_, s := beam.NewPipelineWithRoot()
	if _, err := TryRead(s, Config{Topic: "tweets"}); err == nil || !strings.Contains(err.Error(), "no brokers") {
		t.Errorf("TryRead error = %v, want the missing brokers", err)
	}
}
