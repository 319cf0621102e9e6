package cassandraio

import (
	"context"
	"testing"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/schemas"
)

// BenchmarkWriter writes the cells of synthetic tweets (a ~3 KB raw row,
// ~12 term rows, frequency, geo and dead-letter rows each) through gocql
// into the in-process CQL server, and reports rows/s and tweets/s. Client
// and server share the machine's cores, so this bounds the sink's own cost
// (mapping, grouping, driver encoding) rather than a cluster's speed.
func BenchmarkWriter(b *testing.B) {
	for _, bc := range []struct {
		name  string
		tweak func(*Config)
	}{
		{"default", nil},
		{"single-row-requests", func(c *Config) { c.MaxBatchRows = 1 }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv, err := cassandratest.New(cassandratest.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			cfg := DefaultConfig(srv.Addr())
			cfg.Keyspace = "bench"
			cfg.Consistency = "ONE"
			if bc.tweak != nil {
				bc.tweak(&cfg)
			}
			ctx := context.Background()
			if err := ApplySchema(ctx, cfg, schemas.ReplicationOptions{}); err != nil {
				b.Fatal(err)
			}
			const tweets = 2000
			cells := testCells(tweets, 9)
			w, err := NewWriter(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close(ctx)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := 0; j < len(cells); j += 500 {
					if err := w.Write(ctx, cells[j:min(j+500, len(cells))]); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Flush(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(len(cells)*b.N)/sec, "rows/s")
			b.ReportMetric(float64(tweets*b.N)/sec, "tweets/s")
			st := w.Stats()
			b.ReportMetric(float64(st.Rows)/float64(st.Requests), "rows/request")
		})
	}
}
