package archiveio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/valyala/fastjson"

	"github.com/tweetindex/tweetindex/schemas"
)

// text reads a decompressed stream of text: JSON lines, or one document.
//
// The rule: a stream is JSON lines unless it is one JSON document. A
// personal archive's tweets.js ("window.YTD.tweets.part0 = [...]") is
// always a document. Otherwise a stream whose first bytes can begin a
// single JSON value spread over several lines (or one long array) is read
// whole, up to MaxDocumentBytes, and is a document only if it then is
// exactly one JSON value. A stream cut short (a read failure, or longer
// than MaxDocumentBytes) is one faulted document only if what was read is
// the beginning of one JSON value and none of its lines is a JSON object
// by itself; anything else is read as lines, so that the good lines of a
// JSON lines file whose first lines are broken are all read, and each bad
// line is one record.
func (rd *reader) text(src string, br *bufio.Reader) error {
	head, _ := br.Peek(peekSize)
	if isTweetsJS(head) {
		return rd.document(src, br)
	}
	if !mayBeDocument(head) {
		return rd.b.readLines(src, br, "file")
	}
	max := rd.b.opts.MaxDocumentBytes
	data, err := io.ReadAll(io.LimitReader(br, int64(max)+1))
	o := schemas.Origin{Source: src, Line: 1}
	switch {
	case err == nil && len(data) <= max:
		if jsonShape(data) == shapeValue {
			return rd.add(schemas.Record{Origin: o, Data: data})
		}
		return rd.b.readLines(src, bytes.NewReader(data), "file")
	case err != nil:
		if isCutDocument(data) {
			return rd.fault(o, data, faultOf(err, "file").Error())
		}
		return rd.b.readLines(src, io.MultiReader(bytes.NewReader(data), errReader{err}), "file")
	}
	if isCutDocument(data[:max]) {
		n := min(faultDataBytes, len(data))
		return rd.fault(o, data[:n:n], tooLong(max))
	}
	return rd.b.readLines(src, io.MultiReader(bytes.NewReader(data), br), "file")
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

var utf8BOM = []byte("\xef\xbb\xbf")

// trimHead drops a byte order mark and leading white space.
func trimHead(b []byte) []byte {
	return bytes.TrimLeft(bytes.TrimPrefix(b, utf8BOM), " \t\r\n")
}

// isTweetsJS reports whether a stream that starts with head is a personal
// archive's "window.YTD.tweets.part0 = [...]".
func isTweetsJS(head []byte) bool {
	return bytes.HasPrefix(trimHead(head), []byte("window."))
}

// mayBeDocument reports whether a stream that starts with head may be one
// JSON document rather than JSON lines, so that it is worth reading whole
// to tell: head (the stream's first bytes, or all of it) is the beginning
// of one JSON value that spans several lines, or of an array whose first
// line is longer than head. A first line that is a JSON value by itself
// followed by more, or a line that is not JSON at all, makes it JSON lines
// at once.
func mayBeDocument(head []byte) bool {
	head = trimHead(head)
	if len(head) == 0 {
		return false
	}
	sh := jsonShape(head)
	if sh == shapeOther {
		return false
	}
	if bytes.IndexByte(bytes.TrimRight(head, " \t\r\n"), '\n') >= 0 {
		return true
	}
	return head[0] == '['
}

// isCutDocument reports whether data, a stream cut short, is one JSON
// value or the beginning of one, none of whose lines is a JSON object by
// itself: a document that was truncated rather than JSON lines.
func isCutDocument(data []byte) bool {
	data = trimHead(data)
	if jsonShape(data) == shapeOther {
		return false
	}
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] == '{' && fastjson.ValidateBytes(line) == nil {
			return false
		}
	}
	return true
}

// shape is what a run of bytes holds, read as JSON text.
type shape int

const (
	// shapeOther: not the beginning of exactly one JSON value.
	shapeOther shape = iota
	// shapeValue: exactly one JSON value, with only white space around it.
	shapeValue
	// shapePrefix: the beginning of one JSON value, cut short.
	shapePrefix
)

// jsonShape reads data (after a byte order mark) as JSON text, stopping at
// the first syntax error or at the end of the first value.
func jsonShape(data []byte) shape {
	data = trimHead(data)
	if len(data) == 0 {
		return shapeOther
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	depth := 0
	for {
		tok, err := dec.Token()
		switch {
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return shapePrefix
		case err != nil:
			return shapeOther
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			if len(bytes.TrimSpace(data[dec.InputOffset():])) == 0 {
				return shapeValue
			}
			return shapeOther
		}
	}
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
	return rd.add(schemas.Record{Origin: o, Data: data})
}

// add adds a record, handing over the batch if it is full.
func (rd *reader) add(r schemas.Record) error {
	if rd.b.add(r) {
		return rd.b.flush(nil, 0)
	}
	return nil
}
