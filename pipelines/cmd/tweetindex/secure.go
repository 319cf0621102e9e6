package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/secure"
)

// The environment variables a password is read from when no file is
// named (--kafka-sasl-password-file, --cassandra-password-file) and no
// other variable (--kafka-sasl-password-env, --cassandra-password-env).
const (
	kafkaPasswordEnv     = "TWEETINDEX_KAFKA_PASSWORD"
	cassandraPasswordEnv = "TWEETINDEX_CASSANDRA_PASSWORD"
)

// secretsNote is what every command that reaches a secured cluster says
// in its help about passwords.
const secretsNote = `Passwords are never flag values (every user of the machine sees those in the
process list): they come from a file (--kafka-sasl-password-file,
--cassandra-password-file) or an environment variable (by default
` + kafkaPasswordEnv + ` and ` + cassandraPasswordEnv + `), read by each process
that connects (the workers too); the job graph holds only the file's path or
the variable's name. docs/security.md has the whole story.`

// warnings is where the warnings of insecure settings go.
var warnings io.Writer = os.Stderr

// kafkaSecurityFlags reach a secured Kafka. They are named as librdkafka
// (kcat -X) names its settings: --kafka-security-protocol is
// security.protocol, --kafka-sasl-mechanism sasl.mechanism,
// --kafka-ssl-ca-location ssl.ca.location, and so on.
type kafkaSecurityFlags struct {
	protocol, mechanism, user           string
	passwordFile, passwordEnv           string
	ca, cert, key, serverName, endpoint string
	skipVerify                          bool
}

func (f *kafkaSecurityFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.protocol, "kafka-security-protocol", "PLAINTEXT", "Kafka: how to reach the brokers (security.protocol): PLAINTEXT, SSL (TLS), SASL_PLAINTEXT or SASL_SSL (SASL over TLS)")
	fs.StringVar(&f.mechanism, "kafka-sasl-mechanism", "", "Kafka SASL mechanism (sasl.mechanism), with SASL_*: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fs.StringVar(&f.user, "kafka-sasl-username", "", "Kafka SASL user name (sasl.username)")
	fs.StringVar(&f.passwordFile, "kafka-sasl-password-file", "", "Kafka SASL password: a `FILE` holding it (a mounted secret; one line). Passwords are never flag values, which show in the process list")
	fs.StringVar(&f.passwordEnv, "kafka-sasl-password-env", "", "Kafka SASL password: the environment variable `NAME` holding it, when no file is given (default "+kafkaPasswordEnv+")")
	fs.StringVar(&f.ca, "kafka-ssl-ca-location", "", "Kafka TLS: PEM `FILE` of the CAs to trust (ssl.ca.location; default: the system's)")
	fs.StringVar(&f.cert, "kafka-ssl-certificate-location", "", "Kafka TLS: PEM client certificate `FILE`, for brokers that require one (ssl.certificate.location)")
	fs.StringVar(&f.key, "kafka-ssl-key-location", "", "Kafka TLS: PEM `FILE` of the client certificate's key (ssl.key.location)")
	fs.StringVar(&f.serverName, "kafka-ssl-server-name", "", "Kafka TLS: the name the brokers' certificates must be for (default: each broker's host)")
	fs.StringVar(&f.endpoint, "kafka-ssl-endpoint-identification-algorithm", "https", "Kafka TLS: https checks that a broker's certificate is for its host name; none checks only that a trusted CA signed it (ssl.endpoint.identification.algorithm)")
	fs.BoolVar(&f.skipVerify, "kafka-ssl-skip-verify", false, "Kafka TLS: accept any broker certificate, unchecked (enable.ssl.certificate.verification=false): anyone on the path can then read the traffic and the password; for tests only")
}

// given reports whether any flag but --kafka-security-protocol is set.
func (f *kafkaSecurityFlags) given() bool {
	return f.mechanism != "" || f.user != "" || f.passwordFile != "" || f.passwordEnv != "" || f.ca != "" || f.cert != "" ||
		f.key != "" || f.serverName != "" || f.endpoint != "https" || f.skipVerify
}

