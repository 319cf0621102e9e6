package kafkaio

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/io/secure"
)

// Defaults applied to the zero values of Config's tuning fields.
const (
	DefaultIdleTimeout        = 10 * time.Second
	DefaultMaxBatchRecords    = 1000
	DefaultMaxFetchBytes      = 4 << 20
	DefaultPollTimeout        = 100 * time.Millisecond
	DefaultPollInterval       = 100 * time.Millisecond
	DefaultCheckpointInterval = 250 * time.Millisecond
	DefaultRetryTimeout       = 2 * time.Minute
	DefaultClientID           = "tweetindex"
)

// Config says what to read from Kafka and how. It is a plain value: it is
// serialized into the pipeline with the DoFns that read, so it holds only
// data (file names and the names of environment variables, not their
// contents, and no callbacks): secrets stay out of the job graph.
type Config struct {
	// Brokers are the bootstrap brokers, as host:port.
	Brokers []string
	// Topic is the topic to read; every partition of it is read.
	Topic string
	// Group is the consumer group whose committed offsets Start "group"
	// resumes from and Commit writes to.
	Group string

	// Start is where each partition's read begins:
	//   "earliest" (the default when empty): the first offset still in the log;
	//   "latest": the high watermark when the pipeline starts;
	//   "group": the group's committed offset, or the earliest offset for a
	//     partition the group never committed;
	//   an RFC 3339 time: the first offset whose message timestamp is at or
	//     after it (the high watermark if there is none);
	//   "offset:N": offset N (the log's start if N was deleted already).
	Start string
	// Stop is where each partition's read ends. Empty reads forever (the
	// output is unbounded); any other value makes the read end there (and
	// its output bounded, unless Commit is set; see Bounded):
	//   "latest": the high watermark when the pipeline starts;
	//   an RFC 3339 time: the first message whose timestamp is at or after
	//     it, as the log stands when the pipeline starts; for a time still
	//     in the future, the first such message to arrive, or the end of
	//     the log once the read has caught up after that time;
	//   "offset:N": offsets below N, as far as the log reaches when the
	//     pipeline starts.
	Stop string

	// Commit commits, for every partition, the offset after the records
	// whose output the runner has committed, to Group: at each checkpoint
	// of the read, and once more when it ends (at Stop, or drained). With
	// Commit, a partition's range is only ever split at its current
	// position, so a commit never passes records whose bundle is not done;
	// and the output is unbounded even with Stop (the read still ends there).
	Commit bool
	// CommitAcked, with Commit, leaves committing to CommitAcked, which
	// commits an offset only once the pipeline has acknowledged every
	// record before it (schemas.Ack): written by the sinks, or dropped.
	// The read itself then commits nothing.
	CommitAcked bool

	// AllowedSkew is how far behind the latest tweet time seen in a
	// partition its watermark is held: tweets up to AllowedSkew older than
	// the newest one read so far are not late.
	AllowedSkew time.Duration
	// IdleTimeout is how long a partition must be caught up (no tweets to
	// read) before its watermark advances without them, so that an idle
	// partition does not hold back the pipeline's watermark: to the read's
	// event clock minus AllowedSkew, that is the newest tweet time read from
	// any partition (in this worker) plus the wall-clock time since it was
	// read, which on a live stream is the wall clock; before any tweet is
	// read, the wall clock. Zero means DefaultIdleTimeout; a negative value
	// never advances an idle partition.
	IdleTimeout time.Duration

	// MaxBatchRecords is the most records one output element holds
	// (DefaultMaxBatchRecords if 0).
	MaxBatchRecords int
	// MaxFetchBytes is the most bytes one fetch asks a broker for
	// (DefaultMaxFetchBytes if 0). A larger message is still returned whole.
	MaxFetchBytes int
	// PollTimeout is how long a fetch waits at the broker for new records
	// (DefaultPollTimeout if 0).
	PollTimeout time.Duration
	// PollInterval is how long an unbounded read of a caught-up partition
	// asks the runner to wait before it polls again (DefaultPollInterval if 0).
	PollInterval time.Duration
	// CheckpointInterval is the longest an unbounded read keeps reading
	// before it checkpoints, which lets the runner commit its output (and
	// the read commit its offsets) and take the watermark
	// (DefaultCheckpointInterval if 0).
	CheckpointInterval time.Duration
	// Paced makes a bounded read (Bounded) read in steps of at most
	// CheckpointInterval, as an unbounded read does, and pause while a
	// run whose stages share its process is behind (flow.Backlogged), so
	// that the run's memory does not grow with what it reads: for a
	// runner that passes a bundle's output on only when the bundle ends
	// and splits no read (prism). Its output is then unbounded to Beam (a
	// splittable DoFn that checkpoints), as the paced file reader's
	// is (archiveio.Options.Paced). Off (the
	// default), each partition is read in one call, and the output is a
	// bounded PCollection: what Flink and Dataflow run as a batch job.
	// Unbounded reads always checkpoint, and pause the same way.
	Paced bool
	// RetryTimeout is how long a failing broker call is retried, with
	// backoff, before the read fails (DefaultRetryTimeout if 0).
	RetryTimeout time.Duration

	// Drain names this read's drain signal: Drain(name), called in the
	// process that runs the SDK worker (the pipeline's own process on
	// prism), ends the read cleanly. Empty means no drain signal.
	Drain string

	// ClientID is the client id sent to the brokers (DefaultClientID if empty).
	ClientID string
	// TLS configures TLS to the brokers (Kafka's security.protocol SSL or
	// SASL_SSL). Default: plaintext.
	TLS secure.TLS
	// SASL configures SASL authentication (security.protocol SASL_PLAINTEXT
	// or SASL_SSL). Default: none.
	SASL SASLConfig
}

