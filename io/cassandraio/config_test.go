package cassandraio

import (
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/secure"
)

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig("127.0.0.1:9042", "cass-2", "[::1]:9042")
	if err := ok.Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	if err := (Config{Hosts: []string{"h"}}).Validate(); err != nil {
		t.Errorf("zero config with a host: %v", err)
	}
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no hosts", func(c *Config) { c.Hosts = nil }, "no hosts"},
		{"bad port", func(c *Config) { c.Hosts = []string{"h:99999"} }, "port"},
		{"empty host", func(c *Config) { c.Hosts = []string{""} }, "empty host"},
		{"bad keyspace", func(c *Config) { c.Keyspace = "Tweet-Index" }, "keyspace"},
		{"bad consistency", func(c *Config) { c.Consistency = "QUORUMM" }, "consistency"},
		{"serial consistency", func(c *Config) { c.Consistency = "SERIAL" }, "lightweight"},
		{"negative ttl", func(c *Config) { c.TTL = -time.Second }, "ttl"},
		{"sub-second ttl", func(c *Config) { c.TTL = time.Millisecond }, "whole seconds"},
		{"ttl over 20 years", func(c *Config) { c.TTL = 21 * 365 * 24 * time.Hour }, "ttl"},
		{"protocol 2", func(c *Config) { c.ProtocolVersion = 2 }, "protocol"},
		{"negative retries", func(c *Config) { c.MaxRetries = -1 }, "retries"},
		{"huge batch", func(c *Config) { c.MaxBatchRows = 70000 }, "65535"},
		{"backoff order", func(c *Config) { c.MinBackoff, c.MaxBackoff = time.Second, time.Millisecond }, "backoff"},
		{"user without password", func(c *Config) { c.Username = "u" }, `user "u" needs a password: set Password (--cassandra-password-file or --cassandra-password-env)`},
		{"password without user", func(c *Config) { c.Password = secure.Secret{Env: "PW"} }, "a password (from environment variable PW) needs a user: set Username (--cassandra-username)"},
		{"password file and variable", func(c *Config) { c.Username, c.Password = "u", secure.Secret{File: "f", Env: "PW"} }, "not both"},
		{"client key without certificate", func(c *Config) { c.TLS.KeyFile = "k.pem" }, "check TLS.CertFile (--cassandra-ssl-usercert)"},
	}
	for _, tt := range tests {
		c := ok
		tt.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want an error about %q", tt.name, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "cassandraio: config: ") {
			t.Errorf("%s: error is not one line: %q", tt.name, err)
		}
	}
}

func TestConfigDefaultsKeepZeroRetries(t *testing.T) {
	c := Config{Hosts: []string{"h"}}.WithDefaults()
	if c.MaxRetries != 0 || c.Keyspace != "tweetindex" || c.Consistency != "LOCAL_QUORUM" || c.MaxInFlight != 64 {
		t.Errorf("WithDefaults = %+v", c)
	}
	if got := ParseHosts(" a, b:9043,,"); len(got) != 2 || got[0] != "a" || got[1] != "b:9043" {
		t.Errorf("ParseHosts = %q", got)
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	for attempt := 0; attempt < 20; attempt++ {
		d := backoff(attempt, 100*time.Millisecond, 2*time.Second)
		ceil := 100 * time.Millisecond << min(attempt, 5)
		if ceil > 2*time.Second {
			ceil = 2 * time.Second
		}
		if d < ceil/2 || d > ceil {
			t.Errorf("backoff(%d) = %v, want in [%v, %v]", attempt, d, ceil/2, ceil)
		}
	}
}
