package job

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/transforms"
)

// TestTermsFromEntities indexes tweets with and without entities (v1.1,
// a v1.1 retweet, v2) and asks term questions: a possessive hashtag is
// found under its bare tag whether the entities name it or the text alone
// holds it, cashtags are terms, and the hosts of linked URLs are terms of
// field url. On the store and through gocql on the CQL test server.
func TestTermsFromEntities(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ids := make([]uint64, 4)
	for i := range ids {
		ids[i] = snowflake(at.Add(time.Duration(i)*time.Second), i)
	}
	v1 := func(i int, rest string) string {
		return fmt.Sprintf(`{"created_at":%q,"id_str":"%d","lang":"en","user":{"name":"n","screen_name":"s%d"},%s}`,
			at.Add(time.Duration(i)*time.Second).Format(time.RubyDate), ids[i], i, rest)
	}
	lines := []string{
		v1(0, `"text":"#WONHO’s comeback with @Fan1 $AAPL https://t.co/x",`+
			`"entities":{"hashtags":[{"text":"WONHO"}],"user_mentions":[{"screen_name":"Fan1"}],"symbols":[{"text":"AAPL"}],`+
			`"urls":[{"url":"https://t.co/x","expanded_url":"https://www.nytimes.com/2026/11/01/a.html"}]}`),
		v1(1, `"text":"#BLACKPINK's tour $TSLA"`),
		v1(2, `"text":"RT @orig: #BLACKPINK’s song","entities":{"hashtags":[],"user_mentions":[{"screen_name":"orig"}]},`+
			`"retweeted_status":{"id_str":"5","text":"#BLACKPINK’s song https://t.co/y","user":{"screen_name":"orig"},`+
			`"entities":{"hashtags":[{"text":"BLACKPINK"}],"urls":[{"expanded_url":"https://edition.cnn.com/x"}]}}`),
		fmt.Sprintf(`{"data":{"id":"%d","text":"#WONHO's day","created_at":%q,"author_id":"9","lang":"en",`+
			`"entities":{"hashtags":[{"start":0,"end":6,"tag":"WONHO"}],"urls":[{"expanded_url":"http://nytimes.com/b"}]}},`+
			`"includes":{"users":[{"id":"9","name":"N","username":"v2user"}]}}`, ids[3], at.Add(3*time.Second).Format(time.RFC3339)),
	}
	input := writeLines(t, filepath.Join(tempDir(t), "tweets.jsonl"), lines...)
	for _, kind := range sinkKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			cfg, _ := kind.sinks(tempDir(t))(t, "s")
			cfg.Input = input
			runPipeline(t, cfg)
			r, err := sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			e := query.NewEngine(r)
			for _, c := range []struct {
				field, term string
				want        []int
			}{
				{transforms.FieldText, "#wonho", []int{0, 3}},
				{transforms.FieldText, "wonho", []int{0, 3}},
				{transforms.FieldText, "#WONHO’s", []int{0, 3}},
				{transforms.FieldText, "#blackpink", []int{1, 2}},
				{transforms.FieldText, "$aapl", []int{0}},
				{transforms.FieldText, "$tsla", []int{1}},
				{transforms.FieldText, "@fan1", []int{0}},
				{transforms.FieldText, "@orig", []int{2}},
				{transforms.FieldURL, "nytimes.com", []int{0, 3}},
				{transforms.FieldURL, "https://edition.cnn.com/", []int{2}},
			} {
				var got []int
				err := e.Terms(t.Context(), query.Filter{}, []string{c.term}, query.And, c.field, query.Page{}, func(h query.Hit) error {
					tw, err := h.Tweet()
					if err != nil {
						return err
					}
					got = append(got, slices.Index(ids, tw.ID))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if !slices.Equal(got, c.want) {
					t.Errorf("terms --field %s --term %q: tweets %v, want %v", c.field, c.term, got, c.want)
				}
				n, err := e.CountTerm(t.Context(), query.Filter{}, c.term, c.field)
				if err != nil || n != int64(len(c.want)) {
					t.Errorf("count-term --field %s --term %q: %d, %v; want %d", c.field, c.term, n, err, len(c.want))
				}
			}
		})
	}
}
