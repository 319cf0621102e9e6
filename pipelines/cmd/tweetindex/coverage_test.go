package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/pipelines/serve"
	"github.com/tweetindex/tweetindex/schemas"
)

// writeDay writes n v1.1 tweets spread over the day of start, the first
// at its start, the last 30 s before its end, ids from id0, into path.
func writeDay(t *testing.T, path string, start time.Time, n int, id0 int64) {
	t.Helper()
	var b bytes.Buffer
	step := (24*time.Hour - 30*time.Second) / time.Duration(n-1)
	for i := range n {
		fmt.Fprintf(&b, `{"created_at":%q,"id_str":"%d","text":"tweet %d of the day","lang":"en","user":{"screen_name":"u%d"}}`+"\n",
			start.Add(time.Duration(i)*step).Format(time.RubyDate), id0+int64(i), i, i%13)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// coverageOf returns the coverage line query count prints on stderr.
func coverageOf(t *testing.T, store string, flags ...string) string {
	t.Helper()
	_, errOut := ask(t, append([]string{"count", "--store", store, "--format", "csv"}, flags...)...)
	line := cliCoverageLine(errOut)
	if line == "" {
		t.Fatalf("count %v: no coverage line on stderr:\n%s", flags, errOut)
	}
	return line
}

// addRunRecord writes rec into the metadata table of store, as a run
// would (job.RunRecord under run/<start>).
func addRunRecord(t *testing.T, store string, rec any, started string) {
	t.Helper()
	v, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	if err := tables.Write(context.Background(), []schemas.Cell{schemas.MetaRow{Name: schemas.RunRecordPrefix + started, Value: v}.Cell()}); err != nil {
		t.Fatal(err)
	}
}

// TestAnswerCoverage: a store indexed in one run from two files of days
// apart. Each answer's coverage line says which parts of its range the
// runs read: the days between the files and after them are missing until
// a run given that range (a backfill's) covers them; a run recorded
// without what it read (as before such ranges were recorded) makes what no
// range covers unknown; an interrupted run's range is partial. The API's
// coverage header says the same.
func TestAnswerCoverage(t *testing.T) {
	dir := t.TempDir()
	nov := func(day int) time.Time { return time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC) }
	writeDay(t, filepath.Join(dir, "day1.jsonl"), nov(1), 480, 1e15)
	writeDay(t, filepath.Join(dir, "day4.jsonl"), nov(4), 480, 2e15)
	store := filepath.Join(dir, "store")
	if _, err := job.Run(context.Background(), pipelines.Config{Input: filepath.Join(dir, "day*.jsonl"), Store: store}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		setup func()
		flags []string
		want  string
	}{
		{"open range: the data's extent", nil, nil,
			"coverage: 2026-11-01T00:00Z..2026-11-05T00:00Z covered except 2026-11-02T00:00Z..2026-11-04T00:00Z missing"},
		{"over the gap and beyond", nil, []string{"--from", "2026-11-01T12:00", "--to", "2026-11-06"},
			"coverage: 2026-11-01T12:00Z..2026-11-06T00:00Z covered except 2026-11-02T00:00Z..2026-11-04T00:00Z missing, 2026-11-05T00:00Z..2026-11-06T00:00Z missing"},
		{"within a file's day", nil, []string{"--from", "2026-11-04T06:30:15", "--to", "2026-11-04T07:00"},
			"coverage: 2026-11-04T06:30:15Z..2026-11-04T07:00Z covered"},
		{"within the gap", nil, []string{"--from", "2026-11-02", "--to", "2026-11-03"},
			"coverage: 2026-11-02T00:00Z..2026-11-03T00:00Z missing"},
		{"a backfill's range covers the gap", func() {
			writeDay(t, filepath.Join(dir, "day2.jsonl"), nov(2), 48, 3e15)
			cfg := pipelines.Config{Input: filepath.Join(dir, "day2.jsonl"), Store: store, From: nov(2), To: nov(4)}
			if _, err := job.Run(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
		}, []string{"--from", "2026-11-01", "--to", "2026-11-06"},
			"coverage: 2026-11-01T00:00Z..2026-11-06T00:00Z covered except 2026-11-05T00:00Z..2026-11-06T00:00Z missing"},
		{"an interrupted run is partial", func() {
			addRunRecord(t, store, job.RunRecord{Source: "files:day5*", Started: "2026-11-20T10:00:00Z", Status: job.RunInterrupted,
				Seen: &job.Seen{Spans: []job.SeenSpan{{From: "2026-11-05T00:00:00Z", To: "2026-11-05T06:00:00Z"}}}}, "2026-11-20T10:00:00Z")
		}, []string{"--from", "2026-11-01", "--to", "2026-11-06"},
			"coverage: 2026-11-01T00:00Z..2026-11-06T00:00Z covered except 2026-11-05T00:00Z..2026-11-05T06:00Z partial (1 run failed or unfinished), 2026-11-05T06:00Z..2026-11-06T00:00Z missing"},
		{"an old record says nothing of what it read: unknown, not missing", func() {
			// A record as runs wrote them before they recorded what they read.
			addRunRecord(t, store, map[string]any{"source": "files:old/*", "started": "2026-11-21T10:00:00Z", "status": "succeeded",
				"summary": map[string]any{"read": 5, "indexed": 5, "rows": map[string]int{}}}, "2026-11-21T10:00:00Z")
		}, []string{"--from", "2026-11-03", "--to", "2026-11-07"},
			"coverage: 2026-11-03T00:00Z..2026-11-07T00:00Z covered except 2026-11-05T00:00Z..2026-11-05T06:00Z partial (1 run failed or unfinished), 2026-11-05T06:00Z..2026-11-07T00:00Z unknown"},
	}
	for _, st := range steps {
		if st.setup != nil {
			st.setup()
		}
		if got := coverageOf(t, store, st.flags...); got != st.want {
			t.Errorf("%s: count %v\ngot  %s\nwant %s", st.name, st.flags, got, st.want)
		}
	}
	// The API: the same coverage, as a header of JSON.
	base := startServe(t, store, serve.Config{})
	resp, err := http.Get(base + "/api/count?from=2026-11-01&to=2026-11-06")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var c serve.Coverage
	if err := json.Unmarshal([]byte(resp.Header.Get(serve.HeaderCoverage)), &c); err != nil {
		t.Fatalf("%s %q: %v", serve.HeaderCoverage, resp.Header.Get(serve.HeaderCoverage), err)
	}
	want := serve.Coverage{From: "2026-11-01T00:00:00Z", To: "2026-11-06T00:00:00Z", Status: "partial", Spans: []serve.CoverageSpan{
		{From: "2026-11-01T00:00:00Z", To: "2026-11-05T00:00:00Z", Status: "covered"},
		{From: "2026-11-05T00:00:00Z", To: "2026-11-05T06:00:00Z", Status: "partial", FailedRuns: 1},
		{From: "2026-11-05T06:00:00Z", To: "2026-11-06T00:00:00Z", Status: "unknown"},
	}}
	got, _ := json.Marshal(c)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(got, wantJSON) {
		t.Errorf("%s:\ngot  %s\nwant %s", serve.HeaderCoverage, got, wantJSON)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/api/count: %s", resp.Status)
	}
}

// cliCoverageLine returns the coverage line of a command's stderr.
func cliCoverageLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "coverage: ") {
			return l
		}
	}
	return ""
}

