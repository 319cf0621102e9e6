package schemas

import (
	"testing"
)

// benchTweet is a v1.1 stream tweet as the 1% sample delivers it (about
// 3 KB): an extended tweet with entities, media and a full user object.
const benchTweet = `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id":1050118621198921728,"id_str":"1050118621198921728",` +
	`"text":"Streaming joins at scale: how we moved our #ApacheFlink pipelines to exactly-once sinks, with @dataeng_sam and the platform team\u2026 https:\/\/t.co\/MkGjXf9aXm",` +
	`"display_text_range":[0,140],"source":"\u003ca href=\"https:\/\/mobile.twitter.com\" rel=\"nofollow\"\u003eTwitter Web App\u003c\/a\u003e",` +
	`"truncated":true,"in_reply_to_status_id":null,"in_reply_to_status_id_str":null,"in_reply_to_user_id":null,"in_reply_to_user_id_str":null,"in_reply_to_screen_name":null,` +
	`"user":{"id":6253282,"id_str":"6253282","name":"Stream Processing Weekly","screen_name":"streamweekly","location":"Berlin, Germany",` +
	`"url":"https:\/\/t.co\/8IkCzCDr19","description":"News, talks and papers on stream processing: Apache Flink, Beam, Kafka Streams and friends. Curated by humans. \ud83c\udf0a\ud83d\udcc8",` +
	`"translator_type":"none","protected":false,"verified":false,"followers_count":48211,"friends_count":1203,"listed_count":1021,"favourites_count":8841,` +
	`"statuses_count":21233,"created_at":"Wed May 23 06:01:13 +0000 2007","utc_offset":null,"time_zone":null,"geo_enabled":true,"lang":null,` +
	`"contributors_enabled":false,"is_translator":false,"profile_background_color":"C0DEED","profile_background_tile":true,"profile_link_color":"1DA1F2",` +
	`"profile_sidebar_border_color":"C0DEED","profile_sidebar_fill_color":"DDEEF6","profile_text_color":"333333","profile_use_background_image":true,` +
	`"profile_image_url":"http:\/\/pbs.twimg.com\/profile_images\/942858479592554497\/BbazLO9L_normal.jpg",` +
	`"profile_image_url_https":"https:\/\/pbs.twimg.com\/profile_images\/942858479592554497\/BbazLO9L_normal.jpg",` +
	`"profile_banner_url":"https:\/\/pbs.twimg.com\/profile_banners\/6253282\/1497491515","default_profile":false,"default_profile_image":false,` +
	`"following":null,"follow_request_sent":null,"notifications":null},"geo":null,"coordinates":null,"place":null,"contributors":null,` +
	`"is_quote_status":false,"extended_tweet":{"full_text":"Streaming joins at scale: how we moved our #ApacheFlink pipelines to exactly-once sinks, with @dataeng_sam and the platform team. ` +
	`Slides, code and the benchmark numbers are all in the write-up \u2014 comments welcome! #BigData #StreamProcessing https:\/\/t.co\/XweGngmxlP https:\/\/t.co\/MkGjXf9aXm",` +
	`"display_text_range":[0,277],"entities":{"hashtags":[{"text":"ApacheFlink","indices":[43,55]},{"text":"BigData","indices":[221,229]},` +
	`{"text":"StreamProcessing","indices":[230,247]}],"urls":[{"url":"https:\/\/t.co\/XweGngmxlP","expanded_url":"https:\/\/example.org\/blog\/streaming-joins-at-scale",` +
	`"display_url":"example.org\/blog\/streaming-\u2026","indices":[248,271]}],"user_mentions":[{"screen_name":"dataeng_sam","name":"Sam","id":91234,"id_str":"91234",` +
	`"indices":[94,106]}],"symbols":[]}},"quote_count":3,"reply_count":12,"retweet_count":87,"favorite_count":342,` +
	`"entities":{"hashtags":[{"text":"ApacheFlink","indices":[43,55]}],"urls":[{"url":"https:\/\/t.co\/MkGjXf9aXm","expanded_url":"https:\/\/twitter.com\/i\/web\/status\/1050118621198921728",` +
	`"display_url":"twitter.com\/i\/web\/status\/1\u2026","indices":[117,140]}],"user_mentions":[{"screen_name":"dataeng_sam","name":"Sam","id":91234,"id_str":"91234","indices":[94,106]}],"symbols":[]},` +
	`"favorited":false,"retweeted":false,"possibly_sensitive":false,"filter_level":"low","lang":"en","timestamp_ms":"1539202764657"}`

func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct{ name, doc string }{
		{"v1", benchTweet},
		{"v2page", v2Page},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var d Decoder
			var out Decoded
			rec := Record{Origin: Origin{Source: "bench.json", Line: 1}, Data: []byte(bc.doc)}
			b.SetBytes(int64(len(rec.Data)))
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				d.Decode(rec, &out)
			}
			if len(out.Tweets) == 0 {
				b.Fatal("no tweet")
			}
			b.ReportMetric(float64(b.N*len(out.Tweets))/b.Elapsed().Seconds(), "tweets/s")
		})
	}
}

func BenchmarkEventTime(b *testing.B) {
	data := []byte(benchTweet)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := EventTime(data); !ok {
			b.Fatal("no event time")
		}
	}
}

// TestDecodeBenchTweet checks the benchmark's tweet, and that a warm
// decoder allocates nothing but the tweet's strings and its entities.
func TestDecodeBenchTweet(t *testing.T) {
	if n := len(benchTweet); n < 2800 || n > 4000 {
		t.Errorf("benchmark tweet is %d bytes, want about 3 KB", n)
	}
	out := decode(t, benchTweet)
	if len(out.Tweets) != 1 {
		t.Fatalf("got %+v", out)
	}
	tw := out.Tweets[0]
	if tw.ID != 1050118621198921728 || tw.ScreenName != "streamweekly" || tw.Lang != "en" || len(tw.Text) < 250 {
		t.Errorf("tweet %+v", withoutJSON(tw))
	}
	var d Decoder
	var res Decoded
	rec := Record{Data: []byte(benchTweet)}
	d.Decode(rec, &res)
	allocs := testing.AllocsPerRun(100, func() {
		res.Reset()
		d.Decode(rec, &res)
	})
	if allocs > 6 { // Text, UserName, ScreenName; the entities, their strings and their bytes
		t.Errorf("Decode allocates %v times per tweet, want at most 6", allocs)
	}
}
