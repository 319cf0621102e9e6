package cassandraio

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/io/secure"
	"github.com/tweetindex/tweetindex/schemas"
)

// Config configures the connection to a cluster and the writes. It is a
// plain struct of exported fields because Write serializes it into its DoFn.
// Zero fields take the defaults of DefaultConfig, except MaxRetries, which
// is taken as given (0 disables retries).
type Config struct {
	// Hosts are contact points: "host" or "host:port" (default port 9042).
	Hosts []string
	// Keyspace holds the tables (default "tweetindex").
	Keyspace string
	// Consistency is the consistency level of writes and reads: ONE, TWO,
	// THREE, QUORUM, ALL, LOCAL_QUORUM (default), EACH_QUORUM, LOCAL_ONE, or
	// ANY (writes only).
	Consistency string
	// TTL, when positive, expires every written row after it (whole
	// seconds, at most 20 years). 0: rows never expire.
	TTL time.Duration
	// Timeout is the client-side timeout of one request (default 12s, above
	// Cassandra's own 2s write and 5s read timeouts).
	Timeout time.Duration
	// ConnectTimeout bounds dialing and the connection handshake (default 10s).
	ConnectTimeout time.Duration
	// ProtocolVersion is the native protocol version (default 4, which
	// Cassandra 3.x to 5.x and ScyllaDB all speak).
	ProtocolVersion int
	// NumConns is the number of connections per host (default 2).
	NumConns int
	// MaxBatchRows and MaxBatchBytes bound the rows of one partition in a
	// write request: they are sent together as an UNLOGGED batch of at
	// most this many rows and bytes of cell keys and values plus 32 bytes
	// a row (a row larger than MaxBatchBytes goes alone; defaults 64 rows,
	// 64 KiB). Single-partition batches are exempt from Cassandra's
	// batch_size_fail_threshold (CASSANDRA-10876).
	MaxBatchRows  int
	MaxBatchBytes int
	// MaxMultiPartitionBytes bounds a request that holds rows of several
	// partitions, all owned by one node (the first replica of their
	// tokens), which the token-aware policy sends to that node (default
	// 40 KiB, under Cassandra's batch_size_fail_threshold, 50 KiB by
	// default; Cassandra logs a warning, at most once a minute, for such
	// batches over batch_size_warn_threshold, 5 KiB, or of more than
	// unlogged_batch_across_partitions_warn_threshold partitions, 10).
	MaxMultiPartitionBytes int
	// SinglePartitionRequests, when true, sends every request with the
	// rows of one partition only, as writers before token-aware batching
	// did (four to ten times the requests).
	SinglePartitionRequests bool
	// MaxBufferedBytes is how many bytes of rows may wait to fill a batch;
	// past it every pending partition is sent (default 16 MiB).
	MaxBufferedBytes int
	// MaxInFlight bounds the write requests in flight per Writer (default
	// 64). A Writer blocks in Write when they are all busy.
	MaxInFlight int
	// MaxRetries is how many times a failed write request is retried after
	// a write timeout, unavailable, overloaded or bootstrapping error, a
	// client timeout or a connection error. Taken as given: 0 disables
	// retries. DefaultConfig sets 10.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff between
	// retries: MinBackoff * 2^attempt, capped, with jitter (defaults 100ms, 10s).
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// PageSize is the page size of Scan (default 5000 rows).
	PageSize int
	// Username, when set, authenticates with Cassandra's
	// PasswordAuthenticator (cqlsh -u). Default: none.
	Username string
	// Password refers to the user's password (a file or an environment
	// variable), which each process reads when it connects: the
	// configuration travels inside the pipeline graph, the password does
	// not. Required with Username.
	Password secure.Secret
	// TLS configures client-to-node encryption (cqlsh --ssl). Default:
	// plaintext.
	TLS secure.TLS
}

// settingNames are the names of the security settings in errors: the
// Config field, and the tweetindex flag that sets it.
var settingNames = map[secure.Setting]string{
	secure.SettingTLS:        "TLS (--cassandra-ssl)",
	secure.SettingCA:         "TLS.CAFile (--cassandra-ssl-certfile)",
	secure.SettingCert:       "TLS.CertFile (--cassandra-ssl-usercert)",
	secure.SettingKey:        "TLS.KeyFile (--cassandra-ssl-userkey)",
	secure.SettingServerName: "TLS.ServerName (--cassandra-ssl-server-name, or --cassandra-ssl-check-hostname=false)",
	secure.SettingUser:       "Username (--cassandra-username)",
	secure.SettingPassword:   "Password (--cassandra-password-file or --cassandra-password-env)",
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

// DefaultConfig returns the defaults, with the given contact points.
func DefaultConfig(hosts ...string) Config {
	return Config{
		Hosts:                  hosts,
		Keyspace:               "tweetindex",
		Consistency:            "LOCAL_QUORUM",
		Timeout:                12 * time.Second,
		ConnectTimeout:         10 * time.Second,
		ProtocolVersion:        4,
		NumConns:               2,
		MaxBatchRows:           64,
		MaxBatchBytes:          64 << 10,
		MaxMultiPartitionBytes: 40 << 10,
		MaxBufferedBytes:       16 << 20,
		MaxInFlight:            64,
		MaxRetries:             10,
		MinBackoff:             100 * time.Millisecond,
		MaxBackoff:             10 * time.Second,
		PageSize:               5000,
	}
}

// ParseHosts splits a comma-separated host list ("h1,h2:9043").
func ParseHosts(s string) []string {
	var hosts []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// WithDefaults returns c with every zero field but MaxRetries set to its
// default.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	if c.Keyspace == "" {
		c.Keyspace = d.Keyspace
	}
	if c.Consistency == "" {
		c.Consistency = d.Consistency
	}
	def := func(v *time.Duration, dv time.Duration) {
		if *v == 0 {
			*v = dv
		}
	}
	defInt := func(v *int, dv int) {
		if *v == 0 {
			*v = dv
		}
	}
	def(&c.Timeout, d.Timeout)
	def(&c.ConnectTimeout, d.ConnectTimeout)
	def(&c.MinBackoff, d.MinBackoff)
	def(&c.MaxBackoff, d.MaxBackoff)
	defInt(&c.ProtocolVersion, d.ProtocolVersion)
	defInt(&c.NumConns, d.NumConns)
	defInt(&c.MaxBatchRows, d.MaxBatchRows)
	defInt(&c.MaxBatchBytes, d.MaxBatchBytes)
	defInt(&c.MaxMultiPartitionBytes, d.MaxMultiPartitionBytes)
	defInt(&c.MaxBufferedBytes, d.MaxBufferedBytes)
	defInt(&c.MaxInFlight, d.MaxInFlight)
	defInt(&c.PageSize, d.PageSize)
	return c
}

