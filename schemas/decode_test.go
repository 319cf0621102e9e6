package schemas

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

const testSource = "test.json"

// decode decodes data as one record from line 1 of testSource.
func decode(t *testing.T, data string) *Decoded {
	t.Helper()
	var d Decoder
	out := &Decoded{}
	d.Decode(Record{Origin: Origin{Source: testSource, Line: 1}, Data: []byte(data)}, out)
	return out
}

func unix(year int, month time.Month, day, hour, min, sec int) int64 {
	return time.Date(year, month, day, hour, min, sec, 0, time.UTC).Unix()
}

// Fixtures. The numeric "id" of v1.1 tweets is deliberately not the id_str
// (as after a round trip through a float64): the decoder must ignore it.
const (
	v1Plain = `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id":1050118621198921700,"id_str":"1050118621198921728",` +
		`"text":"To make room for more expression, we will now count all emojis as equal\u2014including those with gender\u2026 https:\/\/t.co\/MkGjXf9aXm",` +
		`"truncated":true,"user":{"id":6253282,"id_str":"6253282","name":"Twitter API","screen_name":"TwitterAPI"},` +
		`"extended_tweet":{"full_text":"To make room for more expression, we will now count all emojis as equal\u2014including those with gender and skin tone modifiers \ud83d\udc4d\ud83c\udffb https:\/\/t.co\/MkGjXf9aXm"},` +
		`"coordinates":null,"place":null,"lang":"en"}`
	v1PlainFull = "To make room for more expression, we will now count all emojis as equal—including those with gender and skin tone modifiers 👍🏻 https://t.co/MkGjXf9aXm"

	v1Retweet = `{"created_at":"Thu Apr 06 15:28:43 +0000 2017","id_str":"850007368138018817",` +
		`"text":"RT @TwitterDev: 1/ Today we\u2019re sharing our vision for the future of the Twitter API platform!\u2026",` +
		`"truncated":false,"user":{"name":"Rebecca","screen_name":"rebecca_r"},"lang":"en",` +
		`"retweeted_status":{"created_at":"Thu Apr 06 15:24:15 +0000 2017","id_str":"850006245121695744",` +
		`"text":"1/ Today we\u2019re sharing our vision for the future of the Twitter API platform!\nhttps:\/\/t.co\/XweGngmxlP",` +
		`"user":{"name":"TwitterDev","screen_name":"TwitterDev"},` +
		`"extended_tweet":{"full_text":"1/ Today we\u2019re sharing our vision for the future of the Twitter API platform! It is long.\nhttps:\/\/t.co\/XweGngmxlP"}}}`

	v1Archive = `{"tweet":{"retweeted":false,"id_str":"1234567890123456789","id":"1234567890123456789",` +
		`"created_at":"Sat Jan 04 09:15:00 +0000 2020","full_text":"La canción del verano #Música","lang":"es"}}`
	v1ArchiveInner = `{"retweeted":false,"id_str":"1234567890123456789","id":"1234567890123456789",` +
		`"created_at":"Sat Jan 04 09:15:00 +0000 2020","full_text":"La canción del verano #Música","lang":"es"}`
)

