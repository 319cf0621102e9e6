package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

var liveServingRE = regexp.MustCompile(`serving the stream's store live at (http://[^ /]+)/`)

// waitServing waits for the line of index --serve that gives its address
// and returns its base URL.
func (c *cli) waitServing(t *testing.T, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if m := liveServingRE.FindStringSubmatch(c.stderr.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-c.done:
			t.Fatalf("exited before serving (%v)\nstderr:\n%s", err, c.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("not serving after %v\nstderr:\n%s", timeout, c.stderr)
	return ""
}

// TestIndexServesLive: a stream with --serve answers over HTTP, from the
// store it is writing (no snapshot: --snapshots 0), a tweet produced to
// the broker while it runs: its retrieval by term, by time and by box, and
// its minute's count; /healthz says the tables are live. Once SIGTERM has
// stopped the stream and the server, query gives the same answers, byte
// for byte, from the store the stream left.
func TestIndexServesLive(t *testing.T) {
	if testing.Short() {
		t.Skip("streams from Kafka in another process; make test runs it")
	}
	addr, _ := streamSample(t, 20)
	store := t.TempDir() + "/store"
	c := startCLI(t, "index", "--kafka", addr, "--topic", "tweets", "--store", store, "--serve", "127.0.0.1:0",
		"--snapshots", "0", "--progress", "200ms", "--kafka-checkpoint", "200ms")
	base := c.waitServing(t, 60*time.Second)

	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Status, Tables string }
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if h.Status != "ok" || h.Tables != "live" {
		t.Errorf("/healthz: %+v, want ok and live", h)
	}

	// The probe: a tweet of now (the sample's are of 2026-11-01), with a
	// word and a point of its own.
	at := time.Now().UTC().Truncate(time.Second)
	const id = "7770000000000000001"
	probe := fmt.Sprintf(`{"created_at":%q,"id_str":%q,"text":"a live probe zqliveprobe #freshanswers","lang":"en","user":{"screen_name":"prober"},"coordinates":{"type":"Point","coordinates":[2.35,48.85]}}`,
		at.Format(time.RubyDate), id)
	kafkatest.Produce(t, addr, "tweets", 0, [][]byte{[]byte(probe)})
	sec := []string{"from=" + at.Format(time.RFC3339), "to=" + at.Add(time.Second).Format(time.RFC3339)}
	minute := []string{"from=" + at.Truncate(time.Minute).Format(time.RFC3339), "to=" + at.Truncate(time.Minute).Add(time.Minute).Format(time.RFC3339)}
	asks := []question{
		{"terms", append([]string{"term=zqliveprobe"}, sec...)},
		{"tweets", sec},
		{"geo", append([]string{"bbox=2,48,3,49"}, sec...)},
		{"count", minute},
	}
	// Each is asked until it holds the probe (the stream writes it
	// meanwhile), with a deadline.
	answers := map[string]string{}
	for _, a := range asks {
		a = a.with("format=jsonl")
		var body string
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) { // polling while the stream writes
			resp, b := a.http(t, base)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %s %s", a, resp.Status, b)
			}
			body = b
			if strings.Contains(body, id) || (a.question == "count" && strings.TrimSpace(body) == `{"tweets":1}`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no probe after 60 s: %q\nstream stderr:\n%s", a, body, c.stderr)
			}
		}
		answers[a.String()] = body
	}

	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("stream exit %d:\n%s", code, c.stderr)
	}
	if !strings.Contains(c.stderr.String(), "stopped serving") {
		t.Errorf("no 'stopped serving' line after SIGTERM:\n%s", c.stderr)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Errorf("%s still answers after the stream stopped", base)
	}
	for _, a := range asks {
		a = a.with("format=jsonl")
		want, _, err := a.cli(store)
		if err != nil {
			t.Fatalf("%s on the command line: %v", a, err)
		}
		if got := answers[a.String()]; got != want {
			t.Errorf("%s: the live answer differs from query's after the stream:\nlive:\n%s\nquery:\n%s", a, got, want)
		}
	}
	m := regexp.MustCompile(`indexed (\d+)`).FindStringSubmatch(c.stdout.String())
	if out, _, _ := (question{"count", nil}).with("format=jsonl").cli(store); m == nil || strings.TrimSpace(out) != `{"tweets":`+m[1]+`}` {
		t.Errorf("the store holds %s, the summary says %q", out, m)
	}
}

