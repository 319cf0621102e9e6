package schemas

import "testing"

// TestRecordsThatAreNotTweets decodes records twarc2 and the streaming APIs
// write beside tweets: none becomes a tweet, each is skipped as its kind.
func TestRecordsThatAreNotTweets(t *testing.T) {
	tests := []struct {
		name string
		json string
		kind SkipKind
		n    int
	}{
		{"v2 user", `{"id":"2244994945","name":"Twitter Dev","username":"TwitterDev","created_at":"2013-12-14T04:35:55.000Z","description":"x"}`, SkipUser, 1},
		{"page of v2 users", `{"data":[{"id":"1","username":"a","name":"A","created_at":"2013-12-14T04:35:55.000Z"},{"id":"2","username":"b","name":"B"}],"meta":{"result_count":2}}`, SkipUser, 2},
		{"v2 user document", `{"data":{"id":"1","username":"a","name":"A","created_at":"2013-12-14T04:35:55.000Z"}}`, SkipUser, 1},
		{"v2 list", `{"id":"1355797419175383040","name":"Twitter","member_count":5,"follower_count":7,"created_at":"2021-01-31T08:38:35.000Z"}`, SkipList, 1},
		{"v2 tweet count", `{"end":"2021-05-28T00:00:00.000Z","start":"2021-05-27T00:00:00.000Z","tweet_count":2234}`, SkipTweetCount, 1},
		{"v2 Space", `{"id":"1DXxyRYNejbKM","state":"live","host_ids":["2244994945"],"creator_id":"2244994945","created_at":"2021-07-04T23:12:08.000Z"}`, SkipSpace, 1},
		{"v2 compliance event", `{"id":"1402326540359553025","action":"delete","created_at":"2021-06-08T18:37:48.000Z","redacted_at":"2021-06-08T18:37:48.000Z","reason":"deleted"}`, SkipCompliance, 1},
		{"v1.1 delete", `{"delete":{"status":{"id":1,"id_str":"1","user_id":3,"user_id_str":"3"},"timestamp_ms":"1540000000000"}}`, SkipCompliance, 1},
		{"v1.1 scrub_geo", `{"scrub_geo":{"user_id":3,"user_id_str":"3","up_to_status_id":9,"up_to_status_id_str":"9"}}`, SkipCompliance, 1},
		{"v1.1 limit", `{"limit":{"track":10,"timestamp_ms":"1540000000000"}}`, SkipControl, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			var out Decoded
			d.Decode(Record{Origin: Origin{Source: "f", Line: 1}, Data: []byte(tc.json)}, &out)
			if len(out.Tweets) != 0 || len(out.Rejects) != 0 {
				t.Fatalf("%d tweets, %d rejects; want none (rejects: %v)", len(out.Tweets), len(out.Rejects), out.Rejects)
			}
			if out.Controls != tc.n || out.Skipped[tc.kind] != tc.n {
				t.Errorf("skipped %d, as %s %d; want %d as %s", out.Controls, tc.kind.Name(), out.Skipped[tc.kind], tc.n, tc.kind.Name())
			}
		})
	}
	// A tweet that has a username-like member is still a tweet: tweets
	// have a text.
	var d Decoder
	var out Decoded
	d.Decode(Record{Data: []byte(`{"id":"5","text":"hi","created_at":"2021-06-08T18:37:48.000Z","author_id":"1","username":"x","lang":"en"}`)}, &out)
	if len(out.Tweets) != 1 {
		t.Errorf("a v2 tweet with a username member: %d tweets, want 1 (rejects %v, skipped %d)", len(out.Tweets), out.Rejects, out.Controls)
	}
}

// TestComplianceNotices decodes the compliance messages other than
// deletes into notices, with their ids, and the author of stored tweets.
func TestComplianceNotices(t *testing.T) {
	tests := []struct {
		json string
		want Notice
	}{
		{`{"scrub_geo":{"user_id":3,"user_id_str":"3","up_to_status_id":9,"up_to_status_id_str":"1790000000000000009"}}`, Notice{Kind: "scrub_geo", ID: 3, UpTo: 1790000000000000009}},
		{`{"status_withheld":{"id":1790000000000000123,"user_id":3,"withheld_in_countries":["DE"]}}`, Notice{Kind: "status_withheld", ID: 1790000000000000123}},
		{`{"user_withheld":{"id":3,"withheld_in_countries":["DE","FR"]}}`, Notice{Kind: "user_withheld", ID: 3}},
		{`{"id":"1402326540359553025","action":"scrub_geo","created_at":"2021-06-08T18:37:48.000Z"}`, Notice{Kind: "scrub_geo", V2: true, ID: 1402326540359553025}},
		{`{"id":"1402326540359553025","action":"withheld","created_at":"2021-06-08T18:37:48.000Z","withheld_in_countries":["DE"]}`, Notice{Kind: "withheld", V2: true, ID: 1402326540359553025}},
	}
	for _, tc := range tests {
		var d Decoder
		var out Decoded
		d.Decode(Record{Data: []byte(tc.json)}, &out)
		if len(out.Notices) != 1 || len(out.Deletes) != 0 || out.Skipped[SkipCompliance] != 1 {
			t.Errorf("%s: notices %+v, deletes %v, skipped %v; want one notice", tc.json, out.Notices, out.Deletes, out.Skipped)
			continue
		}
		n := out.Notices[0]
		if string(n.Raw) != tc.json {
			t.Errorf("%s: raw %q", tc.json, n.Raw)
		}
		if n.Kind != tc.want.Kind || n.V2 != tc.want.V2 || n.ID != tc.want.ID || n.UpTo != tc.want.UpTo {
			t.Errorf("%s: notice %+v, want %+v", tc.json, n, tc.want)
		}
	}
	for _, tc := range []struct {
		json string
		want uint64
	}{
		{`{"id_str":"5","text":"x","user":{"id":7,"id_str":"7"}}`, 7},
		{`{"data":{"id":"5","text":"x","author_id":"8"},"includes":{}}`, 8},
		{`{"id":"5","text":"x","author_id":"9"}`, 9},
		{`{"id":"5","text":"x"}`, 0},
	} {
		if got, _ := TweetUserID([]byte(tc.json)); got != tc.want {
			t.Errorf("TweetUserID(%s) = %d, want %d", tc.json, got, tc.want)
		}
	}
}
