package archiveio

import (
	"bytes"
	"context"

	"github.com/tweetindex/tweetindex/schemas"
)

// SplitMessage reads the records that data, a message of a stream (a
// Kafka message value), holds as a file holding the same bytes would
// hold them: compressed as a whole (gzip, bzip2, zstd: by the magic
// bytes), JSON lines, one JSON document (a v2 page, an array, a
// pretty-printed tweet), a tar or zip archive. It calls fn with each
// record, in order, tagged with Origin{Source: src, Line: its line}
// ("src!member" for a member of an archive), as ReadFile does; damage is
// reported in band, as faulted records.
//
// It reports false, calling fn for nothing, when data is one record as it
// is (one line not compressed: the message of a producer that sends a
// tweet a message), which costs a scan for a newline and the check of the
// first bytes.
func SplitMessage(ctx context.Context, src string, data []byte, opts Options, fn func(schemas.Record) error) (bool, error) {
	if IsOneRecord(data) {
		return false, nil
	}
	var st Stats
	rd := reader{b: newBatcher(ctx, opts.withDefaults(), &st, func(recs []schemas.Record) error {
		for _, r := range recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	})}
	br := bytes.NewReader(data)
	if err := rd.stream(src, "", br, &section{br, int64(len(data))}, 0); err != nil {
		return true, err
	}
	return true, rd.b.close()
}

// IsOneRecord reports whether data is one record as it is: no magic
// number of a compressed stream or an archive at its start, and no line
// but white space around its one line.
func IsOneRecord(data []byte) bool {
	if detect(data[:min(len(data), sniffLen)], "") != formatPlain {
		return false
	}
	data = bytes.TrimLeft(data, " \t\r\n")
	i := bytes.IndexByte(data, '\n')
	return i < 0 || len(bytes.TrimLeft(data[i:], " \t\r\n")) == 0
}
