package schemas

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// decodedScreenName decodes b and returns the screen name of its one tweet,
// and whether it decodes to exactly one tweet.
func decodedScreenName(b []byte) (string, bool) {
	var d Decoder
	var out Decoded
	d.Decode(Record{Origin: Origin{Source: "t"}, Data: b}, &out)
	if len(out.Tweets) != 1 {
		return "", false
	}
	return out.Tweets[0].ScreenName, true
}

const v1Head = `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1050118621198921728","text":"hi",`

func TestStoredScreenName(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      string
		ok        bool
	}{
		{"plain", v1Head + `"user":{"name":"A","screen_name":"abc"}}`, "abc", true},
		{"last user wins", v1Head + `"user":{"screen_name":"first"},"lang":"en","user":{"screen_name":"second"}}`, "second", true},
		{"first screen_name wins", v1Head + `"user":{"screen_name":"one","screen_name":"two"}}`, "one", true},
		{"nested names ignored", v1Head + `"retweeted_status":{"user":{"screen_name":"other"}},"user":{"entities":{"screen_name":"x"},"screen_name":"me"}}`, "me", true},
		{"spaces", " { \"created_at\" : \"Wed Oct 10 20:19:24 +0000 2018\" , \"id_str\":\"1\",\"text\":\"t\", \"user\" : { \"screen_name\" : \"sp\" } } ", "sp", true},
		{"user not an object", v1Head + `"user":"abc"}`, "", true},
		{"screen_name not a string", v1Head + `"user":{"screen_name":12}}`, "", true},
		{"no screen_name", v1Head + `"user":{"name":"A"}}`, "", true},
		{"escaped name", v1Head + `"user":{"screen_name":"a\u0062c"}}`, "", false},
		{"escaped key", v1Head + `"us\u0065r":{"screen_name":"abc"}}`, "", false},
		{"escaped key in user", v1Head + `"user":{"screen\u005fname":"abc","screen_name":"x"}}`, "", false},
		{"no user", v1Head + `"lang":"en"}`, "", false},
		{"v2 single", `{"data":{"id":"1","text":"t","author_id":"9","created_at":"2026-11-01T12:00:00.000Z"},"includes":{"users":[{"id":"9","username":"u9"}]}}`, "", false},
		{"broken", v1Head + `"user":{"screen_name":"abc"`, "", false},
		{"array", `[` + v1Head + `"user":{"screen_name":"abc"}}]`, "", false},
	} {
		got, ok := StoredScreenName([]byte(c.doc))
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
		if ok {
			if dec, one := decodedScreenName([]byte(c.doc)); !one || dec != got {
				t.Errorf("%s: the decoder says %q (one tweet: %v), StoredScreenName %q", c.name, dec, one, got)
			}
		}
	}
}

// TestStoredScreenNameMatchesDecoder holds StoredScreenName to the decoder
// on every tweet of the committed sample, as stored (Tweet.JSON).
func TestStoredScreenNameMatchesDecoder(t *testing.T) {
	answered := 0
	for _, name := range []string{"v1-stream-12a.jsonl", "v1-search-ApacheFlink.json", "v1-array.json", "tweets.js", "v2-twarc2-pages.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "sample", name))
		if err != nil {
			t.Fatal(err)
		}
		var d Decoder
		var out Decoded
		records := bytes.Split(data, []byte{'\n'})
		if filepath.Ext(name) != ".jsonl" {
			records = [][]byte{data}
		}
		for _, r := range records {
			d.Decode(Record{Origin: Origin{Source: name}, Data: r}, &out)
		}
		for _, tw := range out.Tweets {
			got, ok := StoredScreenName(tw.JSON)
			if !ok {
				continue
			}
			answered++
			if dec, one := decodedScreenName(tw.JSON); !one || dec != got || dec != tw.ScreenName {
				t.Fatalf("%s: tweet %d: StoredScreenName %q, decoder %q (one tweet: %v), first decode %q", name, tw.ID, got, dec, one, tw.ScreenName)
			}
		}
	}
	if answered < 100 {
		t.Fatalf("StoredScreenName answered for %d sample tweets: want the v1.1 ones (100 or more)", answered)
	}
}

// FuzzStoredScreenName checks that whenever StoredScreenName answers for a
// document that decodes to one tweet, it gives the decoder's screen name.
func FuzzStoredScreenName(f *testing.F) {
	for _, s := range []string{v1Plain, v1Retweet, v1Archive, v2Page, benchTweet,
		v1Head + `"user":{"screen_name":"one","screen_name":"two"},"user":{"screen_name":"three"}}`,
		v1Head + `"user":[{"screen_name":"abc"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := StoredScreenName(data)
		if !ok {
			return
		}
		if dec, one := decodedScreenName(data); one && dec != got {
			t.Fatalf("%q: StoredScreenName %q, decoder %q", data, got, dec)
		}
	})
}

func BenchmarkStoredScreenName(b *testing.B) {
	data := []byte(benchTweet)
	for b.Loop() {
		if _, ok := StoredScreenName(data); !ok {
			b.Fatal("no screen name")
		}
	}
}