// v1 returns a v1.1 tweet with id_str id and the given extra members.
func v1(id string, extra string) string {
	s := `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"` + id + `","text":"hello","user":{"name":"N","screen_name":"sn"},"lang":"en"`
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

func TestDecodeV1(t *testing.T) {
	out := decode(t, "  "+v1Plain+"\r\n")
	if len(out.Tweets) != 1 || len(out.Rejects) != 0 || out.Controls != 0 {
		t.Fatalf("got %+v", out)
	}
	tw := out.Tweets[0]
	want := Tweet{
		ID:         1050118621198921728,
		CreatedAt:  unix(2018, 10, 10, 20, 19, 24),
		Lang:       "en",
		Text:       v1PlainFull,
		UserName:   "Twitter API",
		ScreenName: "TwitterAPI",
		JSON:       []byte(v1Plain),
		Origin:     Origin{Source: testSource, Line: 1},
	}
	checkTweet(t, tw, want)
}

func TestDecodeV1Retweet(t *testing.T) {
	out := decode(t, v1Retweet)
	if len(out.Tweets) != 1 {
		t.Fatalf("got %+v", out)
	}
	want := "RT @TwitterDev: 1/ Today we’re sharing our vision for the future of the Twitter API platform! It is long.\nhttps://t.co/XweGngmxlP"
	if got := out.Tweets[0].Text; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if got := out.Tweets[0].ID; got != 850007368138018817 {
		t.Errorf("id = %d: the retweet's own id_str must be used", got)
	}
	if got, want := out.Tweets[0].CreatedAt, unix(2017, 4, 6, 15, 28, 43); got != want {
		t.Errorf("created_at = %d, want %d (the retweet's own)", got, want)
	}
	if got := out.Tweets[0].ScreenName; got != "rebecca_r" {
		t.Errorf("screen name = %q, want the retweeter's", got)
	}
}

func TestDecodeV1Text(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"text", v1("1", ""), "hello"},
		{"full_text", `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1","full_text":"full"}`, "full"},
		{"extended wins", v1("1", `"full_text":"full","extended_tweet":{"full_text":"extended"}`), "extended"},
		{"retweet of full_text", v1("1", `"retweeted_status":{"user":{"screen_name":"orig"},"full_text":"original full"}`), "RT @orig: original full"},
		{"retweet of text", v1("1", `"retweeted_status":{"user":{"screen_name":"orig"},"text":"short"}`), "RT @orig: short"},
		{"retweet without user keeps own text", v1("1", `"retweeted_status":{"text":"short"}`), "hello"},
		{"quote keeps own text", v1("1", `"quoted_status":{"user":{"screen_name":"q"},"text":"quoted"}`), "hello"},
		{"no text", `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1"}`, ""},
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

func TestDecodeLang(t *testing.T) {
	tests := []struct{ extra, want string }{
		{`"lang":"ja"`, "ja"},
		{`"lang":" es "`, "es"},
		{`"lang":""`, "und"},
		{`"lang":null`, "und"},
		{`"lang":7`, "und"},
		{`"lang":"qme"`, "qme"},
		{`"lang":"x-klingon"`, "x-klingon"},
		{`"lang":"zh_CN"`, "zh_CN"},
		{`"lang":"` + strings.Repeat("a", MaxLangLen) + `"`, strings.Repeat("a", MaxLangLen)},
		{`"lang":"` + strings.Repeat("a", MaxLangLen+1) + `"`, "und"},
		{`"lang":"` + strings.Repeat("x", 100<<10) + `"`, "und"}, // would be a 100 KB clustering value
		{`"lang":"en us"`, "und"},
		{`"lang":"en\u0000"`, "und"},
		{`"lang":"日本語"`, "und"},
	}
	for _, tt := range tests {
		doc := `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1",` + tt.extra + `}`
		out := decode(t, doc)
		if len(out.Tweets) != 1 || out.Tweets[0].Lang != tt.want {
			t.Errorf("%.60s: got %d tweets (lang %.60q), want lang %q", tt.extra, len(out.Tweets), func() string {
				if len(out.Tweets) > 0 {
					return out.Tweets[0].Lang
				}
				return ""
			}(), tt.want)
		}
	}
	if out := decode(t, `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1"}`); out.Tweets[0].Lang != "und" {
		t.Errorf("absent lang = %q, want und", out.Tweets[0].Lang)
	}
}

func TestDecodeCoordinates(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		ok       bool
		lat, lon float64
		reject   string // reason prefix, when rejected
	}{
		{name: "none", doc: v1("1", `"coordinates":null,"geo":null,"place":null`)},
		{name: "coordinates [lon, lat]", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[-122.41942,37.77493]}`), ok: true, lat: 37.77493, lon: -122.41942},
		{name: "geo [lat, lon]", doc: v1("1", `"coordinates":null,"geo":{"type":"Point","coordinates":[37.77493,-122.41942]}`), ok: true, lat: 37.77493, lon: -122.41942},
		{name: "bare geo array", doc: v1("1", `"geo":[35.6895,139.6917]`), ok: true, lat: 35.6895, lon: 139.6917},
		{name: "coordinates win over geo and place", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[1,2]},"geo":{"coordinates":[3,4]},"place":{"bounding_box":{"coordinates":[[[10,10],[10,20],[20,20],[20,10]]]}}`), ok: true, lat: 2, lon: 1},
		{name: "place centre", doc: v1("1", `"place":{"full_name":"Madrid","bounding_box":{"type":"Polygon","coordinates":[[[-3.8889,40.3120],[-3.8889,40.6435],[-3.5179,40.6435],[-3.5179,40.3120]]]}}`), ok: true, lat: (40.3120 + 40.6435) / 2, lon: (-3.8889 + -3.5179) / 2},
		{name: "place across the antimeridian", doc: v1("1", `"place":{"full_name":"Fiji","bounding_box":{"type":"Polygon","coordinates":[[[177,-21],[177,-12],[-178,-12],[-178,-21]]]}}`), ok: true, lat: -16.5, lon: 179.5},
		{name: "place across the antimeridian, centre west of it", doc: v1("1", `"place":{"full_name":"Chukotka","bounding_box":{"type":"Polygon","coordinates":[[[172,62],[172,72],[-170,72],[-170,62]]]}}`), ok: true, lat: 67, lon: -179},
		{name: "place without box", doc: v1("1", `"place":{"full_name":"Somewhere","bounding_box":null}`)},
		{name: "point with altitude", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[1.5,2.5,100]}`), ok: true, lat: 2.5, lon: 1.5},
		{name: "null island is a point", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[0,0]}`), ok: true},
		{name: "latitude out of range", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[10,95]}`), reject: "impossible coordinates: coordinates.coordinates lat 95 lon 10"},
		{name: "longitude out of range", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[181,0]}`), reject: "impossible coordinates"},
		{name: "swapped geo out of range", doc: v1("1", `"geo":{"type":"Point","coordinates":[-122.4,37.7]}`), reject: "impossible coordinates: geo.coordinates"},
		{name: "NaN", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[NaN,1]}`), reject: "impossible coordinates"},
		{name: "infinity", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[1,-Inf]}`), reject: "impossible coordinates"},
		{name: "strings", doc: v1("1", `"coordinates":{"type":"Point","coordinates":["1","2"]}`), reject: "impossible coordinates: coordinates.coordinates holds a non-number"},
		{name: "one number", doc: v1("1", `"coordinates":{"type":"Point","coordinates":[1]}`), reject: "impossible coordinates"},
		{name: "not an object", doc: v1("1", `"coordinates":"here"`), reject: "impossible coordinates"},
		{name: "bad place vertex", doc: v1("1", `"place":{"bounding_box":{"coordinates":[[[1,2],[1,200]]]}}`), reject: "impossible coordinates: place.bounding_box"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode(t, tt.doc)
			if tt.reject != "" {
				if len(out.Rejects) != 1 || len(out.Tweets) != 0 || !strings.HasPrefix(out.Rejects[0].Reason, tt.reject) {
					t.Fatalf("got %+v, want a reject %q", out, tt.reject)
				}
				if string(out.Rejects[0].Raw) != tt.doc {
					t.Errorf("reject raw = %q, want the tweet", out.Rejects[0].Raw)
				}
				return
			}
			if len(out.Tweets) != 1 {
				t.Fatalf("got %+v", out)
			}
			tw := out.Tweets[0]
			if tw.HasPoint != tt.ok || !near(tw.Lat, tt.lat) || !near(tw.Lon, tt.lon) {
				t.Errorf("point = %v %v,%v, want %v %v,%v", tw.HasPoint, tw.Lat, tw.Lon, tt.ok, tt.lat, tt.lon)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name, doc, reason string
	}{
		{"missing id_str", `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id":123,"text":"x","user":{}}`, "missing id_str"},
		{"null id_str", `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":null,"text":"x","user":{}}`, "missing id_str"},
		{"id_str not decimal", v1("12a", ""), "invalid id"},
		{"id_str negative", v1("-5", ""), "invalid id"},
		{"id_str zero", v1("0", ""), "invalid id"},
		{"id_str overflows", v1("18446744073709551616", ""), "invalid id"},
		{"id_str number", `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":123,"text":"x","user":{}}`, "invalid id"},
		{"missing created_at", `{"id_str":"1","text":"x","user":{"screen_name":"a"}}`, "missing created_at"},
		{"null created_at", `{"id_str":"1","created_at":null,"text":"x"}`, "missing created_at"},
		{"invalid created_at", `{"id_str":"1","created_at":"yesterday","text":"x"}`, "invalid created_at"},
		{"created_at before 1970", `{"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 1960","text":"x"}`, "created_at out of range"},
		{"created_at after 2149", `{"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 2150","text":"x"}`, "created_at out of range"},
		{"v2 missing id", `{"created_at":"2022-01-01T00:00:00.000Z","text":"x","author_id":"1"}`, "missing id"},
		{"v2 invalid id", `{"id":"abc","created_at":"2022-01-01T00:00:00.000Z","text":"x"}`, "invalid id"},
		{"v2 missing created_at", `{"data":{"id":"5","text":"no created_at requested"}}`, "missing created_at"},
		{"v2 invalid created_at", `{"data":{"id":"5","created_at":"2022-13-01T00:00:00Z"}}`, "invalid created_at"},
		{"unrecognized object", `{"foo":1}`, "not a tweet: unrecognized JSON object"},
		{"scalar", `42`, "not a tweet: JSON number"},
		{"string", `"hello"`, "not a tweet: JSON string"},
		{"null", `null`, "not a tweet: JSON null"},
		{"v2 data is a string", `{"data":"x"}`, "not a tweet: v2 data is string"},
		{"broken JSON", `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1"`, "broken JSON: "},
		{"not JSON", `hello world`, "broken JSON: "},
		{"trailing garbage", v1("1", "") + ` x`, "broken JSON: unexpected data after the JSON value"},
		{"truncated line", v1Plain[:200], "broken JSON: "},
		{"invalid UTF-8", "{\"id_str\":\"1\",\"text\":\"caf\xe9\"}", "invalid UTF-8"},
		{"invalid UTF-8 in broken JSON", "\xff\xfe{", "invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode(t, tt.doc)
			if len(out.Rejects) != 1 || len(out.Tweets) != 0 || out.Controls != 0 {
				t.Fatalf("got %+v, want one reject", out)
			}
			r := out.Rejects[0]
			if !strings.HasPrefix(r.Reason, tt.reason) {
				t.Errorf("reason = %q, want prefix %q", r.Reason, tt.reason)
			}
			if len(r.Reason) > len("broken JSON: ")+maxReasonLen {
				t.Errorf("reason too long: %d bytes", len(r.Reason))
			}
			if string(r.Raw) != tt.doc {
				t.Errorf("raw = %q, want the record", r.Raw)
			}
			if r.Origin != (Origin{Source: testSource, Line: 1}) {
				t.Errorf("origin = %v", r.Origin)
			}
		})
	}
}

