package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// fakeSource is a Source over an engine that no question reads.
func fakeSource() *Source {
	return &Source{cur: &generation{engine: &query.Engine{}, refs: 1}}
}

// startFake serves qs on a pre-bound listener until the test ends.
func startFake(t *testing.T, cfg Config, qs ...Question) string {
	t.Helper()
	srv, err := New(cfg, fakeSource(), qs, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// writing is a question that writes n bytes of 'x' (1 KB at a time),
// then returns res and err.
func writing(name string, n int, res Result, err error) Question {
	return Question{Name: name, Formats: []string{"jsonl", "csv"}, Retrieval: true,
		Answer: func(_ context.Context, _ *query.Engine, _ url.Values, w io.Writer) (Result, error) {
			chunk := []byte(strings.Repeat("x", 1024))
			for left := n; left > 0; left -= len(chunk) {
				if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
					return Result{}, err
				}
			}
			return res, err
		}}
}

func get(t *testing.T, u string) (*http.Response, []byte, error) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// TestAnswerHeldOrStreamed: a short answer goes out whole, with its length
// and its cursor and notes as headers; a long one streams, and they come
// as trailers; a page (limit) is held up to a megabyte, its cursor a header.
func TestAnswerHeldOrStreamed(t *testing.T) {
	res := Result{NextCursor: "00ff", Notes: []string{"one", "two\nlines"}}
	base := startFake(t, Config{},
		writing("short", 1000, res, nil),
		writing("long", 300<<10, res, nil))
	resp, body, err := get(t, base+"/api/short")
	if err != nil || len(body) != 1000 || resp.ContentLength != 1000 || resp.Header.Get(HeaderNextCursor) != "00ff" ||
		strings.Join(resp.Header.Values(HeaderNote), "|") != "one|two lines" || resp.Header.Get("Content-Type") != contentTypes["jsonl"] {
		t.Errorf("short: %v, %d bytes, length %d, headers %v", err, len(body), resp.ContentLength, resp.Header)
	}
	resp, body, err = get(t, base+"/api/long?format=csv")
	if err != nil || len(body) != 300<<10 || resp.ContentLength != -1 || resp.Header.Get(HeaderNextCursor) != "" ||
		resp.Trailer.Get(HeaderNextCursor) != "00ff" || len(resp.Trailer.Values(HeaderNote)) != 2 || resp.Header.Get("Content-Type") != contentTypes["csv"] {
		t.Errorf("long: %v, %d bytes, length %d, headers %v, trailers %v", err, len(body), resp.ContentLength, resp.Header, resp.Trailer)
	}
	resp, body, err = get(t, base+"/api/long?limit=10")
	if err != nil || len(body) != 300<<10 || resp.Header.Get(HeaderNextCursor) != "00ff" {
		t.Errorf("long page: %v, %d bytes, headers %v", err, len(body), resp.Header)
	}
}

// TestAnswerErrors: a wrong parameter is 400, a failure 500, each with
// the message as JSON; an answer that fails once its first bytes are sent
// is cut, so that the client sees it end early; an answer not done within
// the timeout is 504.
func TestAnswerErrors(t *testing.T) {
	slow := Question{Name: "slow", Formats: []string{"jsonl"}, Answer: func(ctx context.Context, _ *query.Engine, _ url.Values, _ io.Writer) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err()
	}}
	base := startFake(t, Config{Timeout: time.Second},
		writing("bad", 10, Result{}, BadRequest(errors.New("--limit -1: want 0 (all) or more"))),
		writing("fails", 10, Result{}, errors.New("reading raw: disk on fire")),
		writing("late", 300<<10, Result{}, errors.New("reading raw: disk on fire")),
		slow)
	for _, c := range []struct {
		path string
		code int
		msg  string
	}{
		{"/api/bad", 400, "--limit -1: want 0 (all) or more"},
		{"/api/fails", 500, "reading raw: disk on fire"},
		{"/api/slow", 504, "the answer took longer than 1s (--timeout): narrow the range or ask for a page (limit)"},
		{"/api/nothing", 404, `unknown question "nothing" (want bad, fails, late or slow; /openapi.json describes them)`},
	} {
		resp, body, err := get(t, base+c.path)
		var e errorBody
		if jerr := json.Unmarshal(body, &e); err != nil || jerr != nil || resp.StatusCode != c.code || e.Error != c.msg {
			t.Errorf("%s: %v %s %s; want %d %q", c.path, err, resp.Status, body, c.code, c.msg)
		}
	}
	resp, body, err := get(t, base+"/api/late")
	if resp.StatusCode != 200 || err == nil {
		t.Errorf("late: %s, %d bytes, %v; want 200 and an answer cut short", resp.Status, len(body), err)
	}
}

