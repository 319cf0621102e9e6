package main

import (
	"bytes"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
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
	case "geojson":
		return &geojsonWriter{w: w}, nil
	}
	return nil, fmt.Errorf("--format %q: want table, jsonl, csv or geojson", format)
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

// geojsonWriter writes a GeoJSON FeatureCollection (RFC 7946) of the rows
// of a retrieval, streamed: a Feature per row, its geometry the Point of
// the lat and lon columns (null for a tweet without a point), or for the
// cells of a heatmap the Polygon of the min_lat, min_lon, max_lat and
// max_lon columns, the other columns its properties, as jsonl writes them.
type geojsonWriter struct {
	w       io.Writer
	cols    []string
	lat     int // column indexes
	lon     int
	bounds  [4]int // of a cell's min_lat, min_lon, max_lat, max_lon
	cell    bool   // rows are cells (bounds), not points
	started bool
	n       int
	props   jsonlWriter
	buf     []byte
}

func (g *geojsonWriter) Header(cols ...string) error {
	g.lat, g.lon = slices.Index(cols, "lat"), slices.Index(cols, "lon")
	g.bounds = [4]int{slices.Index(cols, "min_lat"), slices.Index(cols, "min_lon"), slices.Index(cols, "max_lat"), slices.Index(cols, "max_lon")}
	g.cell = !slices.Contains(g.bounds[:], -1)
	if (g.lat < 0 || g.lon < 0) && !g.cell {
		return fmt.Errorf("--format geojson: the answer has no points and no cells (it is for retrievals: geo, tweets, terms; and heatmap)")
	}
	g.cols = cols
	var props []string
	for i, c := range cols {
		if !g.geometry(i) {
			props = append(props, c)
		}
	}
	g.props.Header(props...)
	g.started = true
	_, err := io.WriteString(g.w, `{"type":"FeatureCollection","features":[`+"\n")
	return err
}

func (g *geojsonWriter) Row(vals ...any) error {
	var props []any
	for i, v := range vals {
		if !g.geometry(i) {
			props = append(props, v)
		}
	}
	var pb bytes.Buffer
	g.props.w = &pb
	if err := g.props.Row(props...); err != nil {
		return err
	}
	g.buf = g.buf[:0]
	if g.n > 0 {
		g.buf = append(g.buf, ",\n"...)
	}
	g.n++
	g.buf = append(g.buf, `{"type":"Feature","geometry":`...)
	if g.cell {
		// The cell's rectangle, counterclockwise (RFC 7946, 3.1.6).
		var v [4]string // min_lat, min_lon, max_lat, max_lon
		for i, c := range g.bounds {
			v[i] = formatValue(vals[c])
		}
		g.buf = fmt.Appendf(g.buf, `{"type":"Polygon","coordinates":[[[%[2]s,%[1]s],[%[4]s,%[1]s],[%[4]s,%[3]s],[%[2]s,%[3]s],[%[2]s,%[1]s]]]}`, v[0], v[1], v[2], v[3])
	} else if lat, lon, ok := point(vals[g.lat], vals[g.lon]); ok {
		// [lon, lat], as GeoJSON orders them, with the digits a float32 holds.
		g.buf = fmt.Appendf(g.buf, `{"type":"Point","coordinates":[%s,%s]}`, formatValue(lon), formatValue(lat))
	} else {
		g.buf = append(g.buf, "null"...)
	}
	g.buf = append(g.buf, `,"properties":`...)
	g.buf = append(g.buf, bytes.TrimRight(pb.Bytes(), "\n")...)
	g.buf = append(g.buf, '}')
	_, err := g.w.Write(g.buf)
	return err
}

// point returns the coordinates of a row's lat and lon columns, if it
// has them (a tweet without a point has neither).
func point(lat, lon any) (float32, float32, bool) {
	la, okLat := lat.(float32)
	lo, okLon := lon.(float32)
	return la, lo, okLat && okLon
}

// geometry says that column i is the geometry's, not a property.
func (g *geojsonWriter) geometry(i int) bool {
	if g.cell {
		return slices.Contains(g.bounds[:], i)
	}
	return i == g.lat || i == g.lon
}

func (g *geojsonWriter) Flush() error {
	if !g.started {
		return nil
	}
	g.started = false
	_, err := io.WriteString(g.w, "\n]}\n")
	return err
}

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

// pointColumn follows hitColumns in GeoJSON: the kind of a tweet's point,
// exact (its coordinates) or place (its place's centre).
const pointColumn = "point"

// hitRow returns the values of hitColumns for h (decoding its tweet); lat
// and lon are empty for a tweet without a point. With withKind, the kind
// of the point follows (pointColumn), empty without one.
func hitRow(h query.Hit, withKind bool) ([]any, error) {
	t, err := h.Tweet()
	if err != nil {
		return nil, err
	}
	var lat, lon any
	kind := ""
	switch {
	case h.HasPoint:
		lat, lon, kind = h.Lat, h.Lon, h.Kind.String()
	case t.HasPoint:
		lat, lon, kind = float32(t.Lat), float32(t.Lon), schemas.TweetPointKind(t).String()
	}
	row := []any{h.Key[:], time.Unix(t.CreatedAt, 0), fmt.Sprint(t.ID), t.Lang, t.ScreenName, lat, lon, t.Text}
	if withKind {
		row = append(row, kind)
	}
	return row, nil
}
