package schemas

import (
	"testing"
)

func TestEventTime(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want int64 // -1: no event time
	}{
		{"v1.1", v1Plain, unix(2018, 10, 10, 20, 19, 24)},
		{"v1.1 with space around", "\n  " + v1Plain + "\r\n", unix(2018, 10, 10, 20, 19, 24)},
		{"retweet: the retweet's own time", v1Retweet, unix(2017, 4, 6, 15, 28, 43)},
		{"created_at after a nested one", `{"retweeted_status":{"created_at":"Thu Apr 06 15:24:15 +0000 2017"},"created_at":"Thu Apr 06 15:28:43 +0000 2017","id_str":"1"}`, unix(2017, 4, 6, 15, 28, 43)},
		{"archive element", v1Archive, unix(2020, 1, 4, 9, 15, 0)},
		{"v2 single document", `{"data":{"id":"1","text":"x","created_at":"2022-11-01T12:00:00.000Z"},"includes":{"tweets":[{"created_at":"2000-01-01T00:00:00Z"}]}}`, unix(2022, 11, 1, 12, 0, 0)},
		{"v2 includes before data", `{"includes":{"tweets":[{"created_at":"2000-01-01T00:00:00Z"}]},"data":{"id":"1","created_at":"2022-11-01T12:00:00.000Z"}}`, unix(2022, 11, 1, 12, 0, 0)},
		{"flattened v2", `{"id":"1","created_at":"2022-11-01T12:00:00Z","author":{"created_at":"2009-01-01T00:00:00Z"}}`, unix(2022, 11, 1, 12, 0, 0)},
		{"missing", `{"id_str":"1","user":{"created_at":"Wed May 23 06:01:13 +0000 2007"}}`, -1},
		{"invalid", `{"created_at":"yesterday"}`, -1},
		{"not a string", `{"created_at":1539202764}`, -1},
		{"out of range", `{"created_at":"Wed Oct 10 20:19:24 +0000 1960"}`, -1},
		{"control message", `{"delete":{"status":{"id_str":"1"},"timestamp_ms":"1539202764000"}}`, -1},
		{"array", `[` + v1Plain + `]`, -1},
		{"broken", `{"created_at`, -1},
		{"empty", ``, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec, ok := EventTime([]byte(tt.doc))
			if tt.want < 0 {
				if ok {
					t.Errorf("EventTime = %d, true; want false", sec)
				}
				return
			}
			if !ok || sec != tt.want {
				t.Errorf("EventTime = %d, %v; want %d", sec, ok, tt.want)
			}
		})
	}
}

// TestEventTimeMatchesDecode checks EventTime against the decoder on every
// single-tweet document of the tests.
func TestEventTimeMatchesDecode(t *testing.T) {
	for _, doc := range []string{v1Plain, v1Retweet, v1Archive, benchTweet, v1("1", ""), v2Data0, v2Data1} {
		out := decode(t, doc)
		if len(out.Tweets) != 1 {
			t.Fatalf("%s: %+v", doc, out)
		}
		if sec, ok := EventTime([]byte(doc)); !ok || sec != out.Tweets[0].CreatedAt {
			t.Errorf("EventTime = %d, %v; Decode says %d", sec, ok, out.Tweets[0].CreatedAt)
		}
	}
	// Stored page documents are single-tweet documents too.
	for _, tw := range decode(t, v2Page).Tweets {
		if sec, ok := EventTime(tw.JSON); !ok || sec != tw.CreatedAt {
			t.Errorf("EventTime(%s) = %d, %v; want %d", tw.JSON, sec, ok, tw.CreatedAt)
		}
	}
}

func TestEventTimeAllocs(t *testing.T) {
	data := []byte(benchTweet)
	if n := testing.AllocsPerRun(100, func() { EventTime(data) }); n != 0 {
		t.Errorf("EventTime allocates %v times", n)
	}
}