// SASLConfig configures SASL authentication to the brokers.
type SASLConfig struct {
	// Mechanism is "plain", "scram-sha-256" or "scram-sha-512" (any case:
	// Kafka's sasl.mechanism names them PLAIN, SCRAM-SHA-256 and
	// SCRAM-SHA-512). Default: empty, SASL off.
	Mechanism string
	// User is the user name. Required with a Mechanism.
	User string
	// Password refers to the password (a file or an environment variable),
	// which each process that connects reads when it connects: the
	// configuration, serialized into the pipeline, never holds it.
	// Required with a Mechanism.
	Password secure.Secret
}

// settingNames are the names of the security settings in errors: the
// Config field, and the tweetindex flag that sets it.
var settingNames = map[secure.Setting]string{
	secure.SettingTLS:        "TLS (--kafka-security-protocol)",
	secure.SettingCA:         "TLS.CAFile (--kafka-ssl-ca-location)",
	secure.SettingCert:       "TLS.CertFile (--kafka-ssl-certificate-location)",
	secure.SettingKey:        "TLS.KeyFile (--kafka-ssl-key-location)",
	secure.SettingServerName: "TLS.ServerName (--kafka-ssl-server-name, or --kafka-ssl-endpoint-identification-algorithm none)",
	secure.SettingUser:       "SASL.User (--kafka-sasl-username)",
	secure.SettingPassword:   "SASL.Password (--kafka-sasl-password-file or --kafka-sasl-password-env)",
}

// position is a parsed Start or Stop value.
type position struct {
	kind   positionKind
	time   time.Time // posTime
	offset int64     // posOffset
}

type positionKind int

const (
	posNone     positionKind = iota // Stop "": unbounded
	posEarliest                     // Start "earliest"
	posLatest                       // "latest"
	posGroup                        // Start "group"
	posTime                         // an RFC 3339 time
	posOffset                       // "offset:N"
)

// parsePosition parses a Start (start true) or Stop value.
func parsePosition(s string, start bool) (position, error) {
	switch {
	case s == "" && start, s == "earliest" && start:
		return position{kind: posEarliest}, nil
	case s == "" && !start:
		return position{kind: posNone}, nil
	case s == "latest":
		return position{kind: posLatest}, nil
	case s == "group" && start:
		return position{kind: posGroup}, nil
	case strings.HasPrefix(s, "offset:"):
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "offset:"), 10, 64)
		if err != nil || n < 0 {
			return position{}, fmt.Errorf("%q: offset must be a non-negative integer, as in offset:1234", s)
		}
		return position{kind: posOffset, offset: n}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if start {
			return position{}, fmt.Errorf("%q is not earliest, latest, group, offset:N or an RFC 3339 time", s)
		}
		return position{}, fmt.Errorf("%q is not latest, offset:N or an RFC 3339 time (or empty, for an unbounded read)", s)
	}
	return position{kind: posTime, time: t}, nil
}

