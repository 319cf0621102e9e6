package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/serve"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/testdata/gen/tweetgen"
)

// startServe serves the questions of query on the store in dir, on a
// listener bound before the server starts (a request made meanwhile waits
// for it), until the test ends; it returns the server's base URL.
func startServe(t testing.TB, store string, cfg serve.Config, wrap ...func(net.Listener) net.Listener) string {
	t.Helper()
	sf := storeFlags(store)
	src, err := serve.OpenSource(context.Background(), serve.SourceConfig{
		Open:  func() (*sink.Sink, error) { return sf.openForQuery(0) },
		Store: store,
	})
	if err != nil {
		t.Fatal(err)
	}
	return serveSource(t, src, cfg, wrap...)
}

// serveSource serves the questions of query on src as startServe does,
// on a listener that wrap (if given) wraps; src is closed when the test
// ends.
func serveSource(t testing.TB, src *serve.Source, cfg serve.Config, wrap ...func(net.Listener) net.Listener) string {
	t.Helper()
	srv, err := serve.New(cfg, src, serveQuestions(), nil)
	if err != nil {
		src.Close()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		src.Close()
		t.Fatal(err)
	}
	for _, w := range wrap {
		ln = w(ln)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		src.Close()
	})
	return "http://" + ln.Addr().String()
}

// storeFlags are the flags of the store in dir, the others at their
// defaults.
func storeFlags(dir string) sinkFlags {
	var sf sinkFlags
	sf.register(flag.NewFlagSet("store", flag.ContinueOnError), false)
	sf.store = dir
	return sf
}

// question is a question and its flags, "name=value" (as a request's
// parameters; on the command line --name=value).
type question struct {
	question string
	params   []string
}

func (a question) String() string { return a.question + "?" + strings.Join(a.params, "&") }

func (a question) with(params ...string) question {
	return question{a.question, append(slices.Clip(a.params), params...)}
}

// cli answers a on the command line (queryMain, in this process).
func (a question) cli(store string) (stdout, stderr string, err error) {
	args := []string{a.question, "--store", store}
	for _, p := range a.params {
		args = append(args, "--"+p)
	}
	var out, errOut bytes.Buffer
	err = queryMain(args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// http answers a over HTTP from the server at base.
func (a question) http(t *testing.T, base string) (*http.Response, string) {
	t.Helper()
	v := url.Values{}
	for _, p := range a.params {
		name, value, _ := strings.Cut(p, "=")
		v.Add(name, value)
	}
	resp, err := http.Get(base + "/api/" + a.question + "?" + v.Encode())
	if err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", a, err)
	}
	return resp, string(body)
}

// formatsOf are the formats a question answers in over HTTP.
func formatsOf(question string) []string {
	switch question {
	case "geo", "tweets", "terms":
		return []string{"jsonl", "csv", "geojson"}
	}
	return []string{"jsonl", "csv"}
}

var cursorNote = regexp.MustCompile(`next page: --cursor ([0-9a-f]+)`)

// compareAnswers asks each of asks both ways, in every format the API
// answers in, and reports any difference: the answer's bytes, the next
// page's cursor, the notes. It returns how many answers held rows.
func compareAnswers(t *testing.T, base, store string, asks []question) int {
	t.Helper()
	nonEmpty := 0
	for _, a := range asks {
		for _, format := range formatsOf(a.question) {
			a := a.with("format=" + format)
			want, notes, err := a.cli(store)
			if err != nil {
				t.Errorf("%s on the command line: %v", a, err)
				continue
			}
			resp, got := a.http(t, base)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s over HTTP: %s %s", a, resp.Status, got)
				continue
			}
			if got != want {
				t.Errorf("%s: HTTP and the command line answer differently:\nHTTP:\n%s\ncommand line:\n%s", a, clip(got), clip(want))
				continue
			}
			if len(bytes.TrimSpace([]byte(got))) > 0 {
				nonEmpty++
			}
			wantCursor := ""
			if m := cursorNote.FindStringSubmatch(notes); m != nil {
				wantCursor = m[1]
			}
			if c := resp.Header.Get(serve.HeaderNextCursor); c != wantCursor {
				t.Errorf("%s: next cursor %q over HTTP, %q on the command line", a, c, wantCursor)
			}
			var wantNotes []string
			for _, l := range strings.Split(notes, "\n") {
				if n, ok := strings.CutPrefix(l, "note: "); ok {
					wantNotes = append(wantNotes, n)
				}
			}
			if gotNotes := resp.Header.Values(serve.HeaderNote); !slices.Equal(gotNotes, wantNotes) {
				t.Errorf("%s: notes %q over HTTP, %q on the command line", a, gotNotes, wantNotes)
			}
			if got, want := headerCoverageLine(t, resp.Header.Get(serve.HeaderCoverage)), cliCoverageLine(notes); got != want {
				t.Errorf("%s: coverage over HTTP says %q, the command line %q", a, got, want)
			}
		}
	}
	return nonEmpty
}