// maxTTL is Cassandra's limit on a TTL: 20 years.
const maxTTL = 630720000 * time.Second

// Validate reports the first problem of the configuration (after
// defaults) in one line, or nil.
func (c Config) Validate() error {
	c = c.WithDefaults()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("cassandraio: config: "+format, args...)
	}
	if len(c.Hosts) == 0 {
		return bad("no hosts: give at least one contact point, e.g. --cassandra 127.0.0.1:9042")
	}
	for _, h := range c.Hosts {
		if err := checkHost(h); err != nil {
			return bad("host %q: %v", h, err)
		}
	}
	if err := schemas.ValidKeyspace(c.Keyspace); err != nil {
		return bad("%v", err)
	}
	cl, err := gocql.ParseConsistencyWrapper(c.Consistency)
	if err != nil || strings.ToUpper(strings.TrimSpace(c.Consistency)) != cl.String() {
		return bad("consistency %q: want one of ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE", c.Consistency)
	}
	if cl == gocql.Serial || cl == gocql.LocalSerial {
		return bad("consistency %s is for lightweight transactions; the sink writes plain upserts", cl)
	}
	switch {
	case c.TTL < 0 || c.TTL > maxTTL:
		return bad("ttl %v: want 0 (no expiry) to %v", c.TTL, maxTTL)
	case c.TTL > 0 && c.TTL < time.Second:
		return bad("ttl %v: Cassandra TTLs are whole seconds; want 0 or at least 1s", c.TTL)
	case c.Timeout < 0 || c.ConnectTimeout < 0:
		return bad("timeouts must be positive")
	case c.ProtocolVersion < 3 || c.ProtocolVersion > 5:
		return bad("protocol version %d: want 3, 4 or 5", c.ProtocolVersion)
	case c.NumConns < 0 || c.MaxBatchRows < 0 || c.MaxBatchBytes < 0 || c.MaxMultiPartitionBytes < 0 || c.MaxBufferedBytes < 0 || c.MaxInFlight < 0 || c.PageSize < 0:
		return bad("connections, batch, buffer, in-flight and page sizes must be positive")
	case c.MaxBatchRows > 65535:
		return bad("max batch rows %d: a batch holds at most 65535 statements", c.MaxBatchRows)
	case c.MaxRetries < 0:
		return bad("max retries %d: want 0 (no retries) or more", c.MaxRetries)
	case c.MinBackoff < 0 || c.MaxBackoff < c.MinBackoff:
		return bad("backoff: want 0 < min backoff (%v) <= max backoff (%v)", c.MinBackoff, c.MaxBackoff)
	case c.Username != "" && c.Password.IsZero():
		return bad("user %q needs a password: set %s", c.Username, settingNames[secure.SettingPassword])
	case c.Username == "" && !c.Password.IsZero():
		return bad("a password (from %s) needs a user: set %s", c.Password, settingNames[secure.SettingUser])
	}
	if err := c.Password.Validate(); err != nil {
		return bad("password: %v: check %s", err, settingNames[secure.SettingPassword])
	}
	if err := c.TLS.Validate(); err != nil {
		return bad("TLS: %v: check %s", err, settingName(err))
	}
	return nil
}

func checkHost(h string) error {
	if h == "" {
		return fmt.Errorf("empty host")
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		if strings.Contains(h, ":") && net.ParseIP(h) == nil {
			return err
		}
		return nil // a bare host or IPv6 address
	}
	if host == "" {
		return fmt.Errorf("empty host name")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return nil
}

// consistency returns the parsed consistency level of a validated config.
func (c Config) consistency() gocql.Consistency {
	cl, _ := gocql.ParseConsistencyWrapper(c.Consistency)
	return cl
}

// ttlSeconds returns the TTL bind value.
func (c Config) ttlSeconds() int32 { return int32(c.TTL / time.Second) }
