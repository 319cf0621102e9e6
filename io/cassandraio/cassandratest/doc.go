// Package cassandratest is a test helper, as kafkaio/kafkatest is for
// Kafka: an in-process server of the Cassandra native protocol, version 4
// (doc/native_protocol_v4.spec in apache/cassandra), for testing the
// Cassandra sink with the real gocql driver where no Cassandra can be
// installed, and for trying the Cassandra path locally (devcql).
//
// It is not a CQL engine. It executes exactly the statements of the
// project's catalog (schemas.CQLSchema, schemas.CQLCatalog and
// schemas.CQLDropKeyspaceStatement: the same texts the sink sends), the
// selects of system.local, system.peers, system.peers_v2,
// system_schema.* and system_virtual_schema.* that drivers and cqlsh issue
// when they connect and refresh their schema metadata (with Cassandra
// 4.1's columns; the schema tables describe the project's keyspaces and
// tables, testdata/python-driver.cql holds what the DataStax Python driver
// sends), SELECT * FROM [keyspace.]table [LIMIT n] of a project table (what
// a person types to look at one), and USE. Anything else is refused with an
// Invalid (0x2200) error naming the statement, and logged (Options.Logf;
// Options.Trace logs every statement).
//
// Messages: OPTIONS/SUPPORTED, STARTUP/READY, REGISTER/READY, QUERY,
// PREPARE, EXECUTE and BATCH, answered with RESULT (Void, Rows with paging,
// Set_keyspace, Prepared with partition key indexes, Schema_change) or
// ERROR. Frames are never compressed; no events are pushed (there is one
// node and schema changes are seen through schema agreement).
//
// Secured as a cluster can be: with Options.Users, STARTUP is answered
// with AUTHENTICATE (org.apache.cassandra.auth.PasswordAuthenticator) and
// the client must authenticate with SASL PLAIN in AUTH_RESPONSE (answered
// with AUTH_SUCCESS, or Bad credentials, 0x0100, as Cassandra does), as
// gocql's PasswordAuthenticator and the Python driver's
// PlainTextAuthProvider do; with Options.TLS, connections are TLS
// (client-to-node encryption), client certificates required if its
// ClientAuth says so. A client that asks for protocol v5 or v3 gets a protocol
// error in its own version and (like gocql) falls back to v4.
//
// Rows are kept in memory with Cassandra's primary-key semantics: an insert
// upserts its primary key (the later write time wins, as the client's
// default timestamp says), a partition's rows come back in clustering
// order, a full scan pages through partitions in a fixed order, and a row
// past its TTL is gone.
//
// Faults can be injected into write requests (InjectFault): write timeout,
// unavailable, overloaded, dropped connection and slow answers, optionally
// after applying the write. Stats counts requests, rows and faults served.
package cassandratest
