package job

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// repoRoot is the repository's root directory.
func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// tempDir is t.TempDir whose stores, if the test opened any in it, are
// closed before it is removed: a pipeline run in process keeps its sink's
// store open (storeio.CloseOpen), and Pebble's background work writing
// into it made the removal fail ("directory not empty").
func tempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		if _, err := storeio.CloseOpen(dir); err != nil {
			t.Logf("closing the stores in %s: %v", dir, err)
		}
	})
	return dir
}

// forget, recountMarked and applyScrubGeo call maintain's on the sink of
// cfg, opened for the call.
func forget(ctx context.Context, cfg pipelines.Config, list maintain.IDList) (maintain.ForgetSummary, error) {
	s, err := openSink(cfg)
	if err != nil {
		return maintain.ForgetSummary{}, err
	}
	defer s.Close()
	return maintain.Forget(ctx, s, list)
}

func recountMarked(ctx context.Context, cfg pipelines.Config) (int, error) {
	s, err := openSink(cfg)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	return maintain.RecountMarked(ctx, s)
}

func applyScrubGeo(ctx context.Context, cfg pipelines.Config) (int, error) {
	s, err := openSink(cfg)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	return maintain.ApplyScrubGeo(ctx, s)
}

// runPipeline runs cfg and fails the test if the run fails or its counts
// do not reconcile.
func runPipeline(t testing.TB, cfg pipelines.Config) Summary {
	t.Helper()
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !sum.Reconciles() {
		t.Fatalf("counts do not reconcile: %+v", sum)
	}
	return sum
}

// dumpTables returns every table but meta as its dump output (JSON lines
// in key order), by table name.
func dumpTables(t testing.TB, src sink.Reader) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range schemas.Tables {
		if table == schemas.TableMeta {
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as the command's dump
		if _, err := maintain.DumpRows(context.Background(), src, table, func(row any) error { return enc.Encode(row) }); err != nil {
			t.Fatalf("dump %s: %v", table.Name(), err)
		}
		out[table.Name()] = b.String()
	}
	return out
}

// dumpStore opens the embedded store in dir and dumps its tables.
func dumpStore(t testing.TB, dir string) map[string]string {
	t.Helper()
	tables, err := sink.Open(sink.Config{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	return dumpTables(t, tables)
}

// diffTables reports the first difference between two table dumps.
func diffTables(t testing.TB, want, got map[string]string, wantName, gotName string) {
	t.Helper()
	for name, w := range want {
		g := got[name]
		if w == g {
			continue
		}
		wl, gl := bytes.Split([]byte(w), []byte("\n")), bytes.Split([]byte(g), []byte("\n"))
		for i := 0; i < len(wl) || i < len(gl); i++ {
			var a, b []byte
			if i < len(wl) {
				a = wl[i]
			}
			if i < len(gl) {
				b = gl[i]
			}
			if !bytes.Equal(a, b) {
				t.Errorf("table %s differs at row %d (%s has %d rows, %s has %d):\n%s: %.300s\n%s: %.300s",
					name, i+1, wantName, len(wl)-1, gotName, len(gl)-1, wantName, a, gotName, b)
				break
			}
		}
	}
}

// storeReader returns a func that opens the embedded store in dir as a
// sink.Reader, with the func that closes it (the checks' reader).
func storeReader(t *testing.T, dir string) func() (sink.Reader, func()) {
	return func() (sink.Reader, func()) {
		s, err := sink.Open(sink.Config{Store: dir})
		if err != nil {
			t.Fatal(err)
		}
		return s, func() { s.Close() }
	}
}

// cassandraReader returns a func that opens a reader of the keyspace of
// cfg, with the func that closes it (the checks' reader).
func cassandraReader(t *testing.T, cfg *cassandraio.Config) func() (sink.Reader, func()) {
	return func() (sink.Reader, func()) {
		r, err := cassandraio.NewReader(*cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r, func() { r.Close() }
	}
}
