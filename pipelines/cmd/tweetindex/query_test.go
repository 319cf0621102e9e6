package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
)

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(cliArgsEnv); ok {
		// Started by runCLI: be the command, with these arguments or, from
		// startCLIArgv, those of the command line.
		if args == cliArgv {
			os.Args = append([]string{"tweetindex"}, os.Args[1:]...)
		} else {
			os.Args = append([]string{"tweetindex"}, strings.Split(args, "\x1f")...)
		}
		if stage := os.Getenv(crashEnv); stage != "" {
			// Crash there: exit before that ingestion of the bulk load's end.
			storeio.BeforeIngest = func(at string) {
				if at == stage {
					os.Exit(crashExit)
				}
			}
		}
		main()
		os.Exit(0)
	}
	code := ptest.MainRet(m)
	if sampleStore != "" {
		os.RemoveAll(filepath.Dir(sampleStore))
	}
	os.Exit(code)
}

var (
	sampleOnce  sync.Once
	sampleStore string
	sampleRaw   int64
	sampleErr   error
)

// indexedSample indexes the committed sample into a store, once per test
// binary, and returns its directory and the number of raw rows written.
func indexedSample(t *testing.T) (string, int64) {
	t.Helper()
	sampleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tweetindex-cli-")
		if err != nil {
			sampleErr = err
			return
		}
		sampleStore = filepath.Join(dir, "store")
		sum, err := job.Run(context.Background(), pipelines.Config{Input: "../../../testdata/sample/*", Store: sampleStore})
		if err != nil {
			sampleErr = err
			return
		}
		sampleRaw = sum.Rows["raw"]
	})
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	return sampleStore, sampleRaw
}

