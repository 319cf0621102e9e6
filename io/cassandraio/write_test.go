package cassandraio

import (
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// testBeamWrite runs a pipeline that writes cells through Write and checks
// the tables and the counters once the pipeline has returned.
func testBeamWrite(t *testing.T, tg *target, minRetries int64) {
	cells := testCells(200, 6)
	var batches [][]schemas.Cell
	for i := 0; i < len(cells); i += 50 {
		batches = append(batches, cells[i:min(i+50, len(cells))])
	}
	p, s := beam.NewPipelineWithRoot()
	Write(s, tg.cfg, beam.CreateList(s, batches))
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatalf("pipeline failed: %v", err)
	}
	want := expected(cells)
	if tg.srv != nil {
		checkServer(t, tg, want) // right away: the bundles waited for their writes
	} else {
		r, err := NewReader(tg.cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for _, table := range schemas.Tables {
			checkTable(t, table, want[table], readCells(t, r, table))
		}
	}
	counters := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Key.Namespace == flow.Namespace {
			counters[c.Key.Name] += c.Result()
		}
	}
	if counters[CounterRowsWritten] != int64(len(cells)) {
		t.Errorf("%s = %d, want %d", CounterRowsWritten, counters[CounterRowsWritten], len(cells))
	}
	for _, table := range schemas.Tables {
		n := int64(len(want[table]))
		if table == schemas.TableFrequency {
			n = 0 // counted by transforms.GrowingTotalFn, once per row however often it is rewritten
		}
		if got := counters[flow.RowCounterName(table)]; got != n {
			t.Errorf("%s = %d, want %d", flow.RowCounterName(table), got, n)
		}
	}
	if counters[CounterRetries] < minRetries || counters[CounterRequests] == 0 || counters[CounterBatches] == 0 {
		t.Errorf("counters %v: want at least %d retries, and requests and batches", counters, minRetries)
	}
	t.Logf("counters: %v", counters)
}

// TestWriteBeam writes through the Beam sink on prism while the server
// answers slowly and is overloaded five times.
func TestWriteBeam(t *testing.T) {
	tg := newServerTarget(t, nil)
	tg.srv.InjectFault(cassandratest.Fault{Kind: cassandratest.Overloaded, Count: 5})
	tg.srv.InjectFault(cassandratest.Fault{Kind: cassandratest.Slow, Count: -1, Delay: 2 * time.Millisecond})
	testBeamWrite(t, tg, 5)
}

func TestWriteFailsTheBundle(t *testing.T) {
	tg := newServerTarget(t, func(c *Config) { c.MaxRetries = 1 })
	tg.srv.InjectFault(cassandratest.Fault{Kind: cassandratest.Unavailable, Count: -1, Table: "raw_tweets"})
	p, s := beam.NewPipelineWithRoot()
	Write(s, tg.cfg, beam.CreateList(s, [][]schemas.Cell{testCells(5, 7)}))
	if err := ptest.Run(p); err == nil {
		t.Fatal("the pipeline succeeded although every raw write failed")
	}
}