// Bounded reports whether Read reads a bounded range: Stop is set and
// Commit is not. Such a read ends at Stop with no watermark of its own
// (the input's windows close when it ends), and commits nothing; its
// output is a bounded PCollection (runners run it as a batch job) unless
// it is Paced. A read that commits ends at Stop all the same, but reads as
// an unbounded read does, its watermark following tweet time: offsets are
// committed as its checkpoints are resumed.
func (c Config) Bounded() bool { return c.Stop != "" && !c.Commit }

// Validate checks the configuration and returns its first problem, in
// one line saying what to fix.
func (c Config) Validate() error {
	var first error // the first problem, which Validate returns
	bad := func(format string, args ...any) {
		if first == nil {
			first = fmt.Errorf("kafkaio: "+format, args...)
		}
	}

	if len(c.Brokers) == 0 {
		bad("no brokers: set Brokers to host:port addresses (--kafka HOST:PORT,...)")
	}
	for _, b := range c.Brokers {
		if _, port, err := net.SplitHostPort(b); err != nil || port == "" {
			bad("broker %q is not host:port", b)
		}
	}
	if c.Topic == "" {
		bad("no topic: set Topic (--topic)")
	}
	start, err := parsePosition(c.Start, true)
	if err != nil {
		bad("start %v", err)
	}
	stop, err := parsePosition(c.Stop, false)
	if err != nil {
		bad("stop %v", err)
	}
	if start.kind == posGroup && c.Group == "" {
		bad("start \"group\" needs a consumer group: set Group (--group)")
	}
	if c.CommitAcked && !c.Commit {
		bad("CommitAcked needs Commit")
	}
	if c.Commit && c.Group == "" {
		bad("committing offsets needs a consumer group: set Group (--group)")
	}
	if start.kind == posTime && stop.kind == posTime && !stop.time.After(start.time) {
		bad("stop time %s is not after start time %s", c.Stop, c.Start)
	}
	if start.kind == posOffset && stop.kind == posOffset && stop.offset < start.offset {
		bad("stop offset %d is below start offset %d", stop.offset, start.offset)
	}
	if c.AllowedSkew < 0 {
		bad("AllowedSkew %v is negative", c.AllowedSkew)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxBatchRecords", int64(c.MaxBatchRecords)},
		{"MaxFetchBytes", int64(c.MaxFetchBytes)},
		{"PollTimeout", int64(c.PollTimeout)},
		{"PollInterval", int64(c.PollInterval)},
		{"CheckpointInterval", int64(c.CheckpointInterval)},
		{"RetryTimeout", int64(c.RetryTimeout)},
	} {
		if f.v < 0 {
			bad("%s is negative", f.name)
		}
	}
	if err := c.TLS.Validate(); err != nil {
		bad("%v: check %s", err, settingName(err))
	}
	switch strings.ToLower(c.SASL.Mechanism) {
	case "":
		if c.SASL.User != "" || !c.SASL.Password.IsZero() {
			bad("SASL user or password set without a mechanism: set SASL.Mechanism to plain, scram-sha-256 or scram-sha-512 (--kafka-sasl-mechanism)")
		}
	case "plain", "scram-sha-256", "scram-sha-512":
		if c.SASL.User == "" {
			bad("SASL %s needs a user: set %s", c.SASL.Mechanism, settingNames[secure.SettingUser])
		}
		if c.SASL.Password.IsZero() {
			bad("SASL %s needs a password: set %s", c.SASL.Mechanism, settingNames[secure.SettingPassword])
		} else if err := c.SASL.Password.Validate(); err != nil {
			bad("SASL password: %v", err)
		}
	default:
		bad("SASL mechanism %q is not plain, scram-sha-256 or scram-sha-512 (--kafka-sasl-mechanism)", c.SASL.Mechanism)
	}
	return first
}

// withDefaults returns c with the zero tuning fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxBatchRecords == 0 {
		c.MaxBatchRecords = DefaultMaxBatchRecords
	}
	if c.MaxFetchBytes == 0 {
		c.MaxFetchBytes = DefaultMaxFetchBytes
	}
	if c.PollTimeout == 0 {
		c.PollTimeout = DefaultPollTimeout
	}
	if c.PollInterval == 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.CheckpointInterval == 0 {
		c.CheckpointInterval = DefaultCheckpointInterval
	}
	if c.RetryTimeout == 0 {
		c.RetryTimeout = DefaultRetryTimeout
	}
	if c.ClientID == "" {
		c.ClientID = DefaultClientID
	}
	return c
}
