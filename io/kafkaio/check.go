package kafkaio

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/secure"
)

// checkTimeout bounds each step of Check with one broker, and
// handshakeTimeout its TLS handshake (a plaintext broker may read a
// ClientHello as the start of a huge request and wait for the rest).
const (
	checkTimeout     = 10 * time.Second
	handshakeTimeout = 3 * time.Second
)

// Check connects to cfg's brokers as the read will, in this process,
// before a pipeline that reads them runs, and reports a problem of the
// security settings in one line that names the setting to fix: a file
// or password that cannot be read, a TLS handshake that fails (a CA that
// does not trust the broker's certificate, an expired certificate, a
// certificate for another name, a client certificate the broker
// refuses), a user or password the broker refuses, a broker that speaks
// TLS to a plaintext client or the other way round, a broker that wants
// SASL from a client that offers none. It returns nil as soon as one
// broker accepts the connection and its authentication and answers a
// metadata request, and also when no broker can be reached at all: the
// read waits for brokers that are down (Config.RetryTimeout), which
// Check leaves to it.
func Check(ctx context.Context, cfg Config) error {
	cfg = cfg.withDefaults()
	tc, err := tlsConfig(cfg.TLS)
	if err != nil {
		return err
	}
	mech, err := saslMechanism(cfg.SASL)
	if err != nil {
		return err
	}
	for _, broker := range cfg.Brokers {
		reached, err := checkBroker(ctx, cfg, broker, tc, mech != nil)
		if err != nil || reached {
			return err
		}
	}
	return nil
}

// checkBroker checks the settings against one broker; reached is false
// when it cannot be reached, or fails in a way that says nothing of the
// settings (no answer, a broker error): the read handles those as it
// does when they come later.
func checkBroker(ctx context.Context, cfg Config, broker string, tc *tls.Config, withSASL bool) (reached bool, err error) {
	host, _, _ := net.SplitHostPort(broker)
	fail := func(s secure.Setting, format string, args ...any) error {
		return fmt.Errorf("kafkaio: broker %s: %s: check %s", broker, fmt.Sprintf(format, args...), settingNames[s])
	}
	ctx, cancel := context.WithTimeout(ctx, 3*checkTimeout)
	defer cancel()
	dial := func() (net.Conn, error) {
		return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", broker)
	}
	raw, err := dial()
	if err != nil {
		return false, nil // down: the read waits for it
	}
	conn := raw
	defer func() { conn.Close() }()
	if tc != nil {
		c := tc.Clone()
		if c.ServerName == "" {
			c.ServerName = host
		}
		tconn := tls.Client(raw, c)
		tconn.SetDeadline(time.Now().Add(handshakeTimeout))
		if err := tconn.HandshakeContext(ctx); err != nil {
			if s, why, ok := secure.Diagnose(err, broker); ok {
				return true, fail(s, "%s", why)
			}
			if speaksPlaintext(ctx, broker) {
				return true, fail(secure.SettingTLS, "the broker answers plaintext Kafka on that port, not TLS: use security protocol PLAINTEXT or SASL_PLAINTEXT")
			}
			if closedEarly(err) {
				return true, fail(secure.SettingTLS, "the broker closed the connection during the TLS handshake (%v): does it speak TLS on that port?", err)
			}
			return false, nil // no answer, say: the read waits for it
		}
		tconn.SetDeadline(time.Time{})
		conn = tconn
	}
	mech, err := saslMechanism(cfg.SASL) // a fresh one: a SCRAM exchange is used once
	if err != nil {
		return true, err
	}
	d := &kafka.Dialer{
		ClientID:      cfg.ClientID,
		Timeout:       checkTimeout,
		SASLMechanism: mech,
		DialFunc:      func(context.Context, string, string) (net.Conn, error) { return conn, nil },
	}
	kc, err := d.DialContext(ctx, "tcp", broker)
	if err != nil {
		// With TLS 1.3 a broker's verdict on the client certificate comes
		// with its first answer.
		if s, why, ok := secure.Diagnose(err, broker); ok {
			return true, fail(s, "%s", why)
		}
		switch {
		case errors.Is(err, kafka.UnsupportedSASLMechanism):
			return true, fmt.Errorf("kafkaio: broker %s does not offer SASL %s: check SASL.Mechanism (--kafka-sasl-mechanism)", broker, strings.ToUpper(cfg.SASL.Mechanism))
		case errors.Is(err, kafka.SASLAuthenticationFailed), closedEarly(err):
			return true, fail(secure.SettingPassword, "the broker refused SASL %s authentication as user %q (the password is from %s)", strings.ToUpper(cfg.SASL.Mechanism), cfg.SASL.User, cfg.SASL.Password)
		}
		if tc == nil && secure.SpeaksTLS(ctx, broker) {
			return true, fail(secure.SettingTLS, "the broker speaks TLS on that port: use security protocol SSL or SASL_SSL")
		}
		return false, nil
	}
	conn = kc
	kc.SetDeadline(time.Now().Add(checkTimeout))
	if _, err := kc.ApiVersions(); err != nil {
		if s, why, ok := secure.Diagnose(err, broker); ok {
			return true, fail(s, "%s", why)
		}
		if tc == nil && secure.SpeaksTLS(ctx, broker) {
			return true, fail(secure.SettingTLS, "the broker speaks TLS on that port: use security protocol SSL or SASL_SSL")
		}
		return false, nil
	}
	if _, err := kc.Brokers(); err != nil {
		if s, why, ok := secure.Diagnose(err, broker); ok {
			return true, fail(s, "%s", why)
		}
		var kerr kafka.Error
		switch {
		case closedEarly(err) && !withSASL:
			return true, fail(secure.SettingTLS, "the broker closed the connection at the first request after the handshake: does it require SASL authentication (security protocol SASL_PLAINTEXT or SASL_SSL)?")
		case errors.As(err, &kerr) && (kerr == kafka.SASLAuthenticationFailed || kerr == kafka.ClusterAuthorizationFailed || kerr == kafka.TopicAuthorizationFailed):
			return true, fail(secure.SettingUser, "%v", err)
		}
		return false, nil
	}
	return true, nil
}

// closedEarly reports whether err is the peer closing the connection.
func closedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// speaksPlaintext reports whether the broker at addr answers an
// ApiVersions request sent without TLS.
func speaksPlaintext(ctx context.Context, addr string) bool {
	raw, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c := kafka.NewConn(raw, "", 0)
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	_, err = c.ApiVersions()
	return err == nil
}
