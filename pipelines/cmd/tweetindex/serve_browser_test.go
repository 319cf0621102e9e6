package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
// the map per geotagged tweet, the top users, a page of tweets (and the
// same with a search in the page's URL); it keeps a screenshot of each.
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
			"state":   "",
			"total":   attr(dom, "total", "data-value"),
			"steps":   attr(dom, "series", "data-points"),
			"langs":   attr(dom, "series", "data-langs"),
			"markers": attr(dom, "map", "data-markers"),
			"users":   attr(dom, "users", "data-rows"),
			"tweets":  attr(dom, "tweets", "data-rows"),
		}
		if m := regexp.MustCompile(`<body[^>]*data-state="([a-z]+)"`).FindStringSubmatch(dom); m != nil {
			got["state"] = m[1]
		}
		want := map[string]string{
			"state": "ready", "total": view.totalValue, "steps": strconv.Itoa(view.steps), "langs": strconv.Itoa(view.langs),
			"markers": strconv.Itoa(view.markers), "users": strconv.Itoa(view.users), "tweets": strconv.Itoa(view.tweets),
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s view: %s is %q, want %q (the API's)", view.name, k, got[k], w)
			}
		}
		if !strings.Contains(dom, view.title) || strings.Count(dom, "<polyline") != view.langs || strings.Count(dom, "leaflet-interactive") < view.markers {
			t.Errorf("%s view: title %q, %d lines, %d interactive paths in the DOM", view.name, view.title, strings.Count(dom, "<polyline"), strings.Count(dom, "leaflet-interactive"))
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
}