// apply sets cfg's TLS and SASL from the flags, or says what is wrong
// with them.
func (f *kafkaSecurityFlags) apply(cfg *kafkaio.Config) error {
	protocol := strings.ToUpper(f.protocol)
	protocols := []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}
	if !slices.Contains(protocols, protocol) {
		return fmt.Errorf("--kafka-security-protocol %q: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", f.protocol)
	}
	useTLS := protocol == "SSL" || protocol == "SASL_SSL"
	useSASL := strings.HasPrefix(protocol, "SASL_")
	if !useTLS {
		if name := firstSet(
			"--kafka-ssl-ca-location", f.ca != "", "--kafka-ssl-certificate-location", f.cert != "", "--kafka-ssl-key-location", f.key != "",
			"--kafka-ssl-server-name", f.serverName != "", "--kafka-ssl-endpoint-identification-algorithm", f.endpoint != "https", "--kafka-ssl-skip-verify", f.skipVerify,
		); name != "" {
			return fmt.Errorf("%s needs TLS: --kafka-security-protocol SSL or SASL_SSL (it is %s)", name, protocol)
		}
	}
	if !useSASL {
		if name := firstSet(
			"--kafka-sasl-mechanism", f.mechanism != "", "--kafka-sasl-username", f.user != "",
			"--kafka-sasl-password-file", f.passwordFile != "", "--kafka-sasl-password-env", f.passwordEnv != "",
		); name != "" {
			return fmt.Errorf("%s needs SASL: --kafka-security-protocol SASL_PLAINTEXT or SASL_SSL (it is %s)", name, protocol)
		}
	}
	if f.endpoint != "https" && f.endpoint != "none" {
		return fmt.Errorf("--kafka-ssl-endpoint-identification-algorithm %q: want https or none", f.endpoint)
	}
	if useTLS {
		cfg.TLS = secure.TLS{Enable: true, CAFile: f.ca, CertFile: f.cert, KeyFile: f.key, ServerName: f.serverName,
			SkipHostVerification: f.endpoint == "none", InsecureSkipVerify: f.skipVerify}
		if f.skipVerify {
			fmt.Fprintln(warnings, "tweetindex: warning: --kafka-ssl-skip-verify: the brokers' certificates are not checked; anyone on the network path can pose as them and read the traffic and the password")
		}
	}
	if useSASL {
		if f.mechanism == "" {
			return fmt.Errorf("--kafka-security-protocol %s needs --kafka-sasl-mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", protocol)
		}
		if f.user == "" {
			return fmt.Errorf("--kafka-security-protocol %s needs --kafka-sasl-username", protocol)
		}
		pw, err := secretFlag("--kafka-sasl-password", f.passwordFile, f.passwordEnv, kafkaPasswordEnv)
		if err != nil {
			return err
		}
		cfg.SASL = kafkaio.SASLConfig{Mechanism: f.mechanism, User: f.user, Password: pw}
	}
	return nil
}

// cassandraSecurityFlags reach a secured Cassandra. They are named as
// cqlsh names its settings: -u, --ssl, and the [ssl] section of cqlshrc
// (certfile, usercert, userkey, validate).
type cassandraSecurityFlags struct {
	user, passwordFile, passwordEnv         string
	ssl, validate, checkHostname            bool
	certfile, usercert, userkey, serverName string
}

