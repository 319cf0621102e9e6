package cassandraio

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/schemas"
)

// target is where a test writes: the in-process CQL server, or a real
// cluster named by CASSANDRA_HOSTS (srv nil).
type target struct {
	cfg Config
	srv *cassandratest.Server
}

// newServerTarget starts a CQL test server, applies the schema through
// the driver and returns a config for it with fast retries.
func newServerTarget(t testing.TB, tune func(*Config)) *target {
	t.Helper()
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := DefaultConfig(srv.Addr())
	cfg.Keyspace = "tweetindex_test"
	cfg.Timeout = 2 * time.Second
	cfg.MinBackoff = 2 * time.Millisecond
	cfg.MaxBackoff = 50 * time.Millisecond
	if tune != nil {
		tune(&cfg)
	}
	if err := ApplySchema(context.Background(), cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatal(err)
	}
	return &target{cfg: cfg, srv: srv}
}

// integrationSkipMessage explains how to run the integration tests.
const integrationSkipMessage = "CASSANDRA_HOSTS is not set: the integration tests need a real Cassandra or ScyllaDB " +
	"(e.g. CASSANDRA_HOSTS=127.0.0.1:9042 make test-cassandra; runners/cassandra/README.md starts one with docker compose)"

// newIntegrationTarget returns a fresh keyspace on the cluster named by
// CASSANDRA_HOSTS (comma-separated), dropped when the test ends; it skips
// the test when the variable is unset. CASSANDRA_CONSISTENCY overrides the
// consistency level (default LOCAL_QUORUM).
func newIntegrationTarget(t testing.TB, tune func(*Config)) *target {
	t.Helper()
	hosts := os.Getenv("CASSANDRA_HOSTS")
	if hosts == "" {
		t.Skip(integrationSkipMessage)
	}
	cfg := DefaultConfig(ParseHosts(hosts)...)
	cfg.Keyspace = fmt.Sprintf("tweetindex_it_%d_%d", time.Now().Unix(), rand.IntN(1e6))
	if cl := os.Getenv("CASSANDRA_CONSISTENCY"); cl != "" {
		cfg.Consistency = cl
	}
	if tune != nil {
		tune(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ApplySchema(ctx, cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := DropKeyspace(context.Background(), cfg); err != nil {
			t.Errorf("drop keyspace %s: %v", cfg.Keyspace, err)
		}
	})
	return &target{cfg: cfg}
}

// testCells returns the cells of n synthetic tweets, as the pipeline makes
// them: a raw row of a few KB, its terms, geo rows for 1 in 10, frequency
// rows per minute and language, a few dead letters and metadata.
func testCells(n int, seed uint64) []schemas.Cell {
	rng := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2018, 10, 10, 20, 0, 0, 0, time.UTC).Unix()
	words := strings.Fields("the a and rt #apacheflink flink beam cassandra scylla 東京 地震 مرحبا hola tweet index crisis storm #breaking news")
	langs := []string{"en", "ja", "ar", "es", "und"}
	var cells []schemas.Cell
	freq := map[string]int64{}
	for i := 0; i < n; i++ {
		sec := base + int64(rng.IntN(3*3600))
		lang := langs[rng.IntN(len(langs))]
		var text strings.Builder
		for w := 0; w < 5+rng.IntN(10); w++ {
			text.WriteString(words[rng.IntN(len(words))] + " ")
		}
		js := fmt.Sprintf(`{"id_str":"%d","lang":%q,"text":%q,"pad":"%s"}`, int64(1e18)+int64(i), lang, text.String(), strings.Repeat("x", 1000+rng.IntN(3000)))
		key := schemas.NewRowKey(sec, []byte(js))
		cells = append(cells, schemas.RawRow{Key: key, JSON: []byte(js)}.Cell())
		counts := map[string]uint32{}
		for _, w := range strings.Fields(text.String()) {
			counts[w]++
		}
		for w, c := range counts {
			cells = append(cells, schemas.TermRow{Term: w, Field: "text", Key: key, Freq: c}.Cell())
		}
		cells = append(cells, schemas.TermRow{Term: fmt.Sprintf("user%d", i%50), Field: "user", Key: key}.Cell())
		if i%10 == 0 {
			lat, lon := rng.Float64()*170-85, rng.Float64()*350-175
			cells = append(cells, schemas.GeoRow{
				Geo: schemas.NewGeoKey(schemas.Spread(schemas.Murmur2([]byte(js))), schemas.Day(sec), schemas.Geohash(lat, lon)),
				Key: key, Lat: float32(lat), Lon: float32(lon),
			}.Cell())
		}
		freq[schemas.Minute(sec)+"\x00"+lang]++
		if i%97 == 0 {
			cells = append(cells, schemas.DeadLetterRow{Origin: schemas.Origin{Source: "archive/2018-10-10.json.bz2", Line: int64(i)}, Reason: "truncated JSON", Raw: []byte(js[:40])}.Cell())
		}
	}
	for k, c := range freq {
		m, l, _ := strings.Cut(k, "\x00")
		cells = append(cells, schemas.FrequencyRow{Minute: m, Lang: l, Count: c}.Cell())
	}
	cells = append(cells,
		schemas.MetaRow{Name: "param/index", Value: []byte(`{"spread_count":255}`)}.Cell(),
		schemas.MetaRow{Name: "run/2026-11-22T00:00:00Z", Value: []byte(`{"status":"succeeded"}`)}.Cell(),
	)
	rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
	return cells
}

