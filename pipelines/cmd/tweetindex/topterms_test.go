package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// jsonlTerms returns the term and tweets of each line of top's or
// complete's JSON lines, as "term n".
func jsonlTerms(t *testing.T, out string) []string {
	t.Helper()
	var terms []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			Term   string `json:"term"`
			Tweets int64  `json:"tweets"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		terms = append(terms, fmt.Sprintf("%s %d", r.Term, r.Tweets))
	}
	return terms
}

// TestQueryTopCompleteAndPrefix asks the sample for its top terms, the
// completions of a prefix and the tweets of a prefix term: --limit keeps
// the first of all, CSV and JSON lines agree, a completion's counts are
// top's, and --term 'P*' retrieves the tweets of --or over its
// completions, saying how many on stderr.
func TestQueryTopCompleteAndPrefix(t *testing.T) {
	store, _ := indexedSample(t)
	for _, field := range []string{"hashtag", "mention", "text", "user", "url"} {
		base := []string{"top", "--store", store, "--field", field}
		all := jsonlTerms(t, first(ask(t, append(base, "--format", "jsonl", "--limit", "0")...)))
		if len(all) < 10 {
			t.Fatalf("top %s: %d terms in the sample: too few to test", field, len(all))
		}
		if top := jsonlTerms(t, first(ask(t, append(base, "--format", "jsonl")...))); !slices.Equal(top, all[:min(20, len(all))]) {
			t.Errorf("top %s: %q, want the first 20 of %q", field, top, all)
		}
		var fromCSV []string
		for _, r := range csvRows(t, first(ask(t, append(base, "--format", "csv", "--limit", "0")...)), "term", "tweets") {
			fromCSV = append(fromCSV, strings.Join(r, " "))
		}
		if !slices.Equal(fromCSV, all) {
			t.Errorf("top %s: CSV %q, JSON lines %q", field, fromCSV, all)
		}
	}
	tags := jsonlTerms(t, first(ask(t, "top", "--store", store, "--format", "jsonl", "--limit", "0")))
	prefix := string([]rune(strings.Fields(tags[0])[0])[:3]) // "#" and two letters of the top hashtag
	var want []string
	for _, tag := range tags {
		if strings.HasPrefix(tag, prefix) {
			want = append(want, tag)
		}
	}
	got := jsonlTerms(t, first(ask(t, "complete", "--store", store, "--prefix", strings.ToUpper(prefix), "--limit", "0", "--format", "jsonl")))
	if !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("complete %s: %q, want top's terms that begin with it: %q", prefix, got, want)
	}
	names := make([]string, len(got))
	for i, g := range got {
		names[i] = strings.Fields(g)[0]
	}
	out, notes := ask(t, "terms", "--store", store, "--term", prefix+"*", "--format", "csv")
	if !strings.Contains(notes, fmt.Sprintf("expands to %d term", len(names))) {
		t.Errorf("terms --term %s*: stderr %q does not say it expands to %d terms", prefix, notes, len(names))
	}
	or := first(ask(t, "terms", "--store", store, "--or", strings.Join(names, ","), "--format", "csv"))
	if out != or || strings.Count(out, "\n") < 2 {
		t.Errorf("terms --term %s*:\n%s\nwant those of --or %s:\n%s", prefix, out, strings.Join(names, ","), or)
	}
	if out, notes := ask(t, "terms", "--store", store, "--term", "#zzqqxx*"); strings.Count(out, "\n") != 1 || !strings.Contains(notes, "expands to 0 terms") {
		t.Errorf("terms --term #zzqqxx*: %q, %q; want the header alone and a note of 0 terms", out, notes)
	}
}

// TestQueryPrefixCap: a prefix that expands to more terms than the cap is
// refused in one line. (Not parallel: it lowers the cap.)
func TestQueryPrefixCap(t *testing.T) {
	store, _ := indexedSample(t)
	defer func(n int) { maxPrefixTerms = n }(maxPrefixTerms)
	maxPrefixTerms = 3
	err := queryMain([]string{"terms", "--store", store, "--term", "a*"}, &strings.Builder{}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), `more than 3 terms begin with "a"`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("a prefix of more than 3 terms: %v; want one line saying so", err)
	}
}

// TestQueryTrendingNotes: trending says on stderr what it compared, and
// that a baseline without tweets lets nothing rise.
func TestQueryTrendingNotes(t *testing.T) {
	store, _ := indexedSample(t)
	out, notes := ask(t, "trending", "--store", store, "--from", "2026-11-01", "--to", "2026-11-02", "--format", "csv")
	if out != "term,score,tweets,baseline_tweets\n" {
		t.Errorf("trending against the day before the sample: %q; want the header alone", out)
	}
	if !strings.Contains(notes, "2026-11-01 (1742 tweets) against the baseline 2026-10-31 (0 tweets)") || !strings.Contains(notes, "the baseline holds no tweets") {
		t.Errorf("trending notes: %q", notes)
	}
}