func (f *cassandraSecurityFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.user, "cassandra-username", "", "Cassandra user name (cqlsh -u), for a cluster with PasswordAuthenticator")
	fs.StringVar(&f.passwordFile, "cassandra-password-file", "", "Cassandra password: a `FILE` holding it (a mounted secret; one line). Passwords are never flag values, which show in the process list")
	fs.StringVar(&f.passwordEnv, "cassandra-password-env", "", "Cassandra password: the environment variable `NAME` holding it, when no file is given (default "+cassandraPasswordEnv+")")
	fs.BoolVar(&f.ssl, "cassandra-ssl", false, "Cassandra: connect with TLS (cqlsh --ssl)")
	fs.StringVar(&f.certfile, "cassandra-ssl-certfile", "", "Cassandra TLS: PEM `FILE` of the CAs to trust (cqlshrc certfile; default: the system's)")
	fs.StringVar(&f.usercert, "cassandra-ssl-usercert", "", "Cassandra TLS: PEM client certificate `FILE`, for nodes that require one (cqlshrc usercert)")
	fs.StringVar(&f.userkey, "cassandra-ssl-userkey", "", "Cassandra TLS: PEM `FILE` of the client certificate's key (cqlshrc userkey)")
	fs.StringVar(&f.serverName, "cassandra-ssl-server-name", "", "Cassandra TLS: the name the nodes' certificates must be for (default: the address of each node)")
	fs.BoolVar(&f.checkHostname, "cassandra-ssl-check-hostname", true, "Cassandra TLS: check that a node's certificate is for its address (false: only that a trusted CA signed it, for nodes whose certificates name no address)")
	fs.BoolVar(&f.validate, "cassandra-ssl-validate", true, "Cassandra TLS: check the nodes' certificates (cqlshrc validate; false accepts any certificate: anyone on the path can then read the traffic and the password; for tests only)")
}

// given reports whether any of the flags is set.
func (f *cassandraSecurityFlags) given() bool {
	return f.user != "" || f.passwordFile != "" || f.passwordEnv != "" || f.ssl || f.certfile != "" || f.usercert != "" ||
		f.userkey != "" || f.serverName != "" || !f.checkHostname || !f.validate
}

// apply sets cfg's user, password and TLS from the flags, or says what is
// wrong with them. warn says whether to warn of insecure settings.
func (f *cassandraSecurityFlags) apply(cfg *cassandraio.Config, warn bool) error {
	if !f.ssl {
		if name := firstSet(
			"--cassandra-ssl-certfile", f.certfile != "", "--cassandra-ssl-usercert", f.usercert != "", "--cassandra-ssl-userkey", f.userkey != "",
			"--cassandra-ssl-server-name", f.serverName != "", "--cassandra-ssl-check-hostname", !f.checkHostname, "--cassandra-ssl-validate", !f.validate,
		); name != "" {
			return fmt.Errorf("%s needs --cassandra-ssl", name)
		}
	} else {
		cfg.TLS = secure.TLS{Enable: true, CAFile: f.certfile, CertFile: f.usercert, KeyFile: f.userkey, ServerName: f.serverName,
			SkipHostVerification: !f.checkHostname, InsecureSkipVerify: !f.validate}
		if !f.validate && warn {
			fmt.Fprintln(warnings, "tweetindex: warning: --cassandra-ssl-validate=false: the nodes' certificates are not checked; anyone on the network path can pose as them and read the traffic and the password")
		}
	}
	if f.user == "" {
		if f.passwordFile != "" || f.passwordEnv != "" {
			return fmt.Errorf("a Cassandra password needs its user: --cassandra-username")
		}
		return nil
	}
	pw, err := secretFlag("--cassandra-password", f.passwordFile, f.passwordEnv, cassandraPasswordEnv)
	if err != nil {
		return err
	}
	cfg.Username, cfg.Password = f.user, pw
	return nil
}

// secretFlag is the reference of the flags PREFIX-file and PREFIX-env, the
// variable defaultEnv when neither is given.
func secretFlag(prefix, file, env, defaultEnv string) (secure.Secret, error) {
	if file != "" && env != "" {
		return secure.Secret{}, fmt.Errorf("give %s-file or %s-env, not both", prefix, prefix)
	}
	s := secure.Secret{File: file, Env: env}
	if s.IsZero() {
		s.Env = defaultEnv
	}
	return s, s.Validate()
}

// firstSet returns the first name of the (name, set) pairs that is set, or "".
func firstSet(pairs ...any) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1].(bool) {
			return pairs[i].(string)
		}
	}
	return ""
}
