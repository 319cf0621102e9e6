// Package secure is what the Kafka reader (io/kafkaio) and the Cassandra
// sink (io/cassandraio) share to reach a secured cluster:
//
//   - Secret, a reference to a password: a file or an environment
//     variable, resolved by Resolve where the connection is made (on the
//     workers, at setup). A configuration that is serialized into a
//     pipeline (a DoFn's fields) carries the reference, never the secret,
//     so the job graph a runner stores, shows and logs holds none.
//   - TLS, the settings of a TLS connection as files (the CAs to trust, a
//     client certificate and its key), turned into a *tls.Config by Config
//     where the connection is made.
//   - Diagnose, which says which of these settings a failed handshake
//     points at (an unknown CA, an expired certificate, a host name the
//     certificate is not for, a client certificate the server refused), so
//     that a connection that fails on them fails in one line naming the
//     setting to fix.
//
// Package securetest makes certificate authorities and certificates for
// tests and for the development servers (devbroker, devcql).
package secure
