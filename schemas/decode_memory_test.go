package schemas_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestDecoderReleasesLargeDocument decodes a document of many small values
// (a file of expectations, an export: a few MB, a million JSON values)
// with a Decoder that goes on decoding small records, and checks that the
// Decoder does not keep, for the rest of the run, the memory its parser
// grew for the large one.
func TestDecoderReleasesLargeDocument(t *testing.T) {
	var big bytes.Buffer
	big.WriteString(`{"counts":[`)
	for i := range 1_000_000 {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprint(&big, i%10)
	}
	big.WriteString(`]}`)
	small := []byte(`{"created_at":"Sun Nov 01 12:00:00 +0000 2026","id_str":"1","text":"hi","user":{"id_str":"2","screen_name":"a"}}`)

	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var d schemas.Decoder
	var out schemas.Decoded
	d.Decode(schemas.Record{Data: small}, &out)
	before := heap()
	d.Decode(schemas.Record{Data: big.Bytes()}, &out)
	d.Decode(schemas.Record{Data: small}, &out)
	after := heap()
	runtime.KeepAlive(&d)
	// A million values are 80 MB or more in the parser.
	if after > before+16<<20 {
		t.Errorf("after a %.1f MB document the decoder holds %d MB more than before it", float64(big.Len())/1e6, (after-before)>>20)
	}
	if len(out.Tweets) != 2 {
		t.Errorf("decoded %d tweets from the small records, want 2", len(out.Tweets))
	}
}
