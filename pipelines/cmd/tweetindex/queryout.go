package main

import (
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// resultWriter writes a question's answer as rows of named columns.
type resultWriter interface {
	// Header names the columns; it comes once, before the rows.
	Header(cols ...string) error
	// Row writes one row: a value per column.
	Row(vals ...any) error
	// Flush writes what is buffered.
	Flush() error
}

// newResultWriter returns the writer of --format: "table" (aligned, for
// people), "jsonl" (an object per row) or "csv" (with a header line).
func newResultWriter(format string, w io.Writer) (resultWriter, error) {
	switch format {
	case "table":
		return &tableWriter{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}, nil
	case "jsonl":
		return &jsonlWriter{w: w}, nil
	case "csv":
		return &csvWriter{w: csv.NewWriter(w)}, nil
	}
	return nil, fmt.Errorf("--format %q: want table, jsonl or csv", format)
}

// tableWriter aligns columns; long text is cut to one line. It buffers
// until Flush (the width of a column is known at the end), so a long
// retrieval should ask for --limit or another format.
type tableWriter struct {
	tw *tabwriter.Writer
}

func (t *tableWriter) Header(cols ...string) error {
	_, err := fmt.Fprintln(t.tw, strings.ToUpper(strings.Join(cols, "\t")))
	return err
}

func (t *tableWriter) Row(vals ...any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = oneLine(formatValue(v), 80)
	}
	_, err := fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
	return err
}

func (t *tableWriter) Flush() error { return t.tw.Flush() }

// jsonlWriter writes {"col": value, ...} per row, numbers as numbers.
type jsonlWriter struct {
	w    io.Writer
	cols []string
	buf  []byte
}

func (j *jsonlWriter) Header(cols ...string) error { j.cols = cols; return nil }

func (j *jsonlWriter) Row(vals ...any) error {
	j.buf = append(j.buf[:0], '{')
	for i, v := range vals {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		name, _ := json.Marshal(j.cols[i])
		j.buf = append(append(j.buf, name...), ':')
		var value []byte
		var err error
		switch v := v.(type) {
		case json.RawMessage:
			value = v
		case time.Time, string, []byte:
			value, err = json.Marshal(formatValue(v))
		default:
			value, err = json.Marshal(v)
		}
		if err != nil {
			return err
		}
		j.buf = append(j.buf, value...)
	}
	j.buf = append(j.buf, '}', '\n')
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonlWriter) Flush() error { return nil }

// csvWriter writes RFC 4180 CSV with a header line.
type csvWriter struct {
	w *csv.Writer
}

func (c *csvWriter) Header(cols ...string) error { return c.w.Write(cols) }

func (c *csvWriter) Row(vals ...any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = formatValue(v)
	}
	return c.w.Write(cells)
}

func (c *csvWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// formatValue renders a value for a table or CSV cell: times in RFC 3339
// UTC, row keys in hex, float32 coordinates with the digits they hold.
func formatValue(v any) string {
	switch v := v.(type) {
	case time.Time:
		return v.UTC().Format(time.RFC3339)
	case []byte:
		return hex.EncodeToString(v)
	case float32:
		return fmt.Sprint(v)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// oneLine turns text into one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// hitColumns are the columns of a retrieved tweet.
var hitColumns = []string{"row_key", "created_at", "id", "lang", "user", "lat", "lon", "text"}

// hitRow returns the values of hitColumns for h (decoding its tweet); lat
// and lon are empty for a tweet without a point.
func hitRow(h query.Hit) ([]any, error) {
	t, err := h.Tweet()
	if err != nil {
		return nil, err
	}
	var lat, lon any
	switch {
	case h.HasPoint:
		lat, lon = h.Lat, h.Lon
	case t.HasPoint:
		lat, lon = float32(t.Lat), float32(t.Lon)
	}
	return []any{h.Key[:], time.Unix(t.CreatedAt, 0), fmt.Sprint(t.ID), t.Lang, t.ScreenName, lat, lon, t.Text}, nil
}
