package secure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Diagnose says which setting a failed connection points at, and why in
// a few words, when err is a failed TLS handshake, or an *Error; ok is
// false for any other error (a network error, say: nothing to fix in the
// settings). host is the server the connection was made to, for the
// words.
func Diagnose(err error, host string) (setting Setting, why string, ok bool) {
	var se *Error
	if errors.As(err, &se) {
		return se.Setting, se.Err.Error(), true
	}
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		alert    tls.AlertError // the alert a QUIC handshake fails with
		remote   *net.OpError   // the alert a TCP handshake fails with: "remote error: tls: ..."
		recordHd tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown):
		return SettingCA, fmt.Sprintf("the certificate of %s is not signed by a CA it trusts (%s)", host, issuerOf(unknown.Cert)), true
	case errors.As(err, &hostname):
		return SettingServerName, fmt.Sprintf("the certificate of %s is for %s, not %s", host, namesOf(hostname.Certificate), hostname.Host), true
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return SettingCA, fmt.Sprintf("the certificate of %s is not valid now (%s): the server's certificate must be renewed", host, validity(invalid.Cert)), true
	case errors.As(err, &invalid):
		return SettingCA, fmt.Sprintf("the certificate of %s is refused: %v", host, invalid), true
	case errors.As(err, &remote) && remote.Op == "remote error", errors.As(err, &alert):
		// The server refused the handshake with an alert: with mutual
		// TLS, one about the client certificate (missing, expired, or not
		// signed by a CA it trusts).
		what := strings.TrimPrefix(err.Error(), "remote error: ")
		if remote != nil && remote.Op == "remote error" {
			what = remote.Err.Error()
		}
		for _, a := range certificateAlerts {
			if strings.HasSuffix(what, a) {
				return SettingCert, fmt.Sprintf("%s refused the client certificate (%s)", host, what), true
			}
		}
		return SettingTLS, fmt.Sprintf("%s ended the TLS handshake (%s)", host, what), true
	case errors.As(err, &recordHd), strings.Contains(err.Error(), "first record does not look like a TLS handshake"):
		return SettingTLS, fmt.Sprintf("%s does not speak TLS on that port", host), true
	}
	return 0, "", false
}

// certificateAlerts are the TLS alerts (as crypto/tls words them) a
// server sends about a client certificate.
var certificateAlerts = []string{"bad certificate", "unsupported certificate", "revoked certificate", "expired certificate",
	"unknown certificate", "unknown certificate authority", "certificate required"}

func issuerOf(c *x509.Certificate) string {
	if c == nil {
		return "unknown issuer"
	}
	return "issuer " + c.Issuer.String()
}

func namesOf(c *x509.Certificate) string {
	if c == nil {
		return "other names"
	}
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = append(names, c.Subject.CommonName+" (common name only)")
	}
	if len(names) == 0 {
		return "no name"
	}
	return strings.Join(names, ", ")
}

func validity(c *x509.Certificate) string {
	if c == nil {
		return "outside its validity"
	}
	if time.Now().After(c.NotAfter) {
		return "expired at " + c.NotAfter.UTC().Format(time.RFC3339)
	}
	return "valid from " + c.NotBefore.UTC().Format(time.RFC3339)
}

// SpeaksTLS reports whether the server at addr (host:port) completes a
// TLS handshake, its certificate unchecked: for saying, when a plaintext
// client gets nowhere, that the server wants TLS.
func SpeaksTLS(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d := &tls.Dialer{NetDialer: &net.Dialer{}, Config: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}} // a probe: nothing is sent
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
