package schemas

import (
	"strings"
	"testing"
)

// The parts of the v2 page fixture, so that tests can build the documents
// the decoder must store from the page's own bytes.
const (
	v2Data0 = `{"id":"1500000000000000001","created_at":"2022-03-05T10:00:00.000Z","text":"RT @orig: the full original…",` +
		`"author_id":"100","lang":"en","referenced_tweets":[{"type":"retweeted","id":"1400000000000000000"}],"edit_history_tweet_ids":["1500000000000000001"]}`
	v2Data1 = `{"id":"1500000000000000002","created_at":"2022-03-05T10:00:01.000Z","text":"Hola desde Madrid","author_id":"101",` +
		`"lang":"es","geo":{"place_id":"p1"}}`
	v2User100 = `{"id":"100","name":"Retweeter","username":"rter"}`
	v2User999 = `{"id":"999","name":"Unused","username":"unused"}`
	v2User200 = `{"id":"200","name":"Original","username":"orig"}`
	v2User101 = `{"id":"101","name":"Ana","username":"ana"}`
	v2Place0  = `{"id":"p0","full_name":"Elsewhere","geo":{"type":"Feature","bbox":[1,1,2,2],"properties":{}}}`
	v2Place1  = `{"id":"p1","full_name":"Madrid, España","geo":{"type":"Feature","bbox":[-3.8889,40.312,-3.5179,40.6435],"properties":{}}}`
	v2Tweet14 = `{"id":"1400000000000000000","created_at":"2022-03-04T00:00:00.000Z","text":"the full original text that is long","author_id":"200"}`

	v2Page = `{"data":[` + v2Data0 + `,` + v2Data1 + `],"includes":{"users":[` + v2User100 + `,` + v2User999 + `,` + v2User200 + `,` + v2User101 +
		`],"places":[` + v2Place0 + `,` + v2Place1 + `],"tweets":[` + v2Tweet14 + `]},"meta":{"result_count":2,"newest_id":"1500000000000000002"}}`
)

func TestDecodeV2Page(t *testing.T) {
	out := decode(t, v2Page)
	if len(out.Tweets) != 2 || len(out.Rejects) != 0 || out.Controls != 0 {
		t.Fatalf("got %+v", out)
	}
	checkTweet(t, out.Tweets[0], Tweet{
		ID:         1500000000000000001,
		CreatedAt:  unix(2022, 3, 5, 10, 0, 0),
		Lang:       "en",
		Text:       "RT @orig: the full original text that is long",
		UserName:   "Retweeter",
		ScreenName: "rter",
		JSON:       []byte(`{"data":` + v2Data0 + `,"includes":{"users":[` + v2User100 + `,` + v2User200 + `],"tweets":[` + v2Tweet14 + `]}}`),
		Origin:     Origin{Source: testSource, Line: 1},
	})
	checkTweet(t, out.Tweets[1], Tweet{
		ID:         1500000000000000002,
		CreatedAt:  unix(2022, 3, 5, 10, 0, 1),
		Lang:       "es",
		Text:       "Hola desde Madrid",
		UserName:   "Ana",
		ScreenName: "ana",
		HasPoint:   true,
		Lat:        (40.312 + 40.6435) / 2,
		Lon:        (-3.8889 + -3.5179) / 2,
		JSON:       []byte(`{"data":` + v2Data1 + `,"includes":{"users":[` + v2User101 + `],"places":[` + v2Place1 + `]}}`),
		Origin:     Origin{Source: testSource, Line: 1},
	})

	// The same page gives the same bytes, from a new decoder or a used one.
	var d Decoder
	for i := 0; i < 2; i++ {
		var again Decoded
		d.Decode(Record{Data: []byte(v2Page)}, &again)
		for j := range again.Tweets {
			if string(again.Tweets[j].JSON) != string(out.Tweets[j].JSON) {
				t.Fatalf("run %d tweet %d: stored JSON differs:\n%s\n%s", i, j, again.Tweets[j].JSON, out.Tweets[j].JSON)
			}
		}
	}

	// A stored document decodes to the same tweet, stored as itself: re-
	// indexing from the raw table reproduces the tweet and its row key.
	for _, tw := range out.Tweets {
		again := decode(t, string(tw.JSON))
		if len(again.Tweets) != 1 {
			t.Fatalf("stored document %s: %+v", tw.JSON, again)
		}
		checkTweet(t, again.Tweets[0], tw)
		if again.Tweets[0].Key() != tw.Key() {
			t.Errorf("row key changed on re-decoding")
		}
	}
}

