package kafkaio

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"

	"github.com/tweetindex/tweetindex/io/secure"
)

// requestTimeout bounds every broker call that has no tighter deadline.
const requestTimeout = 30 * time.Second

// newClient returns a kafka-go client for cfg's brokers, with its TLS and
// SASL settings (their files and the password read now, in this process).
// Close its transport with closeClient.
func newClient(cfg Config) (*kafka.Client, error) {
	t := &kafka.Transport{
		Dial:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		DialTimeout:    5 * time.Second,
		IdleTimeout:    time.Minute,
		MetadataTTL:    10 * time.Second,
		MetadataTopics: []string{cfg.Topic},
		ClientID:       cfg.withDefaults().ClientID,
	}
	var err error
	if t.TLS, err = tlsConfig(cfg.TLS); err != nil {
		return nil, err
	}
	if t.SASL, err = saslMechanism(cfg.SASL); err != nil {
		return nil, err
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

// settingName names the setting a *secure.Error is about, or "the
// security settings".
func settingName(err error) string {
	var se *secure.Error
	if errors.As(err, &se) {
		return settingNames[se.Setting]
	}
	return "the security settings"
}

// tlsConfig returns the TLS configuration of c, or nil when TLS is off.
// Its errors are permanent (retrying does not help) and name the setting.
func tlsConfig(c secure.TLS) (*tls.Config, error) {
	if !c.Enabled() {
		return nil, nil
	}
	tc, err := c.Config()
	if err != nil {
		return nil, permanentError{fmt.Errorf("kafkaio: TLS: %w: check %s", err, settingName(err))}
	}
	return tc, nil
}

// saslMechanism returns the SASL mechanism of c with its password, read
// now, or nil when SASL is off.
func saslMechanism(c SASLConfig) (sasl.Mechanism, error) {
	if c.Mechanism == "" {
		return nil, nil
	}
	password, err := c.Password.Resolve()
	if err != nil {
		return nil, permanentError{fmt.Errorf("kafkaio: SASL password: %w: check %s", err, settingNames[secure.SettingPassword])}
	}
	switch strings.ToLower(c.Mechanism) {
	case "plain":
		return plain.Mechanism{Username: c.User, Password: password}, nil
	case "scram-sha-256":
		m, err := scram.Mechanism(scram.SHA256, c.User, password)
		if err != nil {
			return nil, permanentError{fmt.Errorf("kafkaio: SASL: %w", err)}
		}
		return m, nil
	case "scram-sha-512":
		m, err := scram.Mechanism(scram.SHA512, c.User, password)
		if err != nil {
			return nil, permanentError{fmt.Errorf("kafkaio: SASL: %w", err)}
		}
		return m, nil
	}
	return nil, permanentError{fmt.Errorf("kafkaio: SASL mechanism %q is not plain, scram-sha-256 or scram-sha-512 (--kafka-sasl-mechanism)", c.Mechanism)}
}
