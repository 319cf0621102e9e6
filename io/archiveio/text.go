package archiveio

import (
	"bufio"
	"bytes"
	"io"

	"github.com/valyala/fastjson"

	"github.com/tweetindex/tweetindex/schemas"
)

// text reads a decompressed stream of text: JSON lines, or one document.
func (rd *reader) text(src string, br *bufio.Reader) error {
	head, err := br.Peek(peekSize)
	if isDocument(head, err != nil) {
		return rd.document(src, br)
	}
	return rd.b.readLines(src, br, "file")
}

var utf8BOM = []byte("\xef\xbb\xbf")

// isDocument reports whether a stream that starts with head is one JSON
// document rather than JSON lines: a personal archive's
// "window.YTD.tweets.part0 = [...]", a JSON array spread over several lines,
// or any value spread over several lines. The last is recognized by a first
// line that is not valid JSON on its own followed by a second one that is
// not either, so that a JSON lines file whose first line is broken stays
// JSON lines; and a file of one-line arrays is JSON lines too. whole says
// that head is the entire stream.
func isDocument(head []byte, whole bool) bool {
	head = bytes.TrimPrefix(head, utf8BOM)
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 {
		return false
	}
	if bytes.HasPrefix(head, []byte("window.")) {
		return true
	}
	array := head[0] == '['
	first, rest, ok := bytes.Cut(head, []byte{'\n'})
	if !ok {
		return array // one line, or a first line longer than head
	}
	if fastjson.ValidateBytes(first) == nil {
		return false
	}
	if array {
		return true
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	second, _, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok && !whole {
		return false // the second line runs past what was peeked: cannot tell
	}
	return len(second) > 0 && fastjson.ValidateBytes(second) != nil
}

// document adds the whole stream as one record at line 1.
func (rd *reader) document(src string, r io.Reader) error {
	max := rd.b.opts.MaxDocumentBytes
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	o := schemas.Origin{Source: src, Line: 1}
	switch {
	case err != nil:
		return rd.fault(o, data, faultOf(err, "file").Error())
	case len(data) > max:
		n := min(faultDataBytes, len(data))
		return rd.fault(o, data[:n:n], tooLong(max))
	}
	if rd.b.add(schemas.Record{Origin: o, Data: data}) {
		return rd.b.flush(nil, 0)
	}
	return nil
}
