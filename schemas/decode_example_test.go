package schemas_test

import (
	"fmt"

	"github.com/tweetindex/tweetindex/schemas"
)

func ExampleDecoder() {
	lines := []string{
		`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id":1050118621198921700,"id_str":"1050118621198921728","text":"A tweet about #ApacheAccumulo and #ApacheFlink and","user":{"name":"user1","screen_name":"u1scr"},"lang":"en","coordinates":{"type":"Point","coordinates":[-122.41942,37.77493]}}`,
		`{"limit":{"track":12,"timestamp_ms":"1539202764000"}}`,
		`{"data":[{"id":"1500000000000000002","created_at":"2022-03-05T10:00:01.000Z","text":"Hola","author_id":"101","lang":"es"}],"includes":{"users":[{"id":"101","name":"Ana","username":"ana"},{"id":"102","name":"Bo","username":"bo"}]}}`,
		`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1"`,
	}
	var dec schemas.Decoder
	var out schemas.Decoded
	for i, line := range lines {
		dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "sample.jsonl", Line: int64(i + 1)}, Data: []byte(line)}, &out)
	}
	for _, t := range out.Tweets {
		fmt.Printf("%d %s %s @%s %q point=%v %.5f,%.5f\n", t.ID, t.Origin, t.Lang, t.ScreenName, t.Text, t.HasPoint, t.Lat, t.Lon)
	}
	fmt.Printf("stored: %s\n", out.Tweets[1].JSON)
	fmt.Println("controls:", out.Controls)
	for _, r := range out.Rejects {
		fmt.Println("reject:", r.Origin, r.Reason)
	}
	// Output:
	// 1050118621198921728 sample.jsonl:1 en @u1scr "A tweet about #ApacheAccumulo and #ApacheFlink and" point=true 37.77493,-122.41942
	// 1500000000000000002 sample.jsonl:3 es @ana "Hola" point=false 0.00000,0.00000
	// stored: {"data":{"id":"1500000000000000002","created_at":"2022-03-05T10:00:01.000Z","text":"Hola","author_id":"101","lang":"es"},"includes":{"users":[{"id":"101","name":"Ana","username":"ana"}]}}
	// controls: 1
	// reject: sample.jsonl:4 broken JSON: cannot parse object: unexpected end of object
}

func ExampleEventTime() {
	sec, ok := schemas.EventTime([]byte(`{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id_str":"1"}`))
	fmt.Println(sec, ok)
	// Output: 1539202764 true
}
