package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/testdata/gen/tweetgen"
	"github.com/tweetindex/tweetindex/transforms"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// TestPhrasesMatchPostgreSQL asks phrases of generated tweets of the
// index (query.Engine.Search) and of PostgreSQL 15 (a tsvector of each
// tweet's terms at their positions, the tsquery of the phrase's terms
// with <->, both of the project's tokenizer: phrase.go): the ids must be
// the same. It needs a PostgreSQL server that psql reaches with its
// defaults (PGHOST, PGDATABASE, ... or the user's own database), and
// skips, saying so, without one.
func TestPhrasesMatchPostgreSQL(t *testing.T) {
	ctx := context.Background()
	p := pg{psql: "psql", db: os.Getenv("PGDATABASE")}
	if _, err := exec.LookPath(p.psql); err != nil {
		t.Skip("PostgreSQL is not installed (no psql on PATH): phrases are not checked against it (apt-get install postgresql-15)")
	}
	if out, err := exec.CommandContext(ctx, p.psql, "-X", "-A", "-t", "-c", "select 1").CombinedOutput(); err != nil {
		t.Skipf("no PostgreSQL server answers psql with its defaults (%v: %s): phrases are not checked against it (start one and create a role and database for this user)", err, strings.TrimSpace(string(out)))
	}
	dir := t.TempDir()
	n := 3000
	if testing.Short() {
		n = 1000
	}
	if _, _, err := tweetgen.WriteBench(ctx, tweetgen.BenchConfig{N: n, Seed: 4747, Span: 24 * time.Hour, Out: filepath.Join(dir, "in")}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "in", "EXPECTED.json"))
	store := filepath.Join(dir, "store")
	if _, err := job.Run(ctx, pipelines.Config{Input: filepath.Join(dir, "in"), Store: store}); err != nil {
		t.Fatal(err)
	}
	st, err := storeio.OpenRead(store, storeio.ReadCacheSize)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := query.NewEngine(st)
	const table = "tweetindex_phrase_test"
	if _, err := p.loadWords(ctx, e, table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.exec(context.Background(), "drop table if exists "+table) })

	// Phrases of the tweets: two and three words in a row, as typed
	// (with the punctuation between them), a hashtag and the word after
	// it, a run of bigrams, words across a one-letter word; and the same
	// words reversed.
	var phrases []string
	var posts []transforms.Posting
	seen := 0
	err = e.Tweets(ctx, query.Filter{}, query.Page{}, func(h query.Hit) error {
		if seen++; seen%(n/70) != 0 {
			return nil
		}
		tw, err := h.Tweet()
		if err != nil {
			return err
		}
		posts = transforms.TextPostings(posts[:0], tw.Text)
		for i := 0; i+1 < len(posts); i++ {
			a, b := posts[i], posts[i+1]
			if b.Pos == a.Pos+1 || b.Pos == a.Pos+2 {
				mid := " "
				if b.Pos == a.Pos+2 {
					mid = " x "
				}
				phrases = append(phrases, a.Term+mid+b.Term, b.Term+" "+a.Term)
				if i+2 < len(posts) && posts[i+2].Pos == b.Pos+1 {
					phrases = append(phrases, a.Term+", "+b.Term+"! "+posts[i+2].Term)
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	phrases = append(phrases, "no-such-word another", "東京タワー")
	found := 0
	for _, ph := range phrases {
		if query.PhraseWords(ph) < 2 {
			continue
		}
		mine, err := ids(func(emit func(query.Hit) error) error {
			return e.Search(ctx, query.Filter{}, query.Search{Phrases: []string{ph}, Op: query.And, Field: "text"}, query.Page{}, emit)
		})
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := p.answer(ctx, "select id from "+table+" where words @@ "+sqlString(tsqueryText(ph))+"::tsquery order by id")
		if err != nil {
			t.Fatal(err)
		}
		if mine != theirs {
			t.Errorf("phrase %q (%s): tweetindex %s, PostgreSQL %s", ph, tsqueryText(ph), summary(mine), summary(theirs))
		}
		if mine != "" {
			found++
		}
	}
	t.Logf("%d phrases asked, %d with tweets", len(phrases), found)
	if found < len(phrases)/3 {
		t.Errorf("only %d phrases of %d hold tweets: pick others", found, len(phrases))
	}
}