// ask runs tweetindex query args and returns stdout and stderr.
func ask(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := queryMain(args, &out, &errOut); err != nil {
		t.Fatalf("tweetindex query %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}

// csvRows parses CSV output, checks its header and returns the rows.
func csvRows(t *testing.T, out string, header ...string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("not CSV with a header (%v): %q", err, out)
	}
	if strings.Join(recs[0], ",") != strings.Join(header, ",") {
		t.Fatalf("header %q, want %q", recs[0], header)
	}
	return recs[1:]
}

func csvCount(t *testing.T, out, name string) int64 {
	t.Helper()
	rows := csvRows(t, out, name)
	if len(rows) != 1 {
		t.Fatalf("count: %d rows", len(rows))
	}
	n, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestQueryCommandsAgree asks the CLI the same things in different ways:
// the count is the raw rows the run wrote, the series adds up to it, the
// export has as many lines, pages joined by their cursors are the whole
// answer, and table, CSV and JSON lines hold the same rows.
func TestQueryCommandsAgree(t *testing.T) {
	store, raw := indexedSample(t)
	s := []string{"--store", store}
	count := csvCount(t, first(ask(t, append([]string{"count", "--format", "csv"}, s...)...)), "tweets")
	if count != raw || count == 0 {
		t.Errorf("count = %d, the run wrote %d raw rows", count, raw)
	}
	var sum int64
	for _, r := range csvRows(t, first(ask(t, append([]string{"series", "--by", "minute", "--format", "csv"}, s...)...)), "minute", "tweets") {
		n, _ := strconv.ParseInt(r[1], 10, 64)
		sum += n
	}
	if sum != count {
		t.Errorf("series by minute adds up to %d, count %d", sum, count)
	}
	export := first(ask(t, append([]string{"export"}, s...)...))
	lines := strings.Split(strings.TrimSuffix(export, "\n"), "\n")
	if int64(len(lines)) != count {
		t.Errorf("export: %d lines, count %d", len(lines), count)
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("export line %d is not JSON: %.200s", i+1, l)
		}
	}

	// Pages of 50 tweets, each from the cursor the one before printed.
	all := csvRows(t, first(ask(t, append([]string{"tweets", "--format", "csv"}, s...)...)), hitColumns...)
	if int64(len(all)) != count {
		t.Errorf("tweets: %d rows, count %d", len(all), count)
	}
	cursorRE := regexp.MustCompile(`next page: --cursor ([0-9a-f]+)`)
	var paged [][]string
	cursor := ""
	for pages := 0; pages < 100; pages++ {
		args := append([]string{"tweets", "--format", "csv", "--limit", "50"}, s...)
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		out, notes := ask(t, args...)
		paged = append(paged, csvRows(t, out, hitColumns...)...)
		m := cursorRE.FindStringSubmatch(notes)
		if m == nil {
			break
		}
		cursor = m[1]
	}
	if len(paged) != len(all) {
		t.Fatalf("pages joined: %d rows, all at once %d", len(paged), len(all))
	}
	for i := range all {
		if strings.Join(paged[i], ",") != strings.Join(all[i], ",") {
			t.Fatalf("row %d: paged %q, all at once %q", i, paged[i], all[i])
		}
	}

	// A term: its count is the number of tweets retrieved, in every format.
	n := csvCount(t, first(ask(t, append([]string{"count-term", "--term", "rt", "--format", "csv"}, s...)...)), "tweets")
	hits := csvRows(t, first(ask(t, append([]string{"terms", "--term", "rt", "--format", "csv"}, s...)...)), hitColumns...)
	jsonl := first(ask(t, append([]string{"terms", "--term", "RT", "--format", "jsonl"}, s...)...))
	table := first(ask(t, append([]string{"terms", "--term", "rt"}, s...)...))
	if n == 0 || int64(len(hits)) != n || strings.Count(jsonl, "\n") != int(n) || strings.Count(table, "\n") != int(n)+1 {
		t.Errorf("count-term rt = %d; terms rows: csv %d, jsonl %d, table %d (with header)", n, len(hits), strings.Count(jsonl, "\n"), strings.Count(table, "\n"))
	}
	for i, l := range strings.Split(strings.TrimSuffix(jsonl, "\n"), "\n") {
		var h map[string]any
		if err := json.Unmarshal([]byte(l), &h); err != nil || h["row_key"] != hits[i][0] {
			t.Fatalf("jsonl line %d: %v, %s; csv row key %s", i+1, err, l, hits[i][0])
		}
	}

	// A box: the geotagged tweets of the world are all geotagged tweets.
	world := first(ask(t, append([]string{"count-geo", "--bbox", "-180,-90,180,90", "--format", "csv"}, s...)...))
	geo := csvRows(t, first(ask(t, append([]string{"geo", "--bbox", "-180,-90,180,90", "--format", "csv"}, s...)...)), hitColumns...)
	if g := csvCount(t, world, "geotagged_tweets"); g == 0 || int64(len(geo)) != g || g != csvCount(t, first(ask(t, append([]string{"count-geo", "--format", "csv"}, s...)...)), "geotagged_tweets") {
		t.Errorf("count-geo of the world %d, geo rows %d", g, len(geo))
	}
	for _, r := range geo {
		if r[5] == "" || r[6] == "" {
			t.Errorf("geo row without its point: %q", r)
		}
	}

	// Users: the distribution's tweets add up to the count.
	var tweets int64
	for _, r := range csvRows(t, first(ask(t, append([]string{"users", "--format", "csv"}, s...)...)), "tweets_per_user", "users") {
		a, _ := strconv.ParseInt(r[0], 10, 64)
		b, _ := strconv.ParseInt(r[1], 10, 64)
		tweets += a * b
	}
	if tweets != count {
		t.Errorf("users: %d tweets in the distribution, count %d", tweets, count)
	}
}

func first(a, _ string) string { return a }

// TestQueryFlagErrors: a wrong flag stops the question with one line that
// says what to fix, a usage error (exit 2, with a pointer to --help) found
// before the store is opened; a store that is not there is a failure
// (exit 1).
func TestQueryFlagErrors(t *testing.T) {
	store, _ := indexedSample(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "name a question"},
		{[]string{"countx"}, `unknown question "countx"`},
		{[]string{"top", "--store", store, "--field", "tag"}, `--field "tag": want one of hashtag, mention, text, user, url`},
		{[]string{"complete", "--store", store}, "--prefix is required"},
		{[]string{"trending", "--store", store, "--from", "2026-11-01"}, "trending needs --from and --to"},
		{[]string{"trending", "--store", store, "--from", "2026-11-01", "--to", "2026-11-02", "--baseline-from", "2026-10-30", "--baseline-to", "2026-10-29"}, "the baseline 2026-10-30T00:00:00Z..2026-10-29T00:00:00Z is empty"},
		{[]string{"terms", "--store", store, "--and", "vote*,rain"}, "is for --term and --or"},
		{[]string{"count"}, "no store: pass --store DIR (or --cassandra HOSTS)"},
		{[]string{"count", "--store", filepath.Join(store, "nope")}, "does not exist: run tweetindex index first"},
		{[]string{"count", "--store", t.TempDir()}, "holds no tweetindex store: pass the directory tweetindex index --store wrote"},
		{[]string{"count", "--store", store, "--from", "yesterday"}, `--from "yesterday": want an RFC 3339 time`},
		{[]string{"count", "--store", store, "--from", "2026-11-02", "--to", "2026-11-01"}, "is not before --to"},
		{[]string{"geo", "--store", store}, "--bbox is required"},
		{[]string{"geo", "--store", store, "--bbox", "1,2,3"}, "--bbox wants minLon,minLat,maxLon,maxLat"},
		{[]string{"geo", "--store", store, "--bbox", "0,50,10,40"}, "want -90 <= minLat <= maxLat <= 90"},
		{[]string{"tweets", "--store", store, "--cursor", "abc"}, "--cursor \"abc\": want a row key of 12 bytes"},
		{[]string{"terms", "--store", store}, "pass one of --term T, --and T1,T2 or --or T1,T2"},
		{[]string{"terms", "--store", store, "--phrase", "a !! https://t.co/x"}, `--phrase "a !! https://t.co/x" holds no word`},
		{[]string{"terms", "--store", store, "--phrase", "big data", "--field", "user"}, "--phrase is of the text field"},
		{[]string{"terms", "--store", store, "--phrase", "big data", "--or", "vote*,rain"}, "does not combine with --phrase"},
		{[]string{"terms", "--store", store, "--phrase", "big data", "--term", "a", "--and", "b,c"}, "pass one of --term T, --and T1,T2 or --or T1,T2"},
		{[]string{"terms", "--store", store, "--term", "a", "--field", "body"}, "body"},
		{[]string{"series", "--store", store, "--by", "week"}, `--by "week": want minute, hour or day`},
		{[]string{"count", "--store", store, "--format", "xml"}, `--format "xml": want table, jsonl, csv or geojson`},
		{[]string{"export", "--store", store, "--format", "table"}, "export as jsonl or csv"},
		{[]string{"count-term", "--store", store}, "--term is required"},
		{[]string{"series", "--store", store, "--chart", "x.gif"}, "--chart x.gif: want a .svg, .png or .pdf file"},
		{[]string{"users", "--store", store, "--top", "-1"}, "--top -1: want 0 (the distribution) or more"},
		{[]string{"count", "--store", store, "--cassandra", "localhost"}, "pass either --store or --cassandra, not both"},
		{[]string{"edges", "--store", store}, "--type is required: retweet, quote, reply, mention, hashtag"},
		{[]string{"edges", "--store", store, "--type", "follow"}, `--type "follow": want one of retweet, quote`},
		{[]string{"edges", "--store", store, "--type", "reply", "--lang", "en"}, "--lang is not for edges"},
		{[]string{"edges", "--store", store, "--type", "reply", "--top", "-2"}, "--top -2: want 0 (all) or more"},
		{[]string{"edges", "--store", store, "--type", "reply", "--format", "dot"}, "or for edges gexf or graphml"},
		{[]string{"count", "--store", store, "--type", "reply"}, "--type is for edges"},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		err := queryMain(tc.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("query %q: error %v, want one line with %q", tc.args, err, tc.want)
			continue
		}
		failure := strings.Contains(tc.want, "does not exist") || strings.Contains(tc.want, "holds no tweetindex store")
		if usage := errors.As(err, new(usageError)); usage == failure {
			t.Errorf("query %q: %v: a usage error %v, want %v", tc.args, err, usage, !failure)
		}
	}
}

// TestQueryHintsAndNewAnswers checks the answers issue 14 added: the
// stderr notes for a term that tokenizes to nothing and for a --lang that
// is no stored tag, the top users (against the distribution's total) and
// the series split by language (against the plain series).
func TestQueryHintsAndNewAnswers(t *testing.T) {
	store, _ := indexedSample(t)
	out, errOut := ask(t, "count-term", "--store", store, "--term", "!?", "--format", "csv")
	if rows := csvRows(t, out, "tweets"); rows[0][0] != "0" || !strings.Contains(errOut, "holds no term") {
		t.Errorf("count-term --term '!?': %q, stderr %q: want 0 and a note", out, errOut)
	}
	out, errOut = ask(t, "count", "--store", store, "--lang", "EN", "--format", "csv")
	if rows := csvRows(t, out, "tweets"); rows[0][0] != "0" || !strings.Contains(errOut, `--lang "EN" is not a language tag`) || !strings.Contains(errOut, "en") {
		t.Errorf("count --lang EN: %q, stderr %q: want 0 and a note naming the tags", out, errOut)
	}
	// Top users: counts in descending order; the top one has as many
	// tweets as the distribution's largest count.
	out, _ = ask(t, "users", "--store", store, "--top", "3", "--format", "csv")
	top := csvRows(t, out, "user", "tweets")
	out, _ = ask(t, "users", "--store", store, "--format", "csv")
	dist := csvRows(t, out, "tweets_per_user", "users")
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if len(top) != 3 || top[0][1] != dist[len(dist)-1][0] || atoi(top[0][1]) < atoi(top[1][1]) || atoi(top[1][1]) < atoi(top[2][1]) {
		t.Errorf("users --top 3: %v; distribution %v", top, dist)
	}
	// The sample's tweets.js tweets name no user: the table says so, CSV
	// leaves the field empty.
	if top[0][0] != "" {
		t.Errorf("users --top 3 --format csv: top user %q, want the sample's tweets.js tweets (no screen name)", top[0][0])
	}
	if out, _ = ask(t, "users", "--store", store, "--top", "3"); !strings.Contains(out, "(no screen name)") {
		t.Errorf("users --top 3 (table): %q, want (no screen name) for the tweets.js tweets", out)
	}
	// Series by language sums, per step, to the series.
	out, _ = ask(t, "series", "--store", store, "--by", "hour", "--format", "csv")
	plain := csvRows(t, out, "hour", "tweets")
	out, _ = ask(t, "series", "--store", store, "--by", "hour", "--by-lang", "--format", "csv")
	byLang := csvRows(t, out, "hour", "lang", "tweets")
	sums := map[string]int{}
	for _, r := range byLang {
		n, _ := strconv.Atoi(r[2])
		sums[r[0]] += n
	}
	for _, r := range plain {
		if n, _ := strconv.Atoi(r[1]); sums[r[0]] != n {
			t.Errorf("hour %s: series %d, by language %d", r[0], n, sums[r[0]])
		}
	}
	if len(plain) == 0 || len(byLang) <= len(plain) {
		t.Errorf("series: %d hours, %d rows by language", len(plain), len(byLang))
	}
}