// TestIndexServeFlags: --serve is refused, in one line saying what to do,
// where there is no stream of the embedded store to serve.
func TestIndexServeFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--input", "x.jsonl", "--store", "s", "--serve", "127.0.0.1:0"}, "--serve needs a stream (--kafka"},
		{[]string{"--kafka", "127.0.0.1:1", "--topic", "t", "--stop", "latest", "--store", "s", "--serve", "127.0.0.1:0"}, "--serve needs a stream: a bounded Kafka read"},
		{[]string{"--kafka", "127.0.0.1:1", "--topic", "t", "--cassandra", "127.0.0.1:1", "--serve", "127.0.0.1:0"}, "--serve serves the embedded store"},
		{[]string{"--kafka", "127.0.0.1:1", "--topic", "t", "--store", "s", "--serve", "8080"}, `--serve "8080": want host:port`},
		{[]string{"--kafka", "127.0.0.1:1", "--topic", "t", "--store", "s", "--serve", "127.0.0.1:0", "--serve-refresh", "-1s"}, "--serve-refresh -1s"},
		{[]string{"--kafka", "127.0.0.1:1", "--topic", "t", "--store", "s", "--serve-refresh", "5s"}, "--serve-refresh without --serve"},
	} {
		code, _, stderr := runCLI(t, append([]string{"index"}, c.args...)...)
		first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
		if code != 2 || !strings.Contains(first, c.want) {
			t.Errorf("index %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
		if strings.Contains(stderr, "panic") {
			t.Errorf("index %s: %s", strings.Join(c.args, " "), stderr)
		}
	}
}

// TestLiveAnswerHeldOpenStallsNoWriter: a client asks the stream's live
// server for an export of every tweet and reads nothing, so that the
// answer stays under way (the in-flight gauge at 1), its reads open on
// the store the stream writes. Meanwhile a tweet produced to Kafka is
// written and answered: an answer held open stalls no writer.
func TestLiveAnswerHeldOpenStallsNoWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("streams from Kafka in another process; make test runs it")
	}
	// Enough tweets that their export (about 10 MB) fills both ends'
	// socket buffers, of one hour an hour ago.
	const n = 40000
	start := time.Now().UTC().Add(-time.Hour).Truncate(time.Hour)
	values := make([][]byte, n)
	for i := range values {
		values[i] = fmt.Appendf(nil, `{"created_at":%q,"id_str":"%d","text":"filler tweet %d of a held export, with words enough to weigh","lang":"en","user":{"screen_name":"filler%d"}}`,
			start.Add(time.Duration(i)*time.Hour/n).Format(time.RubyDate), 1210000000000000000+i, i, i%100)
	}
	addr := kafkatest.StartBroker(t, map[string]int{"tweets": 1})
	kafkatest.Produce(t, addr, "tweets", 0, values)
	store := t.TempDir() + "/store"
	c := startCLI(t, "index", "--kafka", addr, "--topic", "tweets", "--store", store, "--serve", "127.0.0.1:0",
		"--snapshots", "0", "--progress", "200ms", "--kafka-checkpoint", "200ms")
	base := c.waitServing(t, 60*time.Second)
	hour := []string{"from=" + start.Format(time.RFC3339), "to=" + start.Add(time.Hour).Format(time.RFC3339)}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) { // polling while the stream writes
		_, body := question{"count", hour}.with("format=jsonl").http(t, base)
		if strings.TrimSpace(body) == fmt.Sprintf(`{"tweets":%d}`, n) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("count of the hour after 60 s: %s, want %d\nstream stderr:\n%s", body, n, c.stderr)
		}
	}

	// The export, read by no one.
	conn := askAndReadNothing(t, base, "/api/export?"+strings.Join(hour, "&"))
	defer conn.Close()
	for deadline := time.Now().Add(30 * time.Second); inFlight(t, base) != "1"; time.Sleep(10 * time.Millisecond) { // polling the gauge
		if time.Now().After(deadline) {
			t.Fatalf("the export is not under way: in flight %s", inFlight(t, base))
		}
	}

	// A new tweet, written and answered while the export is held.
	at := time.Now().UTC().Truncate(time.Second)
	const id = "7770000000000000002"
	kafkatest.Produce(t, addr, "tweets", 0, [][]byte{fmt.Appendf(nil,
		`{"created_at":%q,"id_str":%q,"text":"zqheldprobe while an export is held","lang":"en","user":{"screen_name":"prober"}}`, at.Format(time.RubyDate), id)})
	probe := question{"terms", []string{"term=zqheldprobe", "from=" + at.Format(time.RFC3339), "to=" + at.Add(time.Second).Format(time.RFC3339)}}.with("format=jsonl")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) { // polling while the stream writes
		if _, body := probe.http(t, base); strings.Contains(body, id) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the probe is not answered within 30 s while an export is held\nstream stderr:\n%s", c.stderr)
		}
	}
	if got := inFlight(t, base); got != "1" {
		t.Errorf("in flight %s once the probe was answered, want the held export's 1 (it ended before the probe was written: the test shows nothing)", got)
	}
	conn.Close()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("stream exit %d:\n%s", code, c.stderr)
	}
}