// TestDecodeV2PageLines checks that tweets of a pretty-printed page point at
// their own lines, and that a bad element is rejected alone.
func TestDecodeV2PageLines(t *testing.T) {
	doc := "{\n" + // line 1
		"  \"data\": [\n" + // line 2
		"    " + v2Data0 + ",\n" + // line 3
		"    {\"id\": \"77\", \"text\": \"no date\"},\n" + // line 4
		"    " + v2Data1 + "\n" + // line 5
		"  ],\n" +
		"  \"includes\": {\"users\": [" + v2User101 + "]}\n" +
		"}"
	var d Decoder
	var out Decoded
	d.Decode(Record{Origin: Origin{Source: "page.json", Line: 40}, Data: []byte(doc)}, &out)
	if len(out.Tweets) != 2 || len(out.Rejects) != 1 {
		t.Fatalf("got %+v", out)
	}
	if out.Tweets[0].Origin.Line != 42 || out.Tweets[1].Origin.Line != 44 {
		t.Errorf("lines %d %d, want 42 44", out.Tweets[0].Origin.Line, out.Tweets[1].Origin.Line)
	}
	if r := out.Rejects[0]; r.Reason != "missing created_at" || r.Origin != (Origin{"page.json", 43}) || string(r.Raw) != `{"id": "77", "text": "no date"}` {
		t.Errorf("reject %+v", r)
	}
	// Without the retweeted tweet in includes the text stays as given, and
	// nothing is invented in the stored document.
	if got := out.Tweets[0].Text; got != "RT @orig: the full original…" {
		t.Errorf("text = %q", got)
	}
	if got, want := string(out.Tweets[0].JSON), `{"data":`+v2Data0+`}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	if got, want := string(out.Tweets[1].JSON), `{"data":`+v2Data1+`,"includes":{"users":[`+v2User101+`]}}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func TestDecodeV2Single(t *testing.T) {
	doc := `{"data":{"id":"1600000000000000000","created_at":"2022-11-01T12:00:00.000Z","text":"東京タワーなう","author_id":"300","lang":"ja",` +
		`"geo":{"coordinates":{"type":"Point","coordinates":[139.7454,35.6586]},"place_id":"p9"}},` +
		`"includes":{"users":[{"id":"300","name":"太郎","username":"taro"}],"places":[{"id":"p9","geo":{"bbox":[139,35,140,36]}}]},` +
		`"matching_rules":[{"id":"1","tag":"tokyo"}]}`
	out := decode(t, doc+"\n")
	if len(out.Tweets) != 1 {
		t.Fatalf("got %+v", out)
	}
	checkTweet(t, out.Tweets[0], Tweet{
		ID: 1600000000000000000, CreatedAt: unix(2022, 11, 1, 12, 0, 0), Lang: "ja", Text: "東京タワーなう",
		UserName: "太郎", ScreenName: "taro", HasPoint: true, Lat: 35.6586, Lon: 139.7454,
		JSON: []byte(doc), Origin: Origin{Source: testSource, Line: 1},
	})
}

func TestDecodeV2Text(t *testing.T) {
	const inc = `"includes":{"users":[{"id":"200","name":"Original","username":"orig"}],"tweets":[{"id":"14","text":"full text","author_id":"200","note_tweet":{"text":"the long note text"}},{"id":"15","text":"no author here","author_id":"404"}]}`
	tests := []struct {
		name, doc, want string
	}{
		{"text", `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"plain"}}`, "plain"},
		{"note tweet", `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"cut…","note_tweet":{"text":"the whole long note"}}}`, "the whole long note"},
		{"retweet of a note tweet", `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"RT @orig: cut…","referenced_tweets":[{"type":"retweeted","id":"14"}]},` + inc + `}`, "RT @orig: the long note text"},
		{"retweet author from the text", `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"RT @someone: no…","referenced_tweets":[{"type":"retweeted","id":"15"}]},` + inc + `}`, "RT @someone: no author here"},
		{"retweet not in includes", `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"RT @x: cut…","referenced_tweets":[{"type":"retweeted","id":"99"}]},` + inc + `}`, "RT @x: cut…"},
		{"quote keeps own text", `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"my take","referenced_tweets":[{"type":"quoted","id":"14"}]},` + inc + `}`, "my take"},
		{"reply keeps own text", `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"@orig yes","referenced_tweets":[{"type":"replied_to","id":"14"}]},` + inc + `}`, "@orig yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode(t, tt.doc)
			if len(out.Tweets) != 1 {
				t.Fatalf("got %+v", out)
			}
			if got := out.Tweets[0].Text; got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeV2Flat(t *testing.T) {
	const place = `"id":"p1","full_name":"Madrid","geo":{"type":"Feature","bbox":[-3.8889,40.312,-3.5179,40.6435],"properties":{}}`
	tests := []struct {
		name, doc string
		want      Tweet
	}{
		{
			name: "retweet with merged place",
			doc: `{"id":"1500000000000000003","created_at":"2022-03-05T10:00:02.000Z","text":"RT @orig: cut…","author_id":"100",` +
				`"author":{"id":"100","name":"Retweeter","username":"rter"},"lang":"en",` +
				`"referenced_tweets":[{"type":"retweeted","id":"14","text":"the full original","author_id":"200","author":{"id":"200","name":"Original","username":"orig"}}],` +
				`"geo":{"place_id":"p1",` + place + `},"__twarc":{"url":"https://api.twitter.com/2/tweets/search/all","version":"2.10.4","retrieved_at":"2022-03-06T00:00:00+00:00"}}`,
			want: Tweet{ID: 1500000000000000003, CreatedAt: unix(2022, 3, 5, 10, 0, 2), Lang: "en", Text: "RT @orig: the full original",
				UserName: "Retweeter", ScreenName: "rter", HasPoint: true, Lat: (40.312 + 40.6435) / 2, Lon: (-3.8889 + -3.5179) / 2},
		},
		{
			name: "place under geo.place",
			doc: `{"id":"5","created_at":"2022-03-05T10:00:02.000Z","text":"hola","author":{"name":"Ana","username":"ana"},` +
				`"geo":{"place_id":"p1","place":{` + place + `}}}`,
			want: Tweet{ID: 5, CreatedAt: unix(2022, 3, 5, 10, 0, 2), Lang: "und", Text: "hola", UserName: "Ana", ScreenName: "ana",
				HasPoint: true, Lat: (40.312 + 40.6435) / 2, Lon: (-3.8889 + -3.5179) / 2},
		},
		{
			name: "numeric id written exactly",
			doc:  `{"id":1500000000000000007,"created_at":"2022-03-05T10:00:02Z","text":"n","edit_history_tweet_ids":["1500000000000000007"]}`,
			want: Tweet{ID: 1500000000000000007, CreatedAt: unix(2022, 3, 5, 10, 0, 2), Lang: "und", Text: "n"},
		},
		{
			name: "antimeridian box",
			doc:  `{"id":"6","created_at":"2022-03-05T10:00:02Z","text":"fiji","author_id":"1","geo":{"place":{"geo":{"bbox":[170,-20,-170,-10]}}}}`,
			want: Tweet{ID: 6, CreatedAt: unix(2022, 3, 5, 10, 0, 2), Lang: "und", Text: "fiji", HasPoint: true, Lat: -15, Lon: 180},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode(t, tt.doc)
			if len(out.Tweets) != 1 {
				t.Fatalf("got %+v", out)
			}
			tt.want.JSON = []byte(tt.doc)
			tt.want.Origin = Origin{Source: testSource, Line: 1}
			checkTweet(t, out.Tweets[0], tt.want)
		})
	}
}

func TestDecodeV2ImpossibleCoordinates(t *testing.T) {
	for _, geo := range []string{
		`{"coordinates":{"type":"Point","coordinates":[200,0]}}`,
		`{"coordinates":{"type":"Point","coordinates":["a","b"]}}`,
		`{"place":{"geo":{"bbox":["w","s","e","n"]}}}`,
		`{"place":{"geo":{"bbox":[0,-95,1,1]}}}`,
		`{"place":{"geo":{"bbox":[0,0,1]}}}`,
	} {
		doc := `{"id":"1","created_at":"2022-01-01T00:00:00Z","text":"x","author_id":"1","geo":` + geo + `}`
		out := decode(t, doc)
		if len(out.Rejects) != 1 || !strings.HasPrefix(out.Rejects[0].Reason, "impossible coordinates: ") {
			t.Errorf("%s: got %+v", geo, out)
		}
	}
	// A page place with an impossible box rejects the tweet that uses it only.
	page := `{"data":[{"id":"1","created_at":"2022-01-01T00:00:00Z","geo":{"place_id":"bad"}},{"id":"2","created_at":"2022-01-01T00:00:00Z"}],` +
		`"includes":{"places":[{"id":"bad","geo":{"bbox":[0,0,500,1]}}]}}`
	out := decode(t, page)
	if len(out.Tweets) != 1 || out.Tweets[0].ID != 2 || len(out.Rejects) != 1 || string(out.Rejects[0].Raw) != `{"id":"1","created_at":"2022-01-01T00:00:00Z","geo":{"place_id":"bad"}}` {
		t.Errorf("page: got %+v", out)
	}
}

// TestDecodeEscapedKeys checks that page members spelled with escapes are
// still found in the page's bytes.
func TestDecodeEscapedKeys(t *testing.T) {
	page := `{"d\u0061ta":[{"id":"1","created_at":"2022-01-01T00:00:00Z","author_id":"7"}],"includes":{"us\u0065rs":[{"id":"7","username":"seven"}]}}`
	out := decode(t, page)
	if len(out.Tweets) != 1 || out.Tweets[0].ScreenName != "seven" {
		t.Fatalf("got %+v", out)
	}
	if got, want := string(out.Tweets[0].JSON), `{"data":{"id":"1","created_at":"2022-01-01T00:00:00Z","author_id":"7"},"includes":{"users":[{"id":"7","username":"seven"}]}}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}
