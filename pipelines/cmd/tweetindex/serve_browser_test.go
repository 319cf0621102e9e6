package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/serve"
)

// chromiumBinary returns the path of a Chromium (or Chrome) binary, or "".
func chromiumBinary() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromium runs headless Chromium on u with args (--dump-dom,
// --screenshot=FILE) and a budget of virtual time in which the page's
// requests are answered and its scripts run, and returns its stdout.
func chromium(t *testing.T, bin, u string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--hide-scrollbars", "--mute-audio", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=20000", "--run-all-compositor-stages-before-draw", "--window-size=1280,1500",
	}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, u)...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// attr returns the value of attribute name of the element with id in a
// dumped DOM ("" if either is missing).
func attr(dom, id, name string) string {
	tag := regexp.MustCompile(`<[a-z0-9]+ [^>]*\bid="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(dom)
	m := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

// artifactDir is where the screenshots go: $TWEETINDEX_ARTIFACTS if set
// (kept), else the test's temporary directory.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("TWEETINDEX_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// TestServePageInChromium loads the web page of serve, on the committed
// sample, in headless Chromium and checks what it rendered against the
// API's answers: the count, a line per language of the series, a point on
// the map per geotagged tweet, the top hashtags (those of /api/top, in its
// order) and users, a page of tweets (and the same with a search in the
// page's URL); it keeps a screenshot of each.
func TestServePageInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs headless Chromium; make test runs it")
	}
	bin := chromiumBinary()
	if bin == "" {
		t.Skip("no chromium binary found: apt-get install chromium")
	}
	store, _ := indexedSample(t)
	base := startServe(t, store, serve.Config{})
	rows := func(a question) []map[string]any {
		out, _, err := a.with("format=jsonl").cli(store)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		var rs []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l == "" {
				continue
			}
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		return rs
	}
	withPoint := func(rs []map[string]any) int {
		n := 0
		for _, r := range rs {
			if r["lat"] != nil {
				n++
			}
		}
		return n
	}
	langsOf := func(rs []map[string]any) int {
		seen := map[any]bool{}
		for _, r := range rs {
			seen[r["lang"]] = true
		}
		return min(len(seen), 7) // six lines and "other" past seven
	}
	total := rows(question{"count", nil})[0]["tweets"].(float64)
	hours := len(rows(question{"series", []string{"by=hour"}}))
	step := "hour"
	if hours <= 6 {
		step = "minute"
	}
	series := rows(question{"series", []string{"by=" + step, "by-lang=true"}})
	steps := len(rows(question{"series", []string{"by=" + step}}))
	dir := artifactDir(t)
	// The panel's hashtags are /api/top's, asked over HTTP as the page asks.
	topTags := apiTerms(t, base+"/api/top?field=hashtag&limit=10")
	if len(topTags) < 5 {
		t.Fatalf("/api/top gives %q: nothing to see", topTags)
	}

	for _, view := range []struct {
		name, query       string
		markers, tweets   int
		users, langs      int
		steps             int
		title, totalValue string
	}{
		{"range", "", withPoint(rows(question{"geo", []string{"bbox=-180,-90,180,90", "places=true", "limit=1000"}})),
			len(rows(question{"tweets", []string{"limit=20"}})), len(rows(question{"users", []string{"top=10"}})), langsOf(series), steps,
			"Tweets of the range", strconv.Itoa(int(total))},
		{"search", "?q=" + url.QueryEscape("rt,#bigdata") + "&op=or", withPoint(rows(question{"terms", []string{"or=rt,#bigdata", "limit=1000"}})),
			len(rows(question{"terms", []string{"or=rt,#bigdata", "limit=20"}})), len(rows(question{"users", []string{"top=10"}})), langsOf(series), steps,
			"Tweets of the search", strconv.Itoa(int(total))},
		{"phrase", "?q=" + url.QueryEscape(`"home goal", weather`) + "&op=or", withPoint(rows(question{"terms", []string{"phrase=home goal", "or=weather", "limit=1000"}})),
			len(rows(question{"terms", []string{"phrase=home goal", "or=weather", "limit=20"}})), len(rows(question{"users", []string{"top=10"}})), langsOf(series), steps,
			"Tweets of the search", strconv.Itoa(int(total))},
	} {
		if view.markers == 0 || view.tweets == 0 || view.users == 0 || view.langs < 2 {
			t.Fatalf("%s: the sample gives %+v: nothing to see", view.name, view)
		}
		dom := chromium(t, bin, base+"/"+view.query, "--dump-dom")
		got := map[string]string{
			"state":    "",
			"total":    attr(dom, "total", "data-value"),
			"steps":    attr(dom, "series", "data-points"),
			"langs":    attr(dom, "series", "data-langs"),
			"markers":  attr(dom, "map", "data-markers"),
			"users":    attr(dom, "users", "data-rows"),
			"tags":     attr(dom, "hashtags", "data-rows"),
			"termdays": attr(dom, "top-note", "data-termdays"),
			"tweets":   attr(dom, "tweets", "data-rows"),
			"coverage": attr(dom, "coverage", "data-status"),
		}
		if m := regexp.MustCompile(`<body[^>]*data-state="([a-z]+)"`).FindStringSubmatch(dom); m != nil {
			got["state"] = m[1]
		}
		want := map[string]string{
			"state": "ready", "total": view.totalValue, "steps": strconv.Itoa(view.steps), "langs": strconv.Itoa(view.langs),
			"markers": strconv.Itoa(view.markers), "users": strconv.Itoa(view.users), "tweets": strconv.Itoa(view.tweets),
			"tags": strconv.Itoa(len(topTags)), "termdays": "yes", "coverage": "covered",
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s view: %s is %q, want %q (the API's)", view.name, k, got[k], w)
			}
		}
		if !strings.Contains(dom, view.title) || strings.Count(dom, "<polyline") != view.langs || strings.Count(dom, "leaflet-interactive") < view.markers {
			t.Errorf("%s view: title %q, %d lines, %d interactive paths in the DOM", view.name, view.title, strings.Count(dom, "<polyline"), strings.Count(dom, "leaflet-interactive"))
		}
		if got := renderedHashtags(dom); !slices.Equal(got, topTags) {
			t.Errorf("%s view: the panel lists the hashtags %q, the API's top %q", view.name, got, topTags)
		}
		// A hashtag is a link to its search (a click runs it in place).
		if m := regexp.MustCompile(`<a href="([^"]*)" class="hashtag">`).FindStringSubmatch(dom); m == nil || html.UnescapeString(m[1]) != "?q="+url.QueryEscape(topTags[0]) {
			t.Errorf("%s view: the first hashtag links to %q, want ?q=%s", view.name, m, url.QueryEscape(topTags[0]))
		}
		if t.Failed() {
			t.Logf("status line: %q", regexp.MustCompile(`<p id="status"[^>]*>([^<]*)<`).FindString(dom))
		}
		shot := filepath.Join(dir, fmt.Sprintf("serve-page-%s.png", view.name))
		chromium(t, bin, base+"/"+view.query, "--screenshot="+shot)
		if fi, err := os.Stat(shot); err != nil || fi.Size() < 10<<10 {
			t.Errorf("screenshot %s: %v", shot, err)
		} else {
			t.Logf("screenshot: %s", shot)
		}
	}
	// A range wider than what was indexed: the page says, in one line,
	// which parts of it no run read.
	dom := chromium(t, bin, base+"/?from=2026-11-01T10:00&to=2026-11-01T16:00", "--dump-dom")
	want := "Not all of the range is indexed: 2026-11-01T10:00Z to 2026-11-01T12:00Z missing, 2026-11-01T15:00Z to 2026-11-01T16:00Z missing."
	if st := attr(dom, "coverage", "data-status"); st != "partial" || !strings.Contains(dom, want) {
		t.Errorf("a range beyond the data: coverage %q, notice %q; want partial and %q", st, regexp.MustCompile(`<p id="coverage"[^>]*>[^<]*<`).FindString(dom), want)
	}
}