// comparePages pages through each retrieval of asks over HTTP (limit
// tweets a page, following the cursor header) and compares the pages,
// put together, with the whole answer on the command line.
func comparePages(t *testing.T, base, store string, limit int, asks []question) {
	t.Helper()
	for _, a := range asks {
		want, _, err := a.with("format=jsonl").cli(store)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		var got strings.Builder
		cursor, pages := "", 0
		for {
			p := a.with("format=jsonl", "limit="+strconv.Itoa(limit))
			if cursor != "" {
				p = p.with("cursor=" + cursor)
			}
			resp, body := p.http(t, base)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %s %s", p, resp.Status, body)
			}
			got.WriteString(body)
			pages++
			next := resp.Header.Get(serve.HeaderNextCursor)
			if next == "" {
				break
			}
			if last := lastRowKey(t, body); next != last {
				t.Fatalf("%s: cursor %s is not the page's last row key %s", p, next, last)
			}
			if pages > 10_000 {
				t.Fatalf("%s: more than 10,000 pages", a)
			}
			cursor = next
		}
		if got.String() != want {
			t.Errorf("%s: %d pages of %d over HTTP differ from the whole answer:\npages:\n%s\nwhole:\n%s", a, pages, limit, clip(got.String()), clip(want))
		}
		if n := strings.Count(want, "\n"); n > limit && pages < 2 {
			t.Errorf("%s: %d tweets came in %d page of %d", a, n, pages, limit)
		}
	}
}