func TestDecodeFault(t *testing.T) {
	var d Decoder
	var out Decoded
	rec := Record{Origin: Origin{Source: "a.json.gz", Line: 17}, Data: []byte(`{"created_at":"We`), Fault: "truncated gzip stream: unexpected EOF"}
	d.Decode(rec, &out)
	want := Reject{Origin: rec.Origin, Reason: rec.Fault, Raw: rec.Data}
	if len(out.Rejects) != 1 || len(out.Tweets) != 0 || out.Rejects[0].Reason != want.Reason ||
		out.Rejects[0].Origin != want.Origin || !bytes.Equal(out.Rejects[0].Raw, want.Raw) {
		t.Fatalf("got %+v, want %+v", out, want)
	}
}

func TestDecodeControls(t *testing.T) {
	docs := []string{
		``,
		"   \t\r\n",
		"\r",
		`{"delete":{"status":{"id":1,"id_str":"1","user_id":3,"user_id_str":"3"},"timestamp_ms":"1539202764000"}}`,
		`{"limit":{"track":1234,"timestamp_ms":"1539202764000"}}`,
		`{"scrub_geo":{"user_id":1,"user_id_str":"1","up_to_status_id":2,"up_to_status_id_str":"2"}}`,
		`{"status_withheld":{"id":1,"user_id":2,"withheld_in_countries":["DE"]}}`,
		`{"user_withheld":{"id":1,"withheld_in_countries":["DE"]}}`,
		`{"warning":{"code":"FALLING_BEHIND","message":"Your connection is falling behind","percent_full":60}}`,
		`{"disconnect":{"code":4,"stream_name":"x","reason":"duplicate stream"}}`,
		`{"errors":[{"title":"operational-disconnect","disconnect_type":"UpstreamOperationalDisconnect","detail":"x","type":"https://api.twitter.com/2/problems/operational-disconnect"}]}`,
		`{"meta":{"result_count":0}}`,
		`{"data":null,"errors":[{"title":"Not Found Error"}]}`,
		`[]`,
		` [ ] `,
		`{"statuses":[],"search_metadata":{}}`,
		`{"data":[],"meta":{"result_count":0}}`,
		`window.YTD.tweets.part0 = []`,
	}
	for _, doc := range docs {
		out := decode(t, doc)
		if out.Controls != 1 || len(out.Tweets) != 0 || len(out.Rejects) != 0 {
			t.Errorf("%q: got %+v, want one control", doc, out)
		}
	}
	// Controls inside an array count one each.
	out := decode(t, `[{"limit":{"track":1}},{"delete":{}},`+v1("7", "")+`]`)
	if out.Controls != 2 || len(out.Tweets) != 1 {
		t.Errorf("array: got %+v, want 2 controls and a tweet", out)
	}
}

