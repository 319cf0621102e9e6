package cassandraio

import (
	"context"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// The integration tests run the same test bodies as the in-process tests
// against a real Cassandra or ScyllaDB named by CASSANDRA_HOSTS (each in a
// fresh keyspace, dropped afterwards), and skip when it is unset:
//
//	CASSANDRA_HOSTS=127.0.0.1:9042 go test -run Integration ./io/cassandraio/
//
// Faults cannot be injected into a real cluster; those tests run only
// against the in-process server.

func TestIntegrationRoundTrip(t *testing.T) { testRoundTrip(t, newIntegrationTarget(t, nil)) }

func TestIntegrationRoundTripSmallPages(t *testing.T) {
	testRoundTrip(t, newIntegrationTarget(t, func(c *Config) { c.PageSize = 7; c.MaxBatchRows = 3 }))
}

func TestIntegrationBeamWrite(t *testing.T) { testBeamWrite(t, newIntegrationTarget(t, nil), 0) }

func TestIntegrationApplySchemaTwice(t *testing.T) {
	tg := newIntegrationTarget(t, nil)
	if err := ApplySchema(context.Background(), tg.cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatalf("applying the schema again: %v", err)
	}
}
