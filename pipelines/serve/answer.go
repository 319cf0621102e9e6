package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Headers of an answer besides its rows. They are headers when the answer
// is held whole before it is sent (every answer up to bufferSize, and a
// page up to pageBufferSize), trailers otherwise (HTTP/1.1 chunked).
const (
	// HeaderNextCursor is the cursor of the next page, when a page is
	// full: the row key of its last tweet, its row_key column.
	HeaderNextCursor = "Tweetindex-Next-Cursor"
	// HeaderNote carries a note of the command line's (one per value).
	HeaderNote = "Tweetindex-Note"
	// HeaderSnapshot is when the snapshot the answer came from was
	// taken, for a store a stream is writing (RFC 3339).
	HeaderSnapshot = "Tweetindex-Snapshot"
)

// bufferSize is how much of an answer is held before its first byte is
// sent: a failure before then is an error status rather than a cut
// stream. A page (a retrieval with a limit) is held up to pageBufferSize,
// so that its cursor comes as a header.
const (
	bufferSize     = 64 << 10
	pageBufferSize = 1 << 20
)

// errorBody is the body of an error status: the command line's one-line
// message.
type errorBody struct {
	Error string `json:"error"`
}

// writeError answers with code and the message msg, as JSON.
func writeError(w http.ResponseWriter, code int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(errorBody{Error: msg})
}

// answer is the handler of question q.
func (s *Server) answer(q Question) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// A client that reads slowly, or not at all, must not hold a slot
		// past the timeout either: a write blocked on it fails a little
		// after (time to say 504 to one that reads), and the answer ends.
		http.NewResponseController(w).SetWriteDeadline(start.Add(s.cfg.Timeout + min(s.cfg.Timeout, 5*time.Second)))
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		defer func() { s.metrics.observe(q.Name, sw.code, time.Since(start)) }()
		if len(r.URL.RawQuery) > s.cfg.MaxQuery {
			writeError(sw, http.StatusRequestURITooLong, fmt.Sprintf("the query string is %d bytes: at most %d", len(r.URL.RawQuery), s.cfg.MaxQuery))
			return
		}
		params, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			writeError(sw, http.StatusBadRequest, fmt.Sprintf("the query string: %v", err))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		s.metrics.gauges(0, 1)
		select {
		case s.slots <- struct{}{}:
			s.metrics.gauges(1, -1)
			defer func() { <-s.slots; s.metrics.gauges(-1, 0) }()
		case <-ctx.Done():
			s.metrics.gauges(0, -1)
			writeError(sw, http.StatusServiceUnavailable, fmt.Sprintf("busy: %d questions were being answered for %s; try again later", s.cfg.MaxInFlight, s.cfg.Timeout))
			return
		}
		g, release, err := s.src.acquire()
		if err != nil {
			writeError(sw, http.StatusServiceUnavailable, err.Error())
			return
		}
		defer release()

		format := params.Get("format")
		if format == "" {
			format = q.Formats[0]
		}
		size := bufferSize
		if q.Retrieval && params.Get("limit") != "" && params.Get("limit") != "0" {
			size = pageBufferSize
		}
		out := &heldWriter{w: sw, size: size, contentType: contentTypes[format]}
		if !g.snapshot.IsZero() {
			out.snapshot = g.snapshot.UTC().Format(time.RFC3339Nano)
		}
		if q.Coverage != nil {
			c, err := q.Coverage(ctx, g.engine, params)
			if err != nil && ctx.Err() == nil {
				s.log.Warn("coverage", "question", q.Name, "error", oneLine(err.Error()))
				writeError(sw, http.StatusInternalServerError, oneLine(err.Error()))
				return
			}
			// (Past the request's time, or the client gone: the answer
			// says so.)
			if err == nil && c != nil {
				out.coverage = c.header()
			}
		}
		res, err := q.Answer(ctx, g.engine, params, out)
		if err != nil {
			msg := oneLine(err.Error())
			if out.sent {
				// The status is sent: cut the stream, so that the client
				// sees an answer that ended before its end rather than a
				// short one. net/http closes the connection without
				// ending the chunked body, and logs nothing.
				s.log.Warn("answer cut short", "question", q.Name, "error", msg)
				sw.code = http.StatusInternalServerError // for the metrics
				panic(http.ErrAbortHandler)
			}
			code := http.StatusInternalServerError
			switch {
			case IsBadRequest(err):
				code = http.StatusBadRequest
			case IsNotIndexed(err):
				code = http.StatusConflict
			case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && r.Context().Err() == nil:
				code, msg = http.StatusGatewayTimeout, fmt.Sprintf("the answer took longer than %s (--timeout): narrow the range or ask for a page (limit)", s.cfg.Timeout)
			case r.Context().Err() != nil:
				code = 499 // the client went away; nobody reads this
			default:
				s.log.Warn("question failed", "question", q.Name, "error", msg)
			}
			writeError(sw, code, msg)
			return
		}
		h := sw.Header()
		prefix := ""
		if out.sent {
			prefix = http.TrailerPrefix
		}
		if res.NextCursor != "" {
			h.Set(prefix+HeaderNextCursor, res.NextCursor)
		}
		for _, n := range res.Notes {
			h.Add(prefix+HeaderNote, oneLine(n))
		}
		if err := out.Close(); err != nil && r.Context().Err() == nil {
			s.log.Warn("writing an answer", "question", q.Name, "error", err.Error())
		}
	}
}

// oneLine makes s fit in a header: one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// statusWriter remembers the status sent, for the metrics.
type statusWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wroteHeader {
		s.code, s.wroteHeader = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wroteHeader = true
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// heldWriter holds the first size bytes of an answer before sending
// anything, so that an error found meanwhile becomes an error status and
// a short answer goes out whole with its headers; past size it streams.
type heldWriter struct {
	w           *statusWriter
	size        int
	contentType string
	snapshot    string
	coverage    string // HeaderCoverage, if any
	buf         []byte
	sent        bool // the status and headers are sent
}

func (h *heldWriter) Write(p []byte) (int, error) {
	if h.sent {
		return h.w.Write(p)
	}
	if len(h.buf)+len(p) <= h.size {
		h.buf = append(h.buf, p...)
		return len(p), nil
	}
	h.send(false)
	if _, err := h.w.Write(h.buf); err != nil {
		return 0, err
	}
	h.buf = nil
	return h.w.Write(p)
}

// send sends the status and headers; whole says the held bytes are the
// whole answer (its length is known).
func (h *heldWriter) send(whole bool) {
	hd := h.w.Header()
	if h.contentType != "" {
		hd.Set("Content-Type", h.contentType)
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	if h.snapshot != "" {
		hd.Set(HeaderSnapshot, h.snapshot)
	}
	if h.coverage != "" {
		hd.Set(HeaderCoverage, h.coverage)
	}
	if whole {
		hd.Set("Content-Length", strconv.Itoa(len(h.buf)))
	}
	h.w.WriteHeader(http.StatusOK)
	h.sent = true
}

// Close sends what is held: the whole answer if nothing was sent yet.
func (h *heldWriter) Close() error {
	if h.sent {
		return nil
	}
	h.send(true)
	_, err := h.w.Write(h.buf)
	return err
}