// TestDecodeArchive covers a personal archive: a lone element, and a whole
// pretty-printed tweets.js whose tweets must point at their lines.
func TestDecodeArchive(t *testing.T) {
	out := decode(t, v1Archive)
	if len(out.Tweets) != 1 {
		t.Fatalf("got %+v", out)
	}
	checkTweet(t, out.Tweets[0], Tweet{
		ID: 1234567890123456789, CreatedAt: unix(2020, 1, 4, 9, 15, 0), Lang: "es",
		Text: "La canción del verano #Música", JSON: []byte(v1ArchiveInner), Origin: Origin{Source: testSource, Line: 1},
	})

	js := "window.YTD.tweets.part0 = [\n" + // line 1
		"  {\n" + // line 2
		`    "tweet" : {"id_str" : "11", "created_at" : "Sat Jan 04 09:15:00 +0000 2020", "full_text" : "one"}` + "\n" +
		"  },\n" +
		"  {\n" + // line 5
		`    "tweet" : {` + "\n" + // line 6
		`      "id_str" : "12", "created_at" : "Sat Jan 04 09:16:00 +0000 2020", "full_text" : "two"` + "\n" +
		"    }\n" +
		"  },\n" +
		`  {"tweet" : {"id_str" : "x13", "created_at" : "Sat Jan 04 09:16:00 +0000 2020"}}` + "\n" + // line 10
		"]"
	var d Decoder
	var res Decoded
	d.Decode(Record{Origin: Origin{Source: "archive/data/tweets.js", Line: 1}, Data: []byte(js)}, &res)
	if len(res.Tweets) != 2 || len(res.Rejects) != 1 {
		t.Fatalf("got %+v", res)
	}
	for i, want := range []struct {
		id   uint64
		line int64
		text string
	}{{11, 3, "one"}, {12, 6, "two"}} {
		tw := res.Tweets[i]
		if tw.ID != want.id || tw.Origin.Line != want.line || tw.Text != want.text {
			t.Errorf("tweet %d = id %d line %d text %q, want %d %d %q", i, tw.ID, tw.Origin.Line, tw.Text, want.id, want.line, want.text)
		}
		if !bytes.HasPrefix(tw.JSON, []byte("{")) || !bytes.Contains(tw.JSON, []byte(`"full_text" : "`+want.text+`"`)) ||
			!bytes.HasSuffix(tw.JSON, []byte("}")) || bytes.Contains(tw.JSON, []byte(`"tweet"`)) {
			t.Errorf("tweet %d JSON = %q, want the inner tweet's bytes", i, tw.JSON)
		}
	}
	if r := res.Rejects[0]; r.Reason != "invalid id" || r.Origin.Line != 10 {
		t.Errorf("reject = %+v, want invalid id on line 10", r)
	}
}