// apiTerms returns the terms of an answer of top (jsonl) at u.
func apiTerms(t *testing.T, u string) []string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", u, resp.Status)
	}
	var terms []string
	dec := json.NewDecoder(resp.Body)
	for {
		var r struct{ Term string }
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		terms = append(terms, r.Term)
	}
	return terms
}

// renderedHashtags returns the hashtags listed in the top panel of a
// dumped DOM, in order.
func renderedHashtags(dom string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<a [^>]*class="hashtag"[^>]*>([^<]*)</a>`).FindAllStringSubmatch(dom, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// TestServePageWithoutTermDays: on a store indexed with --term-days=false,
// the top panel says so in one line (and lists no hashtags), and the rest
// of the page, the top users included, renders as usual.
func TestServePageWithoutTermDays(t *testing.T) {
	if testing.Short() {
		t.Skip("runs headless Chromium; make test runs it")
	}
	bin := chromiumBinary()
	if bin == "" {
		t.Skip("no chromium binary found: apt-get install chromium")
	}
	store := filepath.Join(t.TempDir(), "store")
	if _, err := job.Run(context.Background(), pipelines.Config{Input: "../../../testdata/sample/*", Store: store, NoTermDays: true}); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, store, serve.Config{})
	resp, err := http.Get(base + "/api/top?field=hashtag")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "--term-days") {
		t.Errorf("/api/top without per-day term counts: %s %s; want 409 saying --term-days", resp.Status, body)
	}
	dom := chromium(t, bin, base+"/", "--dump-dom")
	note := regexp.MustCompile(`<p id="top-note"[^>]*>([^<]*)</p>`).FindStringSubmatch(dom)
	if note == nil || !strings.Contains(note[1], "indexed with --term-days=false") || strings.Contains(note[1], "\n") {
		t.Errorf("top note: %q", note)
	}
	state := regexp.MustCompile(`<body[^>]*data-state="([a-z]+)"`).FindStringSubmatch(dom)
	if state == nil || state[1] != "ready" || attr(dom, "top-note", "data-termdays") != "no" || attr(dom, "hashtags", "data-rows") != "0" || attr(dom, "users", "data-rows") != "10" {
		t.Errorf("state %q, termdays %q, hashtags %q, users %q", state, attr(dom, "top-note", "data-termdays"), attr(dom, "hashtags", "data-rows"), attr(dom, "users", "data-rows"))
	}
	shot := filepath.Join(artifactDir(t), "serve-page-no-term-days.png")
	chromium(t, bin, base+"/", "--screenshot="+shot)
	t.Logf("screenshot: %s", shot)
}
