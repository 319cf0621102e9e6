// Package securetest makes certificate authorities and certificates for
// tests and for the development servers (devbroker, devcql): keys are
// made fresh each time (ECDSA P-256) and written only where asked,
// never kept in the repository.
package securetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// PEM is the CA's certificate in PEM, what clients trust.
	PEM []byte
}

// NewCA makes a self-signed CA named cn, valid from an hour ago for a day.
func NewCA(cn string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Options describe a certificate to issue.
type Options struct {
	// Hosts are the names (DNS names or IP addresses) a server
	// certificate is for. Default: none.
	Hosts []string
	// Client makes a client certificate (client authentication); the
	// default is a server certificate.
	Client bool
	// NotBefore and NotAfter bound its validity. Default: from an hour
	// ago to a day from now.
	NotBefore, NotAfter time.Time
}

// Pair is an issued certificate and its key.
type Pair struct {
	Cert    tls.Certificate
	CertPEM []byte
	KeyPEM  []byte
}

// Issue issues a certificate named cn.
func (ca *CA) Issue(cn string, o Options) (*Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if o.NotBefore.IsZero() {
		o.NotBefore = time.Now().Add(-time.Hour)
	}
	if o.NotAfter.IsZero() {
		o.NotAfter = time.Now().Add(24 * time.Hour)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    o.NotBefore,
		NotAfter:     o.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if o.Client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	for _, h := range o.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	p := &Pair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
	}
	p.Cert, err = tls.X509KeyPair(p.CertPEM, p.KeyPEM)
	return p, err
}

// Pool returns a pool holding the CA, for a server that checks client
// certificates (tls.Config.ClientCAs) or a client that trusts it.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// WriteCA writes the CA's certificate to path (0644).
func (ca *CA) WriteCA(path string) error { return os.WriteFile(path, ca.PEM, 0o644) }

// NewCAFile makes a CA named cn (NewCA) and writes its certificate to
// path (WriteCA): what a test of a client that trusts, or must not trust,
// a CA's file needs.
func NewCAFile(cn, path string) (*CA, error) {
	ca, err := NewCA(cn)
	if err != nil {
		return nil, err
	}
	return ca, ca.WriteCA(path)
}

// Write writes the certificate to certPath (0644) and its key to keyPath
// (0600).
func (p *Pair) Write(certPath, keyPath string) error {
	if err := os.WriteFile(certPath, p.CertPEM, 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyPath, p.KeyPEM, 0o600)
}

// Files are the files Generate writes into a directory.
type Files struct {
	CA                    string // ca.pem: the CA's certificate, for clients to trust
	ServerCert, ServerKey string // server.pem, server-key.pem
	ClientCert, ClientKey string // client.pem, client-key.pem: for mutual TLS
}

// FilesIn names the files of Generate in dir.
func FilesIn(dir string) Files {
	return Files{
		CA:         filepath.Join(dir, "ca.pem"),
		ServerCert: filepath.Join(dir, "server.pem"),
		ServerKey:  filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"),
		ClientKey:  filepath.Join(dir, "client-key.pem"),
	}
}

// Generate makes a CA, a server certificate for hosts (and localhost,
// 127.0.0.1 and ::1) and a client certificate, valid for a day, and
// writes them into dir (made if need be) as FilesIn(dir) names them.
func Generate(dir, name string, hosts ...string) (Files, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, err
	}
	f := FilesIn(dir)
	ca, err := NewCA(name + " test CA")
	if err != nil {
		return f, err
	}
	srv, err := ca.Issue(name, Options{Hosts: append([]string{"localhost", "127.0.0.1", "::1"}, hosts...)})
	if err != nil {
		return f, err
	}
	cli, err := ca.Issue(name+" client", Options{Client: true})
	if err != nil {
		return f, err
	}
	if err := ca.WriteCA(f.CA); err != nil {
		return f, err
	}
	if err := srv.Write(f.ServerCert, f.ServerKey); err != nil {
		return f, err
	}
	if err := cli.Write(f.ClientCert, f.ClientKey); err != nil {
		return f, err
	}
	return f, nil
}

// ServerConfig returns the TLS configuration of a server with the
// certificate of certFile and keyFile; with clientCAFile, it requires a
// client certificate signed by one of its CAs.
func ServerConfig(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("server certificate: %w", err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCAFile != "" {
		b, err := os.ReadFile(clientCAFile)
		if err != nil {
			return nil, fmt.Errorf("client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("client CA %s holds no PEM certificate", clientCAFile)
		}
		tc.ClientCAs, tc.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return tc, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

// Ensure returns the files of Generate in dir, making them first unless
// dir already holds a CA (so that servers started one after the other,
// devbroker and devcql, can share one CA); made says whether it did.
func Ensure(dir, name string, hosts ...string) (f Files, made bool, err error) {
	f = FilesIn(dir)
	if _, err := os.Stat(f.CA); err == nil {
		if _, err := os.Stat(f.ServerCert); err == nil {
			return f, false, nil
		}
	}
	f, err = Generate(dir, name, hosts...)
	return f, err == nil, err
}
