package archiveio

import (
	"bytes"
	"io"
	"strconv"

	"github.com/tweetindex/tweetindex/schemas"
)

// readLines adds one record per line of r, numbered from 1, reading r
// straight into the batcher's arena so that each record's Data is a slice
// of it. A final line without a newline is a record too; a "\r" before the
// newline is dropped. A read failure ends the stream with a faulted record
// holding the partial last line, if any. The returned error is the
// callback's or the context's.
func (b *batcher) readLines(src string, r io.Reader, format string) error {
	b.room()
	maxRec := b.opts.MaxRecordBytes
	var (
		line     int64
		start    = b.off // first byte of the current line
		scan     = b.off // where to look for the next newline
		end      = b.off // end of the data read
		skipping bool    // dropping the rest of an oversized line
		readErr  error
	)
	for {
		buf := b.arena
		for {
			i := bytes.IndexByte(buf[scan:end], '\n')
			if i < 0 {
				scan = end
				break
			}
			nl := scan + i
			full := false
			if skipping {
				skipping = false
			} else {
				line++
				full = b.addLine(src, line, buf[start:nl])
			}
			start, scan = nl+1, nl+1
			b.off = start
			if full {
				if err := b.flush(buf[start:end], 0); err != nil {
					return err
				}
				buf = b.arena
				start, scan, end = 0, 0, b.off
			}
		}
		switch {
		case skipping:
			start, scan, end = b.off, b.off, b.off
		case end-start > maxRec+1: // +1 for a "\r" before the newline
			line++
			n := start + min(faultDataBytes, end-start)
			full := b.fault(schemas.Origin{Source: src, Line: line}, buf[start:n:n], tooLong(maxRec))
			b.off, skipping = n, true
			start, scan, end = n, n, n
			if full {
				if err := b.flush(nil, 0); err != nil {
					return err
				}
				buf = b.arena
				start, scan, end = b.off, b.off, b.off
			}
		}
		if readErr != nil {
			break
		}
		if len(buf)-end < minRead {
			pending := buf[start:end]
			want := max(len(pending)+minRead, min(2*len(pending), maxRec+2))
			if err := b.flush(pending, want); err != nil {
				return err
			}
			buf = b.arena
			scan -= start
			start, end = 0, b.off
		}
		var n int
		n, readErr = r.Read(buf[end:])
		end += n
	}
	full := false
	if readErr == io.EOF {
		if start < end {
			line++
			full = b.addLine(src, line, b.arena[start:end])
			b.off = end
		}
	} else {
		fault := faultOf(readErr, format).Error()
		line++
		var data []byte
		if start < end {
			data = b.arena[start:end:end]
			b.off = end
		}
		full = b.fault(schemas.Origin{Source: src, Line: line}, data, fault)
	}
	if full {
		return b.flush(nil, 0)
	}
	return nil
}

// addLine adds the record of one line (without its newline) and reports
// whether the batch is full.
func (b *batcher) addLine(src string, line int64, data []byte) bool {
	if n := len(data); n > 0 && data[n-1] == '\r' {
		data = data[:n-1]
	}
	o := schemas.Origin{Source: src, Line: line}
	if len(data) > b.opts.MaxRecordBytes {
		n := min(faultDataBytes, len(data))
		data = data[:n:n]
		return b.fault(o, data, tooLong(b.opts.MaxRecordBytes))
	}
	return b.add(schemas.Record{Origin: o, Data: data[:len(data):len(data)]})
}

func tooLong(max int) string {
	return "record exceeds " + strconv.Itoa(max) + " bytes"
}