// lastRowKey returns the row_key of the last line of a jsonl page.
func lastRowKey(t *testing.T, body string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(body), "\n")
	var row struct {
		RowKey string `json:"row_key"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &row); err != nil {
		t.Fatalf("a page's last line: %v", err)
	}
	return row.RowKey
}

func clip(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "..."
	}
	return s
}

// sampleAsks are questions of the committed sample: every question, with
// and without their flags.
var sampleAsks = []question{
	{"count", nil},
	{"count", []string{"lang=en"}},
	{"count", []string{"lang=EN"}}, // empty, with a note naming the tags
	{"count", []string{"from=2026-11-01T12:00:15Z", "to=2026-11-01T12:07:45Z"}},
	{"count-geo", nil},
	{"count-geo", []string{"bbox=130,30,145,40"}},
	{"count-geo", []string{"bbox=130,30,145,40", "places=true"}},
	{"count-geo", []string{"bbox=-180,-90,180,90", "exact=false", "lang=ja"}},
	{"series", nil},
	{"series", []string{"by=minute", "from=2026-11-01T12:00", "to=2026-11-01T12:10"}},
	{"series", []string{"by=minute", "by-lang=true"}},
	{"series", []string{"by=day", "lang=en"}},
	{"count-term", []string{"term=#bigdata"}},
	{"count-term", []string{"term=weather", "from=2026-11-01T12:00", "to=2026-11-01T13:00"}},
	{"count-term", []string{"term=x"}}, // tokenizes to nothing: a note
	{"geo", []string{"bbox=130,30,145,40"}},
	{"geo", []string{"bbox=-180,-90,180,90", "places=true"}},
	{"geo", []string{"bbox=-180,-90,180,90", "limit=5"}},
	{"tweets", []string{"from=2026-11-01T12:00", "to=2026-11-01T12:05"}},
	{"tweets", []string{"limit=7"}},
	{"tweets", []string{"lang=ja", "limit=3"}},
	{"terms", []string{"and=rt,#bigdata"}},
	{"terms", []string{"or=weather,#bigdata", "limit=4"}},
	{"terms", []string{"term=weather", "from=2026-11-01T12:00", "to=2026-11-01T13:00"}},
	{"export", []string{"from=2026-11-01T12:00", "to=2026-11-01T13:00"}},
	{"export", nil},
	{"users", nil},
	{"users", []string{"top=5"}},
	{"users", []string{"top=3", "lang=en"}},
	{"edges", []string{"type=retweet"}},
	{"edges", []string{"type=hashtag", "top=5"}},
	{"edges", []string{"type=mention", "node=chlo_161", "from=2026-11-01T12:00", "to=2026-11-01T14:00"}},
	{"heatmap", nil},
	{"heatmap", []string{"precision=2", "places=true"}},
	{"heatmap", []string{"bbox=130,30,145,40", "precision=5", "lang=ja"}},
	{"top", nil},
	{"top", []string{"field=text", "limit=5", "lang=en", "from=2026-11-01T12:00", "to=2026-11-01T14:00"}},
	{"complete", []string{"prefix=#ap"}},
	{"complete", []string{"prefix=w", "field=user", "limit=3"}},
	{"trending", []string{"from=2026-11-01", "to=2026-11-02"}},
	{"terms", []string{"term=#big*", "limit=4"}},
	{"terms", []string{"phrase=home goal"}},
	{"terms", []string{"phrase=#BigData rain", "term=rt"}},
	{"terms", []string{"phrase=東京タワー", "limit=2"}},
	{"terms", []string{"phrase=Amazing, at", "or=weather,#bigdata", "limit=4"}},
}

// TestServeAnswersAsQuery asks every question of the committed sample both
// ways, on the command line and over HTTP, in every format the API
// answers in, and compares the answers byte for byte, the next page's
// cursor and the notes; then pages through the retrievals over HTTP and
// compares the pages with the whole answer.
func TestServeAnswersAsQuery(t *testing.T) {
	store, _ := indexedSample(t)
	base := startServe(t, store, serve.Config{})
	questions := map[string]bool{}
	for _, a := range sampleAsks {
		questions[a.question] = true
	}
	for _, q := range serveQuestions() {
		if !questions[q.Name] {
			t.Errorf("question %s is served but not asked here", q.Name)
		}
	}
	if n := compareAnswers(t, base, store, sampleAsks); n < len(sampleAsks) {
		t.Errorf("only %d answers of %d held rows", n, len(sampleAsks))
	}
	comparePages(t, base, store, 7, []question{
		{"tweets", nil},
		{"geo", []string{"bbox=-180,-90,180,90", "places=true"}},
		{"terms", []string{"or=rt,#bigdata"}},
		{"terms", []string{"phrase=home goal", "or=#bigdata"}},
	})
}

// TestServeAnswersAsQueryOnGeneratedData does the same on generated tweets
// over two days, asking of terms, users and boxes found in the data.
func TestServeAnswersAsQueryOnGeneratedData(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := tweetgen.WriteBench(context.Background(), tweetgen.BenchConfig{N: 4000, Seed: 4343, Span: 48 * time.Hour, Out: filepath.Join(dir, "in")}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "in", "EXPECTED.json"))
	store := filepath.Join(dir, "store")
	if _, err := job.Run(context.Background(), pipelines.Config{Input: filepath.Join(dir, "in"), Store: store}); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, store, serve.Config{})
	from, to := "2026-11-01T18:30:20Z", "2026-11-02T07:10:40Z"

	// Terms, users and points of the data.
	var words, users, phrases []string
	_, body := question{"tweets", []string{"format=jsonl", "limit=60"}}.http(t, base)
	var points [][2]float64
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		var row struct {
			User     string
			Text     string
			Lat, Lon *float64
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(row.Text)
		for i, w := range fields {
			if len(w) >= 5 && !strings.ContainsAny(w, "/:@") && len(words) < 6 {
				words = append(words, w)
			}
			if i > 0 && len(phrases) < 4 && plainWord(fields[i-1]) && plainWord(w) {
				phrases = append(phrases, fields[i-1]+" "+w)
			}
		}
		if row.User != "" && len(users) < 3 {
			users = append(users, row.User)
		}
	}
	_, body = question{"geo", []string{"format=jsonl", "bbox=-180,-90,180,90", "places=true", "limit=4"}}.http(t, base)
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		var row struct{ Lat, Lon float64 }
		if err := json.Unmarshal([]byte(l), &row); err == nil {
			points = append(points, [2]float64{row.Lat, row.Lon})
		}
	}
	if len(words) < 4 || len(users) < 2 || len(points) < 2 || len(phrases) < 4 {
		t.Fatalf("the data gave words %q, users %q, points %v, phrases %q", words, users, points, phrases)
	}
	asks := []question{
		{"count", nil},
		{"count", []string{"from=" + from, "to=" + to, "lang=en"}},
		{"count-geo", []string{"from=" + from, "to=" + to}},
		{"series", []string{"by=hour", "by-lang=true"}},
		{"series", []string{"by=minute", "from=" + from, "to=2026-11-01T19:00:00Z"}},
		{"tweets", []string{"from=" + from, "to=2026-11-01T19:30:00Z"}},
		{"export", []string{"from=" + from, "to=2026-11-01T19:00:00Z"}},
		{"users", []string{"top=10"}},
		{"users", []string{"from=" + from, "to=" + to}},
	}
	for i, w := range words {
		asks = append(asks, question{"count-term", []string{"term=" + w}}, question{"terms", []string{"term=" + w, "limit=50"}})
		if i > 0 {
			asks = append(asks, question{"terms", []string{"and=" + words[i-1] + "," + w}}, question{"terms", []string{"or=" + words[i-1] + "," + w, "from=" + from, "to=" + to}})
		}
	}
	for i, p := range phrases {
		asks = append(asks, question{"terms", []string{"phrase=" + p}}, question{"terms", []string{"phrase=" + p, "or=" + words[i], "limit=30"}})
	}
	for _, u := range users {
		asks = append(asks, question{"count-term", []string{"term=" + u, "field=user"}}, question{"terms", []string{"term=" + u, "field=user"}})
	}
	for _, p := range points {
		box := fmt.Sprintf("bbox=%g,%g,%g,%g", p[1]-3, p[0]-2, p[1]+3, p[0]+2)
		asks = append(asks, question{"count-geo", []string{box, "places=true"}}, question{"geo", []string{box, "places=true"}}, question{"geo", []string{box, "from=" + from, "to=" + to}})
	}
	n := compareAnswers(t, base, store, asks)
	t.Logf("%d questions, each in every format; %d answers held rows (words %q, users %q, points %v, phrases %q)", len(asks), n, words, users, points, phrases)
	if n < len(asks) {
		t.Errorf("only %d answers held rows", n)
	}
	comparePages(t, base, store, 50, []question{
		{"tweets", []string{"from=" + from, "to=2026-11-01T21:00:00Z"}},
		{"terms", []string{"or=" + words[0] + "," + words[1]}},
		{"terms", []string{"phrase=" + phrases[0], "or=" + words[0] + "," + words[1]}},
	})
}

// plainWord reports whether w is a word of a few ASCII letters, maybe
// with punctuation after them: two such words in a row are a phrase of
// the text.
func plainWord(w string) bool {
	w = strings.TrimRight(w, ".,!?")
	if len(w) < 3 {
		return false
	}
	for _, c := range w {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// TestServeErrorsAsQuery: a wrong parameter is a 400 whose message is the
// command line's for the same flag; what only the command line may choose
// (the tables, a file to write) and an unknown question are refused.
func TestServeErrorsAsQuery(t *testing.T) {
	store, _ := indexedSample(t)
	base := startServe(t, store, serve.Config{})
	for _, a := range []question{
		{"count", []string{"from=yesterday"}},
		{"count", []string{"from=2026-11-02", "to=2026-11-01"}},
		{"count", []string{"limt=3"}},
		{"count", []string{"limit=3"}},
		{"count", []string{"lang=en", "lang=ja"}},
		{"count", []string{"format=xml"}},
		{"count-geo", []string{"bbox=1,2,3"}},
		{"series", []string{"by=week"}},
		{"count-term", nil},
		{"count-term", []string{"term=a", "field=body"}},
		{"geo", nil},
		{"geo", []string{"bbox=130,30,145,40", "limit=-1"}},
		{"tweets", []string{"cursor=zz"}},
		{"tweets", []string{"limit=many"}},
		{"tweets", []string{"exact=maybe"}},
		{"terms", []string{"term=a", "and=b,c"}},
		{"users", []string{"top=-2"}},
		{"series", []string{"by-lang=perhaps"}},
	} {
		_, _, cliErr := a.cli(store)
		if cliErr == nil {
			t.Errorf("%s: the command line took it", a)
			continue
		}
		resp, body := a.http(t, base)
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(body), &e); err != nil || resp.StatusCode != http.StatusBadRequest || e.Error != cliErr.Error() {
			t.Errorf("%s: %s %s; want 400 {\"error\":%q}", a, resp.Status, body, cliErr.Error())
		}
	}
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/api/count?store=/tmp/other", 400, "store is not a parameter of the API"},
		{"/api/count?cassandra=db1", 400, "cassandra is not a parameter of the API"},
		{"/api/series?chart=/tmp/x.svg", 400, "chart is not a parameter of the API"},
		{"/api/geo?bbox=1,2,3,4&parallel=1000", 400, "parallel is not a parameter of the API"},
		{"/api/count?format=table", 400, "--format table is for the terminal"},
		{"/api/bench", 404, `unknown question "bench"`},
		{"/api/cuont", 404, `unknown question "cuont"`},
		{"/api/count?" + strings.Repeat("a", 9000), 414, "the query string is 9000 bytes"},
		{"/api/count?a=%zz", 400, "the query string"},
	} {
		resp, err := http.Get(base + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct{ Error string }
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != c.code || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %s %s; want %d and %q", clip(c.path), resp.Status, body, c.code, c.want)
		}
	}
}

// TestServeMetricsAndDescription: /metrics counts each request by question
// and status, with a latency histogram per question; /openapi.json
// describes every question and its parameters; /healthz says what the
// answers come from.
func TestServeMetricsAndDescription(t *testing.T) {
	store, _ := indexedSample(t)
	base := startServe(t, store, serve.Config{})
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for range 3 {
		get("/api/count")
	}
	get("/api/count?by=minute")
	get("/api/tweets?limit=2")
	_, m := get("/metrics")
	for _, want := range []string{
		`tweetindex_http_requests_total{question="count",code="200"} 3`,
		`tweetindex_http_requests_total{question="count",code="400"} 1`,
		`tweetindex_http_requests_total{question="tweets",code="200"} 1`,
		`tweetindex_http_request_duration_seconds_count{question="count"} 4`,
		`tweetindex_http_request_duration_seconds_bucket{question="count",le="+Inf"} 4`,
		`tweetindex_http_request_duration_seconds_count{question="tweets"} 1`,
		"# TYPE tweetindex_http_request_duration_seconds histogram",
		"tweetindex_http_in_flight 0",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, m)
		}
	}
	// Buckets are cumulative: each at least the one before.
	prev := int64(-1)
	sc := bufio.NewScanner(strings.NewReader(m))
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, `tweetindex_http_request_duration_seconds_bucket{question="count"`) {
			n, _ := strconv.ParseInt(l[strings.LastIndexByte(l, ' ')+1:], 10, 64)
			if n < prev {
				t.Errorf("bucket %q below the one before (%d)", l, prev)
			}
			prev = n
		}
	}

	code, body := get("/openapi.json")
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]struct {
			Get struct {
				Parameters []struct{ Name string }
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || code != 200 || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("/openapi.json: %d %v %s", code, err, clip(body))
	}
	for _, qc := range questionCommands {
		p, ok := doc.Paths["/api/"+qc.name]
		if qc.name == "bench" {
			if ok {
				t.Errorf("/openapi.json describes bench, which is not served")
			}
			continue
		}
		if !ok {
			t.Errorf("/openapi.json lacks /api/%s", qc.name)
			continue
		}
		var names []string
		for _, prm := range p.Get.Parameters {
			names = append(names, prm.Name)
		}
		for _, want := range []string{"from", "to", "lang", "format"} {
			if !slices.Contains(names, want) {
				t.Errorf("/api/%s: parameters %v lack %s", qc.name, names, want)
			}
		}
		if slices.Contains(names, "store") || slices.Contains(names, "chart") {
			t.Errorf("/api/%s: parameters %v name the server's own flags", qc.name, names)
		}
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"status":"ok"`) || !strings.Contains(body, `"tables":"store"`) {
		t.Errorf("/healthz: %d %s", code, body)
	}
}

