// Package cassandraio is the Cassandra (and ScyllaDB) sink of the pipeline,
// and the reader that dumps the tables back.
//
// It uses github.com/apache/cassandra-gocql-driver/v2, the maintained line
// of gocql (the driver known as github.com/gocql/gocql, whose last v1
// release is v1.7.0), over native protocol v4 by default.
//
// The tables and statements are those of package schemas: schemas.CQLSchema
// (created by ApplySchema), schemas.CQLCatalog (the only statements the sink
// and the reader send) and schemas.CQLValues / schemas.CellFromCQL (the
// mapping of a cell to a row and back, byte for byte).
//
// Writing:
//
//	cfg := cassandraio.DefaultConfig("10.0.0.1", "10.0.0.2")
//	cfg.Keyspace, cfg.Consistency = "tweetindex", "LOCAL_QUORUM"
//	if err := cfg.Validate(); err != nil { ... }
//	if err := cassandraio.ApplySchema(ctx, cfg, replication); err != nil { ... }
//	cassandraio.Write(s, cfg, cells) // cells: PCollection of []schemas.Cell
//
// Write groups the rows of a bundle by partition into UNLOGGED batches of
// bounded size: a partition's full batch is sent at once, and the
// partitions pending at the bundle's end go together, those one node owns
// (their tokens' first replica) in one batch sent to that node by
// token-aware routing. It keeps a bounded number of requests in flight,
// retries requests that failed with a write timeout, unavailable,
// overloaded or bootstrapping error, a client timeout or a lost connection,
// with exponential backoff, and finishes a bundle only once every row of it
// is acknowledged at the configured consistency. A write that still fails
// after its retries fails the bundle. Writer is the same logic without Beam.
//
// Reading: Reader.Scan reads a key range in the embedded store's key order
// (storeio.Store.Scan) as the CQL partitions that hold it (raw tweets:
// RawBuckets partitions a minute, or a slice of one for a row key's tweets;
// terms: one an hour; frequency: a slice of a day; geo: one spread and day;
// each table's registry entry says which, schemas.TableSpec.CQLRange, and
// ranges.go reads them alike for every table), or a whole table in key
// order (in memory); Reader.Lookup and Reader.Get read one cell,
// Reader.ScanAll a whole table (unordered, streaming). Reader and
// storeio.Store are read alike (sink.Reader).
//
// Secured clusters: Config.Username and Config.Password (a secure.Secret,
// a file or an environment variable read when the session is opened, so
// the Config serialized into a DoFn holds no password) authenticate with
// PasswordAuthenticator; Config.TLS (package secure) encrypts. Check
// connects as the sink does and reports a wrong setting in one line naming
// it.
//
// The package's tests run the real driver against cassandratest, an in-process
// CQL protocol server; with CASSANDRA_HOSTS set, the integration tests run
// against a real cluster instead (see runners/cassandra).
package cassandraio