// headerCoverageLine renders the API's coverage header as the command
// line's coverage line.
func headerCoverageLine(t *testing.T, header string) string {
	t.Helper()
	var c serve.Coverage
	if err := json.Unmarshal([]byte(header), &c); err != nil {
		t.Errorf("%s %q: %v", serve.HeaderCoverage, header, err)
		return ""
	}
	if c.From == "" {
		return coverageLine(nil, time.Time{}, time.Time{}, false)
	}
	parse := func(s string) time.Time {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Errorf("%s: %q: %v", serve.HeaderCoverage, s, err)
		}
		return at
	}
	var spans []job.Span
	for _, s := range c.Spans {
		spans = append(spans, job.Span{From: parse(s.From), To: parse(s.To), Status: s.Status, Failed: s.FailedRuns})
	}
	return coverageLine(spans, parse(c.From), parse(c.To), true)
}

// BenchmarkAnswerCoverage times what coverage adds to an answer
// (answerCoverage and its line) on the sample's store, with the sample's
// one run record and with 1,000 more (a daily backfill for three years):
//
//	go test -run '^$' -bench AnswerCoverage ./pipelines/cmd/tweetindex/
func BenchmarkAnswerCoverage(b *testing.B) {
	store := filepath.Join(b.TempDir(), "store")
	if _, err := job.Run(context.Background(), pipelines.Config{Input: "../../../testdata/sample/*", Store: store}); err != nil {
		b.Fatal(err)
	}
	bench := func(runs func(context.Context, *query.Engine) ([]job.RunRecord, error)) func(*testing.B) {
		return func(b *testing.B) {
			benchCoverage(b, store, runs)
		}
	}
	b.Run("runs=1", bench(nil))
	day := time.Date(2023, 11, 1, 0, 0, 0, 0, time.UTC)
	var cells []schemas.Cell
	for i := range 1000 {
		started := day.AddDate(0, 0, i+1).Format(time.RFC3339Nano)
		v, _ := json.Marshal(job.RunRecord{Source: "root", Started: started, Status: job.RunSucceeded,
			From: day.AddDate(0, 0, i).Format(time.RFC3339), To: day.AddDate(0, 0, i+1).Format(time.RFC3339),
			Summary: &job.Summary{Read: 1000, Indexed: 1000, Rows: map[string]int64{"raw": 1000}}})
		cells = append(cells, schemas.MetaRow{Name: schemas.RunRecordPrefix + started, Value: v}.Cell())
	}
	tables, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	if err := tables.Write(context.Background(), cells); err != nil {
		b.Fatal(err)
	}
	tables.Close()
	b.Run("runs=1001", bench(nil))
	b.Run("runs=1001-served", bench((&runsCache{}).read)) // serve: read once a view
}

// benchCoverage times answerCoverage and its line on store, the run
// records read by runs.
func benchCoverage(b *testing.B, store string, runs func(context.Context, *query.Engine) ([]job.RunRecord, error)) {
	sf := storeFlags(store)
	s, err := sf.openForQuery(0)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	e := &query.Engine{R: s.Reader}
	for b.Loop() {
		spans, from, to, ok, err := answerCoverage(context.Background(), e, query.Filter{}, runs)
		if err != nil || !ok {
			b.Fatal(err)
		}
		if coverageLine(spans, from, to, ok) == "" {
			b.Fatal("no line")
		}
	}
}
