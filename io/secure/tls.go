package secure

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// TLS configures a TLS connection to a server. Files are read where the
// connection is made (Config), so the struct can travel in a pipeline.
type TLS struct {
	// Enable turns TLS on. It is implied by CAFile, CertFile, KeyFile and
	// ServerName. Default: off.
	Enable bool
	// CAFile is a PEM file of the certificate authorities to trust.
	// Default: the system's.
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// servers that require one (mutual TLS). Both or neither. Default:
	// no client certificate.
	CertFile string
	KeyFile  string
	// ServerName is the name the server's certificate must be for.
	// Default: the host the connection dials.
	ServerName string
	// SkipHostVerification accepts a server certificate signed by a
	// trusted CA whatever names it is for: the chain is still checked.
	// Default: the name is checked.
	SkipHostVerification bool
	// InsecureSkipVerify accepts any server certificate, leaving the
	// connection open to whoever is on the path. Default: off.
	InsecureSkipVerify bool
}

// Enabled reports whether t asks for TLS.
func (t TLS) Enabled() bool {
	return t.Enable || t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != "" || t.SkipHostVerification || t.InsecureSkipVerify
}

// Setting names a setting of a secured connection, for the errors that
// say which one to fix. Each package maps it to its own names (its Config
// field and the command's flag).
type Setting int

// The settings.
const (
	SettingTLS        Setting = iota + 1 // whether the connection uses TLS at all
	SettingCA                            // TLS.CAFile
	SettingCert                          // TLS.CertFile
	SettingKey                           // TLS.KeyFile
	SettingServerName                    // TLS.ServerName (and SkipHostVerification)
	SettingUser                          // the user name
	SettingPassword                      // the password's Secret
)

// Error is a problem with one setting of a secured connection.
type Error struct {
	Setting Setting
	Err     error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func settingErr(s Setting, format string, args ...any) error {
	return &Error{Setting: s, Err: fmt.Errorf(format, args...)}
}

// Validate reports the first problem of t that needs no file to find.
func (t TLS) Validate() error {
	if (t.CertFile == "") != (t.KeyFile == "") {
		if t.CertFile == "" {
			return settingErr(SettingCert, "a client key (%s) needs its certificate too", t.KeyFile)
		}
		return settingErr(SettingKey, "a client certificate (%s) needs its key too", t.CertFile)
	}
	return nil
}

// Config returns the *tls.Config of t, reading its files: at least TLS
// 1.2, the CAs of CAFile (or the system's), the client certificate. A
// client certificate that is not valid now, or whose key is not its own,
// is an error here, before any connection. Errors are *Error.
func (t TLS) Config() (*tls.Config, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, settingErr(SettingCA, "CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, settingErr(SettingCA, "CA file %s holds no PEM certificate", t.CAFile)
		}
		tc.RootCAs = pool
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			s := SettingCert
			if _, statErr := os.Stat(t.KeyFile); statErr != nil || isKeyMismatch(err) {
				s = SettingKey
			}
			return nil, settingErr(s, "client certificate %s and key %s: %w", t.CertFile, t.KeyFile, err)
		}
		if leaf := cert.Leaf; leaf != nil {
			now := time.Now()
			switch {
			case now.After(leaf.NotAfter):
				return nil, settingErr(SettingCert, "client certificate %s expired at %s", t.CertFile, leaf.NotAfter.UTC().Format(time.RFC3339))
			case now.Before(leaf.NotBefore):
				return nil, settingErr(SettingCert, "client certificate %s is not valid before %s", t.CertFile, leaf.NotBefore.UTC().Format(time.RFC3339))
			}
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	switch {
	case t.InsecureSkipVerify:
		tc.InsecureSkipVerify = true
	case t.SkipHostVerification:
		// Go checks the chain and the name together, or neither: check
		// the chain here, and not the name.
		tc.InsecureSkipVerify = true
		roots := tc.RootCAs
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("tls: the server sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, c := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
				return &tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: err}
			}
			return nil
		}
	}
	return tc, nil
}

// isKeyMismatch reports whether err is tls.X509KeyPair's complaint about
// a key that is not the certificate's.
func isKeyMismatch(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "private key does not match public key") || strings.Contains(err.Error(), "private key type does not match"))
}