// expected returns the last value written of every key, by table.
func expected(cells []schemas.Cell) map[schemas.Table]map[string]string {
	m := map[schemas.Table]map[string]string{}
	for _, t := range schemas.Tables {
		m[t] = map[string]string{}
	}
	for _, c := range cells {
		m[c.Table][string(c.Key)] = string(c.Value)
	}
	return m
}

// checkTable compares the cells of one table with the expected rows: every
// key exactly once, with its last value.
func checkTable(t testing.TB, table schemas.Table, want map[string]string, got []schemas.Cell) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range got {
		k := string(c.Key)
		if seen[k] {
			t.Errorf("%s: key %q read twice", table.Name(), k)
		}
		seen[k] = true
		w, ok := want[k]
		if !ok {
			t.Errorf("%s: unexpected key %q", table.Name(), k)
			continue
		}
		if !bytes.Equal([]byte(w), c.Value) {
			t.Errorf("%s: key %q = %q, want %q", table.Name(), k, short(c.Value), short([]byte(w)))
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%s: %d rows stored, want %d", table.Name(), len(seen), len(want))
	}
}

// short abbreviates a value for a failure message.
func short(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q...(%d bytes)", b[:60], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// checkServer compares everything the server holds with the expected rows,
// reading the server's memory (not through the driver).
func checkServer(t testing.TB, tg *target, want map[schemas.Table]map[string]string) {
	t.Helper()
	for _, table := range schemas.Tables {
		got, err := tg.srv.Cells(tg.cfg.Keyspace, table)
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, table, want[table], got)
	}
}

// writeAll writes cells through a Writer in batches of 100 and flushes.
func writeAll(t testing.TB, cfg Config, cells []schemas.Cell) (WriterStats, error) {
	t.Helper()
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < len(cells); i += 100 {
		if err := w.Write(ctx, cells[i:min(i+100, len(cells))]); err != nil {
			w.Close(ctx)
			return w.Stats(), err
		}
	}
	err = w.Close(ctx)
	return w.Stats(), err
}

// readCells reads every cell of table through r (Reader.ScanAll).
func readCells(t testing.TB, r *Reader, table schemas.Table) []schemas.Cell {
	t.Helper()
	var got []schemas.Cell
	err := r.ScanAll(context.Background(), table, func(k, v []byte) error {
		got = append(got, schemas.Cell{Table: table, Key: k, Value: v})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