// TestBusyServerSaysSo: with every slot taken for longer than a request's
// timeout, the request is 503, and the one holding the slot is answered.
func TestBusyServerSaysSo(t *testing.T) {
	inside, release := make(chan struct{}), make(chan struct{})
	hold := Question{Name: "hold", Formats: []string{"jsonl"}, Answer: func(_ context.Context, _ *query.Engine, _ url.Values, w io.Writer) (Result, error) {
		close(inside)
		<-release
		_, err := io.WriteString(w, "{}\n")
		return Result{}, err
	}}
	other := writing("other", 10, Result{}, nil)
	base := startFake(t, Config{MaxInFlight: 1, Timeout: 300 * time.Millisecond}, hold, other)
	held := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/api/hold")
		if err != nil {
			held <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		held <- resp.Status + " " + string(b)
	}()
	<-inside
	resp, body, _ := get(t, base+"/api/other")
	if resp.StatusCode != 503 || !strings.Contains(string(body), "busy: 1 questions were being answered") {
		t.Errorf("while busy: %s %s", resp.Status, body)
	}
	close(release)
	if got := <-held; got != "200 OK {}\n" {
		t.Errorf("the request holding the slot: %q", got)
	}
}

// TestConfigValidate: each wrong setting is one line naming its flag.
func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{Addr: ":9000"}, ""},
		{Config{Addr: "localhost"}, `--addr "localhost": want host:port`},
		{Config{Timeout: -time.Second}, "--timeout -1s: want a positive duration"},
		{Config{MaxInFlight: -1}, "--max-inflight -1: want 1 or more"},
		{Config{Refresh: -1}, "--refresh -1ns"},
		{Config{Grace: -1}, "--grace -1ns"},
	} {
		err := c.cfg.Validate()
		if (c.want == "") != (err == nil) || (err != nil && (!strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n"))) {
			t.Errorf("%+v: %v; want %q", c.cfg, err, c.want)
		}
	}
}

// TestOpenAPIDescribesQuestions: the description is OpenAPI 3 JSON with a
// path per question, its parameters typed, and the formats it answers in.
func TestOpenAPIDescribesQuestions(t *testing.T) {
	q := writing("tweets", 1, Result{}, nil)
	q.Params = []Param{{Name: "limit", Type: "integer", Default: "0"}, {Name: "by-lang", Type: "boolean", Default: "false"}, {Name: "format", Type: "string"}}
	q.Coverage = func(context.Context, *query.Engine, url.Values) (*Coverage, error) { return nil, nil }
	b, err := openAPI([]Question{q})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string
		Paths   map[string]struct {
			Get struct {
				Parameters []struct {
					Name   string
					Schema struct {
						Type    string
						Default any
						Enum    []string
					}
				}
				Responses map[string]struct {
					Content map[string]any
					Headers map[string]any
				}
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Paths["/api/tweets"].Get
	if len(p.Parameters) != 3 || p.Parameters[0].Schema.Type != "integer" || p.Parameters[0].Schema.Default != 0.0 ||
		p.Parameters[1].Schema.Default != false || strings.Join(p.Parameters[2].Schema.Enum, ",") != "jsonl,csv" {
		t.Errorf("parameters: %+v", p.Parameters)
	}
	ok := p.Responses["200"]
	if ok.Content["application/x-ndjson"] == nil || ok.Content["text/csv"] == nil || ok.Headers[HeaderNextCursor] == nil || ok.Headers[HeaderCoverage] == nil {
		t.Errorf("200: %+v", ok)
	}
	if !strings.Contains(string(b), `"Coverage": {`) || !strings.Contains(string(b), `"spans"`) {
		t.Errorf("the description lacks the Coverage schema")
	}
	if doc.Paths["/healthz"].Get.Responses["503"].Content != nil || doc.Paths["/metrics"].Get.Responses == nil {
		t.Errorf("paths: %v", doc.Paths)
	}
}

// TestAnswerCoverageHeader: the coverage comes as a header before the
// first byte, of a short answer and of a long one that streams; a request
// whose parameters are wrong (no coverage) gets none; a coverage that
// cannot be read is a 500.
func TestAnswerCoverageHeader(t *testing.T) {
	c := &Coverage{From: "2026-11-01T00:00:00Z", To: "2026-11-02T00:00:00Z", Status: "partial", Spans: []CoverageSpan{
		{From: "2026-11-01T00:00:00Z", To: "2026-11-01T12:00:00Z", Status: "covered"},
		{From: "2026-11-01T12:00:00Z", To: "2026-11-02T00:00:00Z", Status: "missing"},
	}}
	covered := func(_ context.Context, _ *query.Engine, params url.Values) (*Coverage, error) {
		if params.Get("bad") != "" {
			return nil, nil
		}
		if params.Get("fail") != "" {
			return nil, errors.New("reading the run records: broken")
		}
		return c, nil
	}
	short, long := writing("short", 1000, Result{}, nil), writing("long", 300<<10, Result{}, nil)
	short.Coverage, long.Coverage = covered, covered
	base := startFake(t, Config{}, short, long)
	want, _ := json.Marshal(c)
	for _, q := range []string{"short", "long"} {
		resp, _, err := get(t, base+"/api/"+q)
		if err != nil || resp.Header.Get(HeaderCoverage) != string(want) {
			t.Errorf("%s: %v, %s %q, want %s", q, err, HeaderCoverage, resp.Header.Get(HeaderCoverage), want)
		}
	}
	if resp, _, _ := get(t, base+"/api/short?bad=1"); resp.Header.Get(HeaderCoverage) != "" {
		t.Errorf("no coverage: header %q", resp.Header.Get(HeaderCoverage))
	}
	if resp, body, _ := get(t, base+"/api/short?fail=1"); resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "broken") {
		t.Errorf("a coverage that cannot be read: %s %s", resp.Status, body)
	}
}