// TestServeShutsDownAfterAnswers: a request under way when the server is
// told to stop gets its whole answer; the server then stops listening.
func TestServeShutsDownAfterAnswers(t *testing.T) {
	store, _ := indexedSample(t)
	want, _, err := question{"export", nil}.cli(store)
	if err != nil || len(want) < 256<<10 {
		t.Fatalf("the sample's export: %d bytes, %v; want one longer than the server holds before sending", len(want), err)
	}
	sf := storeFlags(store)
	src, err := serve.OpenSource(context.Background(), serve.SourceConfig{Open: func() (*sink.Sink, error) { return sf.openForQuery(0) }, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	srv, err := serve.New(serve.Config{}, src, serveQuestions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	resp, err := http.Get(base + "/api/export")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, first); err != nil { // the answer is under way
		t.Fatal(err)
	}
	cancel()
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("the answer under way at shutdown: %v", err)
	}
	if got := string(first) + string(rest); got != want {
		t.Errorf("the answer under way at shutdown: %d bytes, want the export's %d", len(got), len(want))
	}
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Errorf("the server still answers after it stopped")
	}
}

// TestServeConcurrentQuestions asks questions from many clients at once
// and checks each answer against the same question asked alone: one
// engine answers them all.
func TestServeConcurrentQuestions(t *testing.T) {
	store, _ := indexedSample(t)
	base := startServe(t, store, serve.Config{MaxInFlight: 4})
	asks := []question{
		{"count", []string{"lang=en"}},
		{"count-geo", []string{"bbox=130,30,145,40"}},
		{"series", []string{"by=minute", "by-lang=true"}},
		{"terms", []string{"or=rt,#bigdata"}},
		{"geo", []string{"bbox=-180,-90,180,90", "places=true"}},
		{"users", []string{"top=5"}},
	}
	want := make([]string, len(asks))
	for i, a := range asks {
		want[i], _, _ = a.with("format=jsonl").cli(store)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16*len(asks))
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range asks {
				j := (i + c) % len(asks)
				a := asks[j]
				v := url.Values{}
				for _, p := range a.params {
					name, value, _ := strings.Cut(p, "=")
					v.Add(name, value)
				}
				resp, err := http.Get(base + "/api/" + a.question + "?" + v.Encode())
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || string(body) != want[j] {
					errs <- fmt.Errorf("%s from client %d: %s, %v, %d bytes (want %d)", a, c, resp.Status, err, len(body), len(want[j]))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestServeCommandStopsOnSIGTERM runs tweetindex serve as a process on a
// store of its own, asks it a question, and stops it with SIGTERM: it
// exits 0 saying it stopped.
func TestServeCommandStopsOnSIGTERM(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	if code, _, errOut := runCLI(t, "index", "--input", "../../../testdata/sample/v1-stream-12a.jsonl", "--store", store); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}
	c := startCLI(t, "serve", "--store", store, "--addr", "127.0.0.1:0")
	serving := regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+/)`)
	var base string
	for deadline := time.Now().Add(60 * time.Second); base == ""; time.Sleep(50 * time.Millisecond) { // polling for the line that says it listens
		if m := serving.FindStringSubmatch(c.stderr.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) || c.cmd.ProcessState != nil {
			t.Fatalf("no line says where it serves: stderr %q", c.stderr.String())
		}
	}
	resp, err := http.Get(base + "api/count?format=csv")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "tweets\n53\n" {
		t.Errorf("count: %s %q, want 53 tweets", resp.Status, body)
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 30*time.Second); code != 0 || !strings.Contains(c.stderr.String(), "stopped") {
		t.Errorf("after SIGTERM: exit %d, stderr %q", code, c.stderr.String())
	}
}

// smallSendBuffers is a listener whose connections send through a small
// socket buffer, as over a slow network: an answer larger than the
// buffers blocks the server's writes until the client reads.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// askAndReadNothing asks the server at base for path over a connection
// with a 4 KB receive buffer and reads nothing of the answer (close the
// connection when done): an answer larger than the buffers stays under
// way, its writes blocked.
func askAndReadNothing(t *testing.T, base, path string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return errors.Join(err, serr)
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: tweetindex\r\n\r\n", path); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn
}

// inFlight returns the server's tweetindex_http_in_flight gauge: the
// questions being answered.
func inFlight(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^tweetindex_http_in_flight (\d+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("/metrics has no tweetindex_http_in_flight:\n%s", b)
	}
	return string(m[1])
}

// TestServeClientThatDoesNotRead: a client that asks for an export and
// reads nothing holds the server's one slot only until its writes time
// out (a little after --timeout): then the answer ends, the slot is free
// and the next question is answered.
func TestServeClientThatDoesNotRead(t *testing.T) {
	store, _ := indexedSample(t)
	base := startServe(t, store, serve.Config{Timeout: 300 * time.Millisecond, MaxInFlight: 1},
		func(ln net.Listener) net.Listener { return smallSendBuffers{ln} })

	conn := askAndReadNothing(t, base, "/api/export")
	defer conn.Close()
	// The export holds the slot, then lets it go: the in-flight gauge
	// goes to 1, then back to 0, without the client reading a byte.
	deadline := time.Now().Add(30 * time.Second)
	for _, want := range []string{"1", "0"} {
		for inFlight(t, base) != want {
			if time.Now().After(deadline) {
				t.Fatalf("the export of a client that reads nothing: in flight %s, want %s within 30 s (it holds the slot)", inFlight(t, base), want)
			}
			time.Sleep(10 * time.Millisecond) // polling the gauge
		}
	}
	resp, err := http.Get(base + "/api/count")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("count after the stalled export: %s, want 200 OK", resp.Status)
	}
}

// TestServeCassandraAnswersAsStore: serve --cassandra, on a keyspace of
// the committed sample (the CQL test server), answers every question as
// the command line answers it on a store of the same sample: the same
// bytes, cursors and notes.
func TestServeCassandraAnswersAsStore(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: indexes the sample into the CQL test server")
	}
	store, _ := indexedSample(t)
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var sf sinkFlags
	sf.register(flag.NewFlagSet("cassandra", flag.ContinueOnError), false)
	sf.cassandra, sf.keyspace = srv.Addr(), "tweetindex_serve"
	cfg := sf.cassandraConfig()
	ctx := context.Background()
	if err := cassandraio.ApplySchema(ctx, *cfg, schemas.ReplicationOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(ctx, pipelines.Config{Input: "../../../testdata/sample/*", Cassandra: cfg}); err != nil {
		t.Fatal(err)
	}
	src, err := serve.OpenSource(ctx, serve.SourceConfig{Open: func() (*sink.Sink, error) { return sf.openForQuery(0) }})
	if err != nil {
		t.Fatal(err)
	}
	base := serveSource(t, src, serve.Config{})
	if n := compareAnswers(t, base, store, sampleAsks); n < len(sampleAsks) {
		t.Errorf("only %d answers of %d held rows", n, len(sampleAsks))
	}
}
