package cassandraio

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/io/secure"
)

// A gocql session is a connection pool to the whole cluster and is safe for
// concurrent use: one per process per cluster configuration is enough, and
// every DoFn instance and bundle of the process shares it. The registry is
// process-wide because the runner, not the pipeline, decides how many DoFn
// instances a worker process runs and when each is set up and torn down:
// a session per instance would open NumConns connections to every node for
// each of them. Each acquireSession counts a reference and returns its own
// release (once-only); the last release closes the session
// (TestSessionsSharedAndReleased). (Beam v2.77's Go harness never calls a DoFn's
// Teardown, so a WriteFn's session lives as long as its worker process.)
var (
	sessionsMu sync.Mutex
	sessions   = map[string]*sharedSession{}
)

type sharedSession struct {
	session *gocql.Session
	refs    int
}

// sessionKey identifies the cluster-level settings of cfg. The rest
// (keyspace, consistency, page size, batching) is set on each statement,
// so configurations differing only in it share a session.
func sessionKey(cfg Config) string {
	return fmt.Sprintf("%s|%d|%v|%v|%d|%s|%+v|%+v", strings.Join(cfg.Hosts, ","), cfg.ProtocolVersion,
		cfg.Timeout, cfg.ConnectTimeout, cfg.NumConns, cfg.Username, cfg.Password, cfg.TLS)
}

// openSession fills in cfg's defaults, validates it and acquires the
// process's session for it: what every Reader, Writer and WriteFn does
// first. It returns the completed cfg, the session and its release.
func openSession(cfg Config) (Config, *gocql.Session, func(), error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return cfg, nil, nil, err
	}
	s, release, err := acquireSession(cfg)
	return cfg, s, release, err
}

// acquireSession returns the process's session for cfg (validated, with
// defaults), creating it if needed, and the function that releases it.
func acquireSession(cfg Config) (*gocql.Session, func(), error) {
	key := sessionKey(cfg)
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	sh := sessions[key]
	if sh != nil && sh.session.Closed() {
		delete(sessions, key)
		sh = nil
	}
	if sh == nil {
		s, err := newSession(cfg)
		if err != nil {
			return nil, nil, err
		}
		sh = &sharedSession{session: s}
		sessions[key] = sh
	}
	sh.refs++
	var once sync.Once
	release := func() {
		once.Do(func() {
			sessionsMu.Lock()
			defer sessionsMu.Unlock()
			sh.refs--
			if sh.refs == 0 {
				if sessions[key] == sh {
					delete(sessions, key)
				}
				sh.session.Close()
			}
		})
	}
	return sh.session, release, nil
}

// newSession connects to the cluster. Statements name their keyspace, so
// the session has none (and works before the keyspace exists).
func newSession(cfg Config) (*gocql.Session, error) {
	cl := gocql.NewCluster(cfg.Hosts...)
	cl.ProtoVersion = cfg.ProtocolVersion
	cl.Timeout = cfg.Timeout
	cl.ConnectTimeout = cfg.ConnectTimeout
	cl.NumConns = cfg.NumConns
	cl.Consistency = cfg.consistency()
	// Send each request to a replica of its partition; the statements are
	// prepared, so the driver knows which bind values form the partition key.
	// A request of the Writer holds partitions that one node owns (their
	// first replica), and the driver routes a batch by its first statement:
	// replicas are tried in ring order, so that node coordinates it.
	cl.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy(), gocql.DoNotShuffleReplicas())
	// Token-aware routing needs only the keyspaces' replication.
	cl.Metadata.CacheMode = gocql.KeyspaceOnly
	// Retries are the Writer's (counted, with backoff), not the driver's.
	cl.RetryPolicy = nil
	// Reconnect a lost connection quickly: a dropped connection is one of
	// the faults the writer rides out.
	cl.ReconnectInterval = time.Second
	cl.ReconnectionPolicy = &gocql.ExponentialReconnectionPolicy{MaxRetries: 8, InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second}
	hosts := strings.Join(cfg.Hosts, ",")
	if cfg.Username != "" {
		// Read here, where the connection is made: on a worker, at setup.
		password, err := cfg.Password.Resolve()
		if err != nil {
			return nil, fmt.Errorf("cassandraio: password of user %q: %w: check %s", cfg.Username, err, settingNames[secure.SettingPassword])
		}
		cl.Authenticator = gocql.PasswordAuthenticator{Username: cfg.Username, Password: password}
	}
	var dialer *tlsDialer
	if cfg.TLS.Enabled() {
		tc, err := cfg.TLS.Config()
		if err != nil {
			return nil, fmt.Errorf("cassandraio: TLS: %w: check %s", err, settingName(err))
		}
		dialer = &tlsDialer{tc: tc, d: net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 15 * time.Second}}
		cl.HostDialer = dialer
	}
	s, err := cl.CreateSession()
	if err != nil {
		return nil, connectError(cfg, hosts, dialer, err)
	}
	return s, nil
}

