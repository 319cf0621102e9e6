package schemas

import (
	"reflect"
	"testing"
)

// TestEntities: the entities of the text a tweet is indexed with (its own,
// extended_tweet's, or for a retweet the retweeted tweet's, with the
// retweeted author), not those of the tweet it quotes; none for a tweet
// that carries no entities object.
func TestEntities(t *testing.T) {
	for _, c := range []struct {
		name string
		json string
		want *Entities
	}{
		{"v1.1 none", `{"created_at":"Sun Nov 01 12:00:00 +0000 2026","id_str":"5","text":"#a b","user":{"screen_name":"u"}}`, nil},
		{"v1.1 own", `{"created_at":"Sun Nov 01 12:00:00 +0000 2026","id_str":"5","text":"#WONHO’s $AAPL @x https://t.co/1","user":{"screen_name":"u"},
			"entities":{"hashtags":[{"text":"WONHO","indices":[0,6]}],"symbols":[{"text":"AAPL"}],"user_mentions":[{"screen_name":"x"}],"urls":[{"url":"https://t.co/1","expanded_url":"https://www.nytimes.com/a"}]}}`,
			&Entities{Hashtags: []string{"WONHO"}, Mentions: []string{"x"}, Cashtags: []string{"AAPL"}, URLs: []string{"https://www.nytimes.com/a"}}},
		{"v1.1 extended", `{"created_at":"Sun Nov 01 12:00:00 +0000 2026","id_str":"5","text":"cut…","truncated":true,"user":{"screen_name":"u"},
			"entities":{"hashtags":[]},"extended_tweet":{"full_text":"cut text #Long","entities":{"hashtags":[{"text":"Long"}]}}}`,
			&Entities{Hashtags: []string{"Long"}}},
		{"v1.1 retweet of a quote", `{"created_at":"Sun Nov 01 12:00:00 +0000 2026","id_str":"5","text":"RT @orig: x","user":{"screen_name":"u"},
			"entities":{"hashtags":[{"text":"Own"}],"user_mentions":[{"screen_name":"orig"}]},
			"retweeted_status":{"id_str":"4","text":"x #Orig","user":{"screen_name":"orig"},"entities":{"hashtags":[{"text":"Orig"}]},
			"quoted_status":{"id_str":"3","text":"q #Quoted","user":{"screen_name":"q"},"entities":{"hashtags":[{"text":"Quoted"}]}}}}`,
			&Entities{Hashtags: []string{"Orig"}, Mentions: []string{"orig"}}},
		{"v2 page", `{"data":[{"id":"5","text":"RT @orig: #BLACKPINK's","created_at":"2026-11-01T12:00:00.000Z","author_id":"1",
			"entities":{"hashtags":[{"start":10,"end":20,"tag":"BLACKPIN"}],"mentions":[{"username":"orig"}]},
			"referenced_tweets":[{"type":"retweeted","id":"4"}]}],
			"includes":{"users":[{"id":"1","username":"u"},{"id":"2","username":"orig"}],
			"tweets":[{"id":"4","text":"#BLACKPINK's tour $TSLA","author_id":"2","entities":{"hashtags":[{"tag":"BLACKPINK"}],"cashtags":[{"tag":"TSLA"}],"urls":[{"expanded_url":"https://bbc.co.uk/x"}]}}]}}`,
			&Entities{Hashtags: []string{"BLACKPINK"}, Mentions: []string{"orig"}, Cashtags: []string{"TSLA"}, URLs: []string{"https://bbc.co.uk/x"}}},
		{"v2 note tweet quoting", `{"data":{"id":"5","text":"short","created_at":"2026-11-01T12:00:00.000Z","author_id":"1",
			"note_tweet":{"text":"long #Note","entities":{"hashtags":[{"tag":"Note"}]}},"entities":{"hashtags":[]},
			"referenced_tweets":[{"type":"quoted","id":"3"}]},
			"includes":{"tweets":[{"id":"3","text":"#Q","author_id":"2","entities":{"hashtags":[{"tag":"Q"}]}}]}}`,
			&Entities{Hashtags: []string{"Note"}}},
		{"v2 none", `{"data":{"id":"5","text":"#a","created_at":"2026-11-01T12:00:00.000Z","author_id":"1"}}`, nil},
	} {
		var d Decoder
		var out Decoded
		d.Decode(Record{Data: []byte(c.json)}, &out)
		if len(out.Tweets) != 1 {
			t.Fatalf("%s: decoded %d tweets (%+v)", c.name, len(out.Tweets), out.Rejects)
		}
		if got := out.Tweets[0].Entities; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: entities %+v, want %+v", c.name, got, c.want)
		}
	}
}
