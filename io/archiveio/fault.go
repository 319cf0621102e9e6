package archiveio

import (
	"errors"
	"io"
)

// streamError is a failure of one stream (a compressed stream, an archive
// member, the file itself) while reading it. It is reported in band, as the
// Fault of a record, rather than failing the file.
type streamError struct {
	format string // "gzip", "bzip2", "zstd", "tar", "zip" or "file"
	err    error
	// reported is set once a record carries this fault, so that the
	// layers above do not report the same failure again.
	reported bool
}

// Error renders the fault: "truncated gzip stream: unexpected EOF",
// "corrupt bzip2 stream: bzip2: corrupted input: ...".
func (e *streamError) Error() string {
	if e.format == "file" {
		return "read error: " + e.err.Error()
	}
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		return "truncated " + e.format + " stream: " + e.err.Error()
	}
	return "corrupt " + e.format + " stream: " + e.err.Error()
}

func (e *streamError) Unwrap() error { return e.err }

// faultReader turns the first failure of r into a sticky *streamError
// naming format. A failure that already is a *streamError (from a layer
// below) passes unchanged, so that a fault names the layer where it began.
type faultReader struct {
	r      io.Reader
	format string
	err    error
}

func (f *faultReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.r.Read(p)
	if err != nil {
		if err != io.EOF {
			var se *streamError
			if !errors.As(err, &se) {
				se = &streamError{format: f.format, err: err}
			}
			err = se
		}
		f.err = err
	}
	return n, err
}

// faultOf returns the stream error behind err, making one if err is some
// other failure, and marks it reported.
func faultOf(err error, format string) *streamError {
	var se *streamError
	if !errors.As(err, &se) {
		se = &streamError{format: format, err: err}
	}
	se.reported = true
	return se
}

// isReported reports whether err is a stream failure that a record already
// carries.
func isReported(err error) bool {
	var se *streamError
	return errors.As(err, &se) && se.reported
}
