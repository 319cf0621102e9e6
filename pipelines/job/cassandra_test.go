package job

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/schemas"
)

// startCQL starts the in-process CQL server, applies the schema through
// the real driver and returns a sink configuration for it.
func startCQL(t *testing.T) (*cassandratest.Server, *cassandraio.Config) {
	t.Helper()
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := cassandraio.DefaultConfig(srv.Addr())
	cfg.Keyspace = "tweetindex_pipeline"
	cfg.Consistency = "ONE"
	cfg.Timeout = 2 * time.Second
	cfg.MinBackoff = 2 * time.Millisecond
	cfg.MaxBackoff = 50 * time.Millisecond
	if err := cassandraio.ApplySchema(context.Background(), cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatal(err)
	}
	return srv, &cfg
}

func dumpCassandra(t *testing.T, cfg *cassandraio.Config) map[string]string {
	t.Helper()
	tables, err := sink.Open(sink.Config{Cassandra: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	return dumpTables(t, tables)
}

// TestCassandraMatchesStore indexes the sample into the embedded store and
// through the gocql driver into the CQL test server, with and without
// injected write faults: every table's dump is identical, and the counts
// and rows written agree.
func TestCassandraMatchesStore(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) indexes the sample through gocql into the CQL test server, with and without write faults, and compares every table with the store's")
	}
	store, want := indexSample(t)
	wantTables := dumpStore(t, store)
	input := filepath.Join(repoRoot(t), "testdata", "sample", "*")

	// Ten faults in all: the writer packs the partitions pending at a
	// flush into one request, so one request may meet every fault in a
	// row, and it retries ten times (eleven attempts) before it gives up.
	faults := []cassandratest.Fault{
		{Kind: cassandratest.WriteTimeout, Count: 2},
		{Kind: cassandratest.WriteTimeout, Count: 2, Applied: true},
		{Kind: cassandratest.Unavailable, Count: 2},
		{Kind: cassandratest.Overloaded, Count: 2},
		{Kind: cassandratest.DropConnection, Count: 2, Applied: true},
	}
	for _, withFaults := range []bool{false, true} {
		t.Run(fmt.Sprintf("faults=%v", withFaults), func(t *testing.T) {
			srv, cfg := startCQL(t)
			if withFaults {
				for _, f := range faults {
					srv.InjectFault(f)
				}
			}
			got := runPipeline(t, pipelines.Config{Input: input, Cassandra: cfg})
			if got.Read != want.Read || got.Indexed != want.Indexed || got.DeadLettered != want.DeadLettered {
				t.Errorf("Cassandra run read %d indexed %d dead_lettered %d; store run %d, %d, %d",
					got.Read, got.Indexed, got.DeadLettered, want.Read, want.Indexed, want.DeadLettered)
			}
			for table, n := range want.Rows {
				if got.Rows[table] != n {
					t.Errorf("rows written to %s: %d through CQL, %d to the store", table, got.Rows[table], n)
				}
			}
			diffTables(t, wantTables, dumpCassandra(t, cfg), "store", "cassandra")
		})
	}
}
