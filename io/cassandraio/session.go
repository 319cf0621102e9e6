package cassandraio

import (
	"fmt"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
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
	return fmt.Sprintf("%s|%d|%v|%v|%d|%s|%s", strings.Join(cfg.Hosts, ","), cfg.ProtocolVersion,
		cfg.Timeout, cfg.ConnectTimeout, cfg.NumConns, cfg.Username, cfg.Password)
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
	cl.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	// Token-aware routing needs only the keyspaces' replication.
	cl.Metadata.CacheMode = gocql.KeyspaceOnly
	// Retries are the Writer's (counted, with backoff), not the driver's.
	cl.RetryPolicy = nil
	// Reconnect a lost connection quickly: a dropped connection is one of
	// the faults the writer rides out.
	cl.ReconnectInterval = time.Second
	cl.ReconnectionPolicy = &gocql.ExponentialReconnectionPolicy{MaxRetries: 8, InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second}
	if cfg.Username != "" {
		cl.Authenticator = gocql.PasswordAuthenticator{Username: cfg.Username, Password: cfg.Password}
	}
	s, err := cl.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("cassandraio: connect to %s: %w", strings.Join(cfg.Hosts, ","), err)
	}
	return s, nil
}
