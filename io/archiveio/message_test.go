package archiveio

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestSplitMessage: a message holding one line as it is stays one record
// (SplitMessage reports false); several lines, a compressed payload and a
// document over several lines are split as a file holding the same bytes
// is read.
func TestSplitMessage(t *testing.T) {
	lines := "{\"a\":1}\n{\"a\":2}\nbroken\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(lines))
	zw.Close()
	for _, c := range []struct {
		name  string
		data  []byte
		split bool
		want  []string
	}{
		{"one line", []byte("{\"a\":1}\n"), false, nil},
		{"one line, white space around", []byte("\n {\"a\":1} \r\n\n"), false, nil},
		{"empty", nil, false, nil},
		{"lines", []byte(lines), true, []string{`1 {"a":1}`, `2 {"a":2}`, `3 broken`}},
		{"gzip", gz.Bytes(), true, []string{`1 {"a":1}`, `2 {"a":2}`, `3 broken`}},
		{"truncated gzip", gz.Bytes()[:gz.Len()-8], true, []string{`1 {"a":1}`, `2 {"a":2}`, `3 broken`, "4 fault: truncated gzip stream: unexpected EOF"}},
		{"pretty document", []byte("[\n {\"a\":1},\n {\"a\":2}\n]\n"), true, []string{"1 [\n {\"a\":1},\n {\"a\":2}\n]\n"}},
	} {
		var got []string
		split, err := SplitMessage(context.Background(), "m", c.data, Options{}, func(r schemas.Record) error {
			s := fmt.Sprintf("%d %s", r.Origin.Line, r.Data)
			if r.Fault != "" {
				s = fmt.Sprintf("%d fault: %s", r.Origin.Line, r.Fault)
			}
			got = append(got, s)
			return nil
		})
		if err != nil || split != c.split || !slices.Equal(got, c.want) {
			t.Errorf("%s: split %v, %v, records %q; want %v, %q", c.name, split, err, got, c.split, c.want)
		}
	}
}