// connectError is the one line that says why a session could not be
// made, naming the setting to fix when the cause is one: a TLS handshake
// the settings made fail, a password the cluster refused, a cluster that
// wants a password or TLS the settings do not give.
func connectError(cfg Config, hosts string, dialer *tlsDialer, err error) error {
	fail := func(s secure.Setting, format string, args ...any) error {
		return fmt.Errorf("cassandraio: connect to %s: %s: check %s", hosts, fmt.Sprintf(format, args...), settingNames[s])
	}
	if dialer != nil {
		if host, herr := dialer.failure(); herr != nil {
			if s, why, ok := secure.Diagnose(herr, host); ok {
				return fail(s, "%s", why)
			}
			if closedEarly(herr) {
				return fail(secure.SettingTLS, "%s closed the TLS connection at once (%v): does it speak TLS on that port?", host, herr)
			}
		}
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "password are incorrect"), strings.Contains(msg, "bad credentials"):
		return fail(secure.SettingPassword, "the cluster refused the password of user %q (from %s)", cfg.Username, cfg.Password)
	case strings.Contains(msg, "authentication required"):
		return fail(secure.SettingUser, "the cluster requires a user name and password")
	}
	if dialer == nil {
		for _, h := range cfg.Hosts {
			if secure.SpeaksTLS(context.Background(), hostPort(h)) {
				return fail(secure.SettingTLS, "%s speaks TLS on that port", hostPort(h))
			}
		}
	}
	return fmt.Errorf("cassandraio: connect to %s: %w", hosts, err)
}

// hostPort returns a contact point as host:port (the default port 9042).
func hostPort(h string) string {
	if _, _, err := net.SplitHostPort(h); err == nil {
		return h
	}
	return net.JoinHostPort(strings.Trim(h, "[]"), "9042")
}

// closedEarly reports whether err is the peer closing the connection.
func closedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// tlsDialer dials the nodes over TLS as gocql's own dialer does, and
// keeps the last handshake error: gocql reports a failed connect as text,
// which loses what failed.
type tlsDialer struct {
	tc *tls.Config
	d  net.Dialer

	mu      sync.Mutex
	lastErr error
	host    string
}

func (t *tlsDialer) DialHost(ctx context.Context, host *gocql.HostInfo) (*gocql.DialedHost, error) {
	conn, err := t.d.DialContext(ctx, "tcp", host.ConnectAddressAndPort())
	if err != nil {
		return nil, err
	}
	addr := host.HostnameAndPort()
	dh, err := gocql.WrapTLS(ctx, conn, addr, t.tc)
	if err != nil {
		t.record(addr, err)
		return nil, err
	}
	// With TLS 1.3 a node's verdict on the client certificate comes with
	// its first answer: keep that read's error too.
	dh.Conn = &firstReadConn{Conn: dh.Conn, fail: func(err error) { t.record(addr, err) }}
	return dh, nil
}

func (t *tlsDialer) record(host string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastErr, t.host = err, host
}

// firstReadConn passes the error of its first read to fail.
type firstReadConn struct {
	net.Conn
	once sync.Once
	fail func(error)
}

func (c *firstReadConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.once.Do(func() {
		if err != nil {
			c.fail(err)
		}
	})
	return n, err
}

// failure returns the node of the last failed handshake, and its error.
func (t *tlsDialer) failure() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.host, t.lastErr
}

// Check connects to the cluster as the sink and the reader do, in this
// process, and returns what keeps it from connecting in one line, naming
// the setting to fix when the cause is one (a password the cluster
// refuses, a certificate the settings do not trust, ...): for commands to
// call before a run starts. A session already open for cfg's cluster
// settings is reused, not checked again.
func Check(cfg Config) error {
	_, _, release, err := openSession(cfg)
	if err != nil {
		return err
	}
	release()
	return nil
}
