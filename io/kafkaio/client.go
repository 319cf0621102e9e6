package kafkaio

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// requestTimeout bounds every broker call that has no tighter deadline.
const requestTimeout = 30 * time.Second

// newClient returns a kafka-go client for cfg's brokers, with its TLS and
// SASL settings. Close its transport with closeClient.
func newClient(cfg Config) (*kafka.Client, error) {
	t := &kafka.Transport{
		Dial:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		DialTimeout:    5 * time.Second,
		IdleTimeout:    time.Minute,
		MetadataTTL:    10 * time.Second,
		MetadataTopics: []string{cfg.Topic},
		ClientID:       cfg.withDefaults().ClientID,
	}
	if cfg.TLS.enabled() {
		tc, err := tlsConfig(cfg.TLS)
		if err != nil {
			return nil, err
		}
		t.TLS = tc
	}
	if cfg.SASL.Mechanism != "" {
		m, err := saslMechanism(cfg.SASL)
		if err != nil {
			return nil, err
		}
		t.SASL = m
	}
	return &kafka.Client{Addr: kafka.TCP(cfg.Brokers...), Timeout: requestTimeout, Transport: t}, nil
}

// closeClient closes the idle connections of c's transport.
func closeClient(c *kafka.Client) {
	if c == nil {
		return
	}
	if t, ok := c.Transport.(*kafka.Transport); ok {
		t.CloseIdleConnections()
	}
}

func tlsConfig(c TLSConfig) (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         c.ServerName,
		InsecureSkipVerify: c.InsecureSkipVerify, //nolint:gosec // opt-in, for tests
	}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("kafkaio: TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("kafkaio: TLS CA file %s holds no PEM certificate", c.CAFile)
		}
		tc.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("kafkaio: TLS client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

func saslMechanism(c SASLConfig) (sasl.Mechanism, error) {
	password := c.Password
	if c.PasswordFile != "" {
		b, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("kafkaio: SASL password file: %w", err)
		}
		password = strings.TrimSpace(string(b))
	}
	switch strings.ToLower(c.Mechanism) {
	case "plain":
		return plain.Mechanism{Username: c.User, Password: password}, nil
	case "scram-sha-256":
		m, err := scram.Mechanism(scram.SHA256, c.User, password)
		if err != nil {
			return nil, fmt.Errorf("kafkaio: SASL: %w", err)
		}
		return m, nil
	case "scram-sha-512":
		m, err := scram.Mechanism(scram.SHA512, c.User, password)
		if err != nil {
			return nil, fmt.Errorf("kafkaio: SASL: %w", err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("kafkaio: SASL mechanism %q is not plain, scram-sha-256 or scram-sha-512", c.Mechanism)
}
