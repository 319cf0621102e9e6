package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// svgParts parses an SVG document and returns the text of its <text>
// elements and the stroke colors of its <path> elements.
func svgParts(t *testing.T, path string) (texts []string, strokes map[string]bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	strokes = map[string]bool{}
	stroke := regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`)
	d := xml.NewDecoder(f)
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local == "path" {
				for _, a := range e.Attr {
					if m := stroke.FindStringSubmatch(a.Value); a.Name.Local == "style" && m != nil {
						strokes[strings.ToLower(m[1])] = true
					}
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(e)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return texts, strokes
}

// TestSeriesChart draws the sample's tweets per minute by language: the
// SVG parses as XML and has a line (a color of the palette) and a legend
// entry per language, and the table printed beside it is unchanged.
func TestSeriesChart(t *testing.T) {
	store, _ := indexedSample(t)
	chart := filepath.Join(t.TempDir(), "series.svg")
	args := []string{"series", "--store", store, "--by", "minute", "--by-lang", "--format", "csv"}
	plain, _ := ask(t, args...)
	out, _ := ask(t, append(args, "--chart", chart)...)
	if out != plain {
		t.Errorf("--chart changed the table")
	}
	var langs []string
	for _, r := range csvRows(t, out, "minute", "lang", "tweets") {
		if !slices.Contains(langs, r[1]) {
			langs = append(langs, r[1])
		}
	}
	if len(langs) < 3 || len(langs) > maxChartLines {
		t.Fatalf("the sample holds %d languages: the test wants 3 to %d", len(langs), maxChartLines)
	}
	texts, strokes := svgParts(t, chart)
	for _, l := range langs {
		if !slices.Contains(texts, l) {
			t.Errorf("no legend entry %q in %q", l, texts)
		}
	}
	lines := 0
	for _, c := range chartColors[:] {
		if strokes[fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)] {
			lines++
		}
	}
	if lines != len(langs) {
		t.Errorf("%d line colors in the SVG, %d languages", lines, len(langs))
	}
	// Without --by-lang: one line.
	one := filepath.Join(t.TempDir(), "one.svg")
	ask(t, "series", "--store", store, "--by", "hour", "--chart", one)
	if _, strokes := svgParts(t, one); !strokes[fmt.Sprintf("#%02x%02x%02x", chartColors[0].R, chartColors[0].G, chartColors[0].B)] || strokes[fmt.Sprintf("#%02x%02x%02x", chartColors[1].R, chartColors[1].G, chartColors[1].B)] {
		t.Errorf("series without --by-lang: line colors %v, want the first only", strokes)
	}
	var errOut strings.Builder
	if err := queryMain([]string{"series", "--store", store, "--chart", filepath.Join(t.TempDir(), "x.gif")}, io.Discard, &errOut); err == nil || !strings.Contains(err.Error(), ".svg, .png or .pdf") {
		t.Errorf("--chart x.gif: %v", err)
	}
}

// TestChartLinesGroupsLanguages: more languages than lines put the rest
// together, the largest first; every step keeps its count.
func TestChartLinesGroupsLanguages(t *testing.T) {
	var points []query.Point
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for s := 0; s < 3; s++ {
		for l := 0; l < maxChartLines+2; l++ {
			points = append(points, query.Point{Start: at.Add(time.Duration(s) * time.Hour), Lang: fmt.Sprintf("l%02d", l), Count: int64(100 - l)})
		}
	}
	steps, lines := chartLines(points, true)
	if len(steps) != 3 || len(lines) != maxChartLines {
		t.Fatalf("%d steps, %d lines", len(steps), len(lines))
	}
	if lines[0].name != "l00" || lines[maxChartLines-1].name != "other (3 languages)" {
		t.Errorf("lines %q ... %q", lines[0].name, lines[maxChartLines-1].name)
	}
	if got, want := lines[maxChartLines-1].counts[2], float64(100-9+100-10+100-11); got != want {
		t.Errorf("other at step 3: %g, want %g", got, want)
	}
}

// TestGeoJSON writes the sample's geotagged tweets as GeoJSON: a
// FeatureCollection with a Point feature per tweet the CSV answer holds,
// at its coordinates ([lon, lat]), with its id, time and kind of point.
func TestGeoJSON(t *testing.T) {
	store, _ := indexedSample(t)
	for _, places := range []bool{false, true} {
		args := []string{"geo", "--store", store, "--bbox", "-180,-90,180,90"}
		if places {
			args = append(args, "--places")
		}
		rows := csvRows(t, first(ask(t, append(args, "--format", "csv")...)), hitColumns...)
		out, _ := ask(t, append(args, "--format", "geojson")...)
		var fc struct {
			Type     string
			Features []struct {
				Type     string
				Geometry struct {
					Type        string
					Coordinates []float64
				}
				Properties map[string]any
			}
		}
		if err := json.Unmarshal([]byte(out), &fc); err != nil {
			t.Fatalf("not JSON: %v: %.300s", err, out)
		}
		if fc.Type != "FeatureCollection" || len(fc.Features) != len(rows) || len(rows) < 10 {
			t.Fatalf("places %v: %s with %d features, CSV has %d rows", places, fc.Type, len(fc.Features), len(rows))
		}
		kinds := map[string]int{}
		for i, f := range fc.Features {
			r := rows[i]
			if f.Type != "Feature" || f.Geometry.Type != "Point" || len(f.Geometry.Coordinates) != 2 {
				t.Fatalf("feature %d: %+v", i, f)
			}
			if got := fmt.Sprint(float32(f.Geometry.Coordinates[0]), ",", float32(f.Geometry.Coordinates[1])); got != r[6]+","+r[5] {
				t.Errorf("feature %d at %s, CSV lon,lat %s,%s", i, got, r[6], r[5])
			}
			if f.Properties["id"] != r[2] || f.Properties["created_at"] != r[1] || f.Properties["row_key"] != r[0] {
				t.Errorf("feature %d properties %v, CSV row %q", i, f.Properties, r[:3])
			}
			kind, _ := f.Properties["point"].(string)
			kinds[kind]++
		}
		if !places && (kinds["exact"] != len(rows) || len(kinds) != 1) {
			t.Errorf("exact points only: kinds %v", kinds)
		}
		if places && (kinds["exact"] == 0 || kinds["place"] == 0 || kinds["exact"]+kinds["place"] != len(rows)) {
			t.Errorf("with place centres: kinds %v", kinds)
		}
	}
	var errOut strings.Builder
	if err := queryMain([]string{"count", "--store", store, "--format", "geojson"}, io.Discard, &errOut); err == nil || !strings.Contains(err.Error(), "geojson is for the retrievals") {
		t.Errorf("count --format geojson: %v", err)
	}
}
