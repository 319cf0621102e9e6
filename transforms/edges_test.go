package transforms

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestTweetEdges: the edges of tweets of each format, as TweetEdges gives
// them and as the stored JSON of each tweet, decoded again (what forget
// and a retraction derive the cells to delete from), gives them.
func TestTweetEdges(t *testing.T) {
	const (
		v1At = `"created_at":"Wed Oct 10 20:19:24 +0000 2018"`
		v2At = `"created_at":"2022-03-05T10:00:00.000Z"`
	)
	for _, tt := range []struct {
		name, doc string
		want      []string // "type source target"
	}{
		{
			name: "v1 tweet with hashtags and mentions",
			doc: `{` + v1At + `,"id_str":"1","text":"#Beam and #flink and #Beam again, @Bob and @carol","user":{"screen_name":"Alice"},` +
				`"entities":{"hashtags":[{"text":"Beam"},{"text":"flink"},{"text":"Beam"}],"user_mentions":[{"screen_name":"Bob"},{"screen_name":"carol"}]}}`,
			want: []string{"mention alice bob", "mention alice carol", "hashtag beam flink"},
		},
		{
			name: "v1 tweet without entities: twitter-text's rules",
			doc:  `{` + v1At + `,"id_str":"2","text":"#WONHO’s day with @Ann's friends #Kpop","user":{"screen_name":"fan"}}`,
			want: []string{"mention fan ann", "hashtag kpop wonho"},
		},
		{
			name: "v1 retweet: the retweeted author, no mentions",
			doc: `{` + v1At + `,"id_str":"3","text":"RT @Orig: hi @bob #x","user":{"screen_name":"rter"},` +
				`"retweeted_status":{"id_str":"9","text":"hi @bob #x #y","user":{"screen_name":"Orig"}}}`,
			want: []string{"retweet rter orig", "hashtag x y"},
		},
		{
			name: "v1 quote and reply",
			doc: `{` + v1At + `,"id_str":"4","text":"@Dan look at this","in_reply_to_screen_name":"Dan","in_reply_to_status_id_str":"8",` +
				`"user":{"screen_name":"eve"},"quoted_status":{"id_str":"7","text":"q","user":{"screen_name":"Quoted"}}}`,
			want: []string{"quote eve quoted", "reply eve dan", "mention eve dan"},
		},
		{
			name: "a personal archive's tweet: no author, hashtags only",
			doc:  `{"tweet":{"id_str":"5",` + v1At + `,"full_text":"#a #b @c"}}`,
			want: []string{"hashtag a b"},
		},
		{
			name: "v2 page: a reply whose replied-to tweet is included, a quote, a reply whose is not",
			doc: `{"data":[` +
				`{"id":"11",` + v2At + `,"text":"@ann yes","author_id":"1","in_reply_to_user_id":"2","referenced_tweets":[{"type":"replied_to","id":"20"}]},` +
				`{"id":"12",` + v2At + `,"text":"see this","author_id":"1","referenced_tweets":[{"type":"quoted","id":"21"}]},` +
				`{"id":"13",` + v2At + `,"text":"@ann no","author_id":"1","in_reply_to_user_id":"2","referenced_tweets":[{"type":"replied_to","id":"22"}]}` +
				`],"includes":{"users":[{"id":"1","username":"Me"},{"id":"2","username":"Ann"},{"id":"3","username":"Quo"}],` +
				`"tweets":[{"id":"20","text":"q?","author_id":"2"},{"id":"21","text":"x","author_id":"3"}]}}`,
			// The third reply's user is in the page's includes, but not in
			// the tweet's stored document: no reply edge, from either.
			want: []string{"reply me ann", "mention me ann", "quote me quo", "mention me ann"},
		},
		{
			name: "twarc2 flattened reply",
			doc:  `{"id":"14",` + v2At + `,"text":"@ann ok","author":{"username":"Me"},"author_id":"1","in_reply_to_user_id":"2","in_reply_to_user":{"id":"2","username":"Ann"}}`,
			want: []string{"reply me ann", "mention me ann"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var dec schemas.Decoder
			var out schemas.Decoded
			dec.Decode(schemas.Record{Data: []byte(tt.doc)}, &out)
			if len(out.Tweets) == 0 {
				t.Fatalf("no tweet decoded: %v", out.Rejects)
			}
			var got []string
			for _, tw := range out.Tweets {
				edges := edgeStrings(TweetEdges(&tw))
				got = append(got, edges...)
				var again schemas.Decoded
				dec.Decode(schemas.Record{Data: tw.JSON}, &again)
				if len(again.Tweets) != 1 {
					t.Fatalf("stored JSON %s decodes to %d tweets", tw.JSON, len(again.Tweets))
				}
				if stored := edgeStrings(TweetEdges(&again.Tweets[0])); !slices.Equal(stored, edges) {
					t.Errorf("tweet %d: edges %q, from its stored JSON %q", tw.ID, edges, stored)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("edges %q, want %q", got, tt.want)
			}
		})
	}
}

func edgeStrings(edges []TweetEdge) []string {
	var out []string
	for _, e := range edges {
		out = append(out, fmt.Sprintf("%s %s %s", e.Type.Name(), e.Source, e.Target))
	}
	return out
}

// TestEdgeHashtagCap: a tweet of many hashtags makes the pairs of its
// first MaxEdgeHashtags only.
func TestEdgeHashtagCap(t *testing.T) {
	var text []string
	for i := range MaxEdgeHashtags + 5 {
		text = append(text, fmt.Sprintf("#t%02d", i))
	}
	tw := schemas.Tweet{ID: 1, CreatedAt: 1e9, Text: strings.Join(text, " ")}
	edges := TweetEdges(&tw)
	if want := MaxEdgeHashtags * (MaxEdgeHashtags - 1) / 2; len(edges) != want {
		t.Fatalf("%d edges, want %d", len(edges), want)
	}
	for _, e := range edges {
		if e.Source >= e.Target || e.Target > fmt.Sprintf("t%02d", MaxEdgeHashtags-1) {
			t.Fatalf("edge %+v: not a pair of the first %d tags, smaller first", e, MaxEdgeHashtags)
		}
	}
}
