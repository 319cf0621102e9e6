package cassandratest

import "fmt"

// Error codes of section 9.
const (
	codeServer         = 0x0000
	codeProtocol       = 0x000A
	codeBadCredentials = 0x0100
	codeUnavailable    = 0x1000
	codeOverloaded     = 0x1001
	codeWriteTimeout   = 0x1100
	codeSyntax         = 0x2000
	codeInvalid        = 0x2200
	codeUnprepared     = 0x2500
)

// cqlError is an ERROR response (section 4.2.1): a code, a message and the
// code's extra fields.
type cqlError struct {
	code  int32
	msg   string
	extra func(w *writer)
}

func (e *cqlError) Error() string { return fmt.Sprintf("cql error 0x%04x: %s", e.code, e.msg) }

func (e *cqlError) frame(stream int16) []byte {
	w := newFrame(stream, opError)
	w.int(e.code)
	w.string(e.msg)
	if e.extra != nil {
		e.extra(w)
	}
	return w.finish()
}

func errProtocol(format string, args ...any) *cqlError {
	return &cqlError{code: codeProtocol, msg: fmt.Sprintf(format, args...)}
}

func errInvalid(format string, args ...any) *cqlError {
	return &cqlError{code: codeInvalid, msg: fmt.Sprintf(format, args...)}
}

func errUnavailable(cl uint16) *cqlError {
	return &cqlError{code: codeUnavailable, msg: "Cannot achieve consistency level " + consistencyName(cl) + " (injected fault)",
		extra: func(w *writer) { w.short(cl); w.int(2); w.int(1) }}
}

func errOverloaded() *cqlError {
	return &cqlError{code: codeOverloaded, msg: "Server is in overloaded state. Cannot accept more requests at this point (injected fault)"}
}

func errWriteTimeout(cl uint16, writeType string) *cqlError {
	return &cqlError{code: codeWriteTimeout, msg: "Operation timed out - received only 0 responses (injected fault)",
		extra: func(w *writer) { w.short(cl); w.int(0); w.int(1); w.string(writeType) }}
}

func errUnprepared(id []byte) *cqlError {
	return &cqlError{code: codeUnprepared, msg: fmt.Sprintf("Prepared query with ID %x not found", id),
		extra: func(w *writer) { w.shortBytes(id) }}
}

// Consistency levels of section 3.
var consistencyNames = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"}

const (
	clAny         = 0x0000
	clSerial      = 0x0008
	clLocalSerial = 0x0009
)

func consistencyName(cl uint16) string {
	if int(cl) < len(consistencyNames) {
		return consistencyNames[cl]
	}
	return fmt.Sprintf("consistency(0x%04x)", cl)
}
