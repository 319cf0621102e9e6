package cassandraio

import (
	"context"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestCheckTables: a run's check of the keyspace before it starts says, in
// one line, that the keyspace does not exist, or which of the project's
// tables it lacks (a keyspace an older build made, before the edge table)
// and to run schema apply; once applied, it passes.
func TestCheckTables(t *testing.T) {
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	cfg := DefaultConfig(srv.Addr())
	cfg.Keyspace = "older"
	if err := CheckTables(ctx, cfg); err == nil || !strings.Contains(err.Error(), "keyspace older does not exist") {
		t.Errorf("no keyspace: %v", err)
	}

	// The schema an older build applied: every table but the edges'.
	sess, err := gocql.NewCluster(srv.Addr()).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, st := range schemas.CQLSchemaStatements(cfg.Keyspace, schemas.ReplicationOptions{}) {
		if st.Table == schemas.CQLEdges {
			continue
		}
		if err := sess.Query(st.Text).Exec(); err != nil {
			t.Fatalf("%s: %v", st.Text, err)
		}
	}
	err = CheckTables(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "has no table tweet_edges") || !strings.Contains(err.Error(), "tweetindex schema apply") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a keyspace without tweet_edges: %v; want one line naming it and schema apply", err)
	}
	if err := ApplySchema(ctx, cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := CheckTables(ctx, cfg); err != nil {
		t.Errorf("after schema apply: %v", err)
	}
}