// TestDecodeArray covers a JSON array mixing every kind of element, and
// broken elements that must not take their neighbours down.
func TestDecodeArray(t *testing.T) {
	page := `{"data":[{"id":"21","created_at":"2022-03-01T10:00:00.000Z","text":"from a page","author_id":"9"}],"includes":{"users":[{"id":"9","name":"Nine","username":"nine"}]}}`
	doc := "[\n" +
		v1("1", "") + ",\n" + // line 2
		v1Archive + ",\n" + // line 3
		page + ",\n" + // line 4
		`{"broken": }` + ",\n" + // line 5
		`{"statuses":[` + v1("2", "") + `,` + v1("3", "") + "]},\n" + // line 6
		`[` + v1("4", "") + "],\n" + // line 7: nested array
		"17\n" + // line 8
		"]"
	out := decode(t, doc)
	var ids []uint64
	var lines []int64
	for _, tw := range out.Tweets {
		ids = append(ids, tw.ID)
		lines = append(lines, tw.Origin.Line)
	}
	wantIDs := []uint64{1, 1234567890123456789, 21, 2, 3, 4}
	wantLines := []int64{2, 3, 4, 6, 6, 7}
	if !equal(ids, wantIDs) || !equal(lines, wantLines) {
		t.Errorf("ids %v lines %v, want %v %v", ids, lines, wantIDs, wantLines)
	}
	if len(out.Rejects) != 2 || !strings.HasPrefix(out.Rejects[0].Reason, "broken JSON") || out.Rejects[0].Origin.Line != 5 ||
		string(out.Rejects[0].Raw) != `{"broken": }` || out.Rejects[1].Reason != "not a tweet: JSON number" || out.Rejects[1].Origin.Line != 8 {
		t.Errorf("rejects = %+v", out.Rejects)
	}
	if string(out.Tweets[0].JSON) != v1("1", "") {
		t.Errorf("element JSON = %q, want its bytes", out.Tweets[0].JSON)
	}

	// A broken array keeps what came before the break.
	out = decode(t, "["+v1("1", "")+",\n"+v1("2", "")+"\n"+v1("3", "")+"]")
	if len(out.Tweets) != 2 || len(out.Rejects) != 1 || out.Rejects[0].Reason != "broken JSON: missing ',' or ']' after array element" || out.Rejects[0].Origin.Line != 3 {
		t.Errorf("missing comma: got %+v", out)
	}
	out = decode(t, "["+v1("1", "")+",\n"+`{"a":"unterminated`)
	if len(out.Tweets) != 1 || len(out.Rejects) != 1 || out.Rejects[0].Origin.Line != 2 {
		t.Errorf("unterminated: got %+v", out)
	}
	out = decode(t, "["+v1("1", "")+"] trailing")
	if len(out.Tweets) != 1 || len(out.Rejects) != 1 || string(out.Rejects[0].Raw) != "trailing" {
		t.Errorf("trailing: got %+v", out)
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDecodeStatuses covers a v1.1 search response, pretty-printed.
func TestDecodeStatuses(t *testing.T) {
	doc := "{\n  \"statuses\": [\n    " + v1("100", "") + ",\n    " + v1("bad", "") + ",\n    " + v1("101", `"lang":"ja"`) +
		"\n  ],\n  \"search_metadata\": {\"count\": 3}\n}"
	out := decode(t, doc)
	if len(out.Tweets) != 2 || len(out.Rejects) != 1 {
		t.Fatalf("got %+v", out)
	}
	if out.Tweets[0].ID != 100 || out.Tweets[0].Origin.Line != 3 || out.Tweets[1].ID != 101 || out.Tweets[1].Origin.Line != 5 {
		t.Errorf("tweets %+v", out.Tweets)
	}
	if string(out.Tweets[1].JSON) != v1("101", `"lang":"ja"`) {
		t.Errorf("JSON = %q", out.Tweets[1].JSON)
	}
	if r := out.Rejects[0]; r.Reason != "invalid id" || r.Origin.Line != 4 || string(r.Raw) != v1("bad", "") {
		t.Errorf("reject %+v", r)
	}
}

// TestDecoderReuse checks that a Decoder and a Decoded can be reused and
// that tweets do not share the parser's memory.
func TestDecoderReuse(t *testing.T) {
	var d Decoder
	var out Decoded
	d.Decode(Record{Data: []byte(v1Plain)}, &out)
	first := out.Tweets[0]
	for i := 0; i < 3; i++ {
		out.Reset()
		d.Decode(Record{Data: []byte(v1Retweet)}, &out)
		d.Decode(Record{Data: []byte(v2Page)}, &out)
	}
	if first.Text != v1PlainFull || first.UserName != "Twitter API" || first.ScreenName != "TwitterAPI" || first.Lang != "en" {
		t.Errorf("a later Decode changed an earlier tweet: %+v", first)
	}
	if len(out.Tweets) != 3 || out.Controls != 0 {
		t.Errorf("after Reset and two records: %+v", out)
	}
	out.Reset()
	if len(out.Tweets) != 0 || len(out.Rejects) != 0 || out.Controls != 0 || cap(out.Tweets) == 0 {
		t.Errorf("Reset: %+v cap %d", out, cap(out.Tweets))
	}
}

// TestDecodeCreatedAtFormats checks both API layouts and the slow path.
func TestDecodeCreatedAtFormats(t *testing.T) {
	tests := []struct {
		value string
		want  int64
	}{
		{"Wed Oct 10 20:19:24 +0000 2018", unix(2018, 10, 10, 20, 19, 24)},
		{"Wed Oct 10 20:19:24 -0500 2018", unix(2018, 10, 11, 1, 19, 24)},
		{"2018-10-10T20:19:24.000Z", unix(2018, 10, 10, 20, 19, 24)},
		{"2018-10-10T20:19:24Z", unix(2018, 10, 10, 20, 19, 24)},
		{"2018-10-10T20:19:24.999999999Z", unix(2018, 10, 10, 20, 19, 24)},
		{"2018-10-10T22:19:24+02:00", unix(2018, 10, 10, 20, 19, 24)},
		{"Thu Feb 29 00:00:00 +0000 2024", unix(2024, 2, 29, 0, 0, 0)},
		{"1970-01-01T00:00:00Z", 0},
	}
	for _, tt := range tests {
		out := decode(t, `{"id_str":"1","created_at":"`+tt.value+`"}`)
		if len(out.Tweets) != 1 || out.Tweets[0].CreatedAt != tt.want {
			t.Errorf("%s: got %+v, want %d", tt.value, out, tt.want)
		}
	}
	for _, bad := range []string{"Thu Feb 29 00:00:00 +0000 2023", "2023-02-29T00:00:00Z", "Wed Oct 10 24:00:00 +0000 2018", "2018-10-10 20:19:24", ""} {
		out := decode(t, `{"id_str":"1","created_at":"`+bad+`"}`)
		if len(out.Rejects) != 1 || out.Rejects[0].Reason != "invalid created_at" {
			t.Errorf("%q: got %+v, want invalid created_at", bad, out)
		}
	}
}

// checkTweet compares every field of a tweet.
func checkTweet(t *testing.T, got, want Tweet) {
	t.Helper()
	if got.ID != want.ID || got.CreatedAt != want.CreatedAt || got.Lang != want.Lang || got.Text != want.Text ||
		got.UserName != want.UserName || got.ScreenName != want.ScreenName || got.HasPoint != want.HasPoint ||
		!near(got.Lat, want.Lat) || !near(got.Lon, want.Lon) || got.Origin != want.Origin || got.RowKey != want.RowKey {
		t.Errorf("tweet\n got %+v\nwant %+v", withoutJSON(got), withoutJSON(want))
	}
	if !bytes.Equal(got.JSON, want.JSON) {
		t.Errorf("JSON\n got %s\nwant %s", got.JSON, want.JSON)
	}
}

func withoutJSON(t Tweet) Tweet { t.JSON = nil; return t }
