package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mmcloughlin/geohash"
)

// TestHeatmapCommand asks query heatmap of the sample: its GeoJSON is a
// FeatureCollection of cell polygons, each the extent of its geohash,
// whose counts add up to count-geo's answer for the same tweets; the
// chart draws a filled shape per cell over the countries' outlines (SVG
// parsed as XML, PNG decoded); a precision out of range is a usage error.
func TestHeatmapCommand(t *testing.T) {
	store, _ := indexedSample(t)
	for _, places := range []string{"--exact", "--places"} {
		out, _ := ask(t, "count-geo", "--store", store, places, "--format", "csv")
		want, err := strconv.ParseInt(csvRows(t, out, "geotagged_tweets")[0][0], 10, 64)
		if err != nil || want == 0 {
			t.Fatalf("count-geo %s: %q", places, out)
		}
		for _, precision := range []string{"1", "3", "6"} {
			out, _ := ask(t, "heatmap", "--store", store, places, "--precision", precision, "--format", "geojson")
			var fc struct {
				Type     string
				Features []struct {
					Geometry struct {
						Type        string
						Coordinates [][][2]float64
					}
					Properties struct {
						Geohash string
						Tweets  int64
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &fc); err != nil || fc.Type != "FeatureCollection" || len(fc.Features) == 0 {
				t.Fatalf("heatmap %s --precision %s: not a FeatureCollection of cells (%v): %.300s", places, precision, err, out)
			}
			var total int64
			for _, f := range fc.Features {
				total += f.Properties.Tweets
				h := f.Properties.Geohash
				b := geohash.BoundingBox(h)
				ring := f.Geometry.Coordinates
				if f.Geometry.Type != "Polygon" || len(h) != int(precision[0]-'0') || len(ring) != 1 || len(ring[0]) != 5 || ring[0][0] != ring[0][4] ||
					ring[0][0] != [2]float64{b.MinLng, b.MinLat} || ring[0][2] != [2]float64{b.MaxLng, b.MaxLat} {
					t.Errorf("heatmap %s --precision %s: cell %q is %v, want the rectangle of its geohash %+v", places, precision, h, f.Geometry, b)
				}
			}
			if total != want {
				t.Errorf("heatmap %s --precision %s: cells add up to %d tweets, count-geo %d", places, precision, total, want)
			}
		}
	}

	dir := t.TempDir()
	svg, pngPath := filepath.Join(dir, "map.svg"), filepath.Join(dir, "map.png")
	out, _ := ask(t, "heatmap", "--store", store, "--places", "--precision", "2", "--format", "csv", "--chart", svg)
	cells := csvRows(t, out, "geohash", "tweets", "min_lat", "min_lon", "max_lat", "max_lon")
	texts, strokes := svgParts(t, svg)
	if !strings.Contains(strings.Join(texts, " "), "precision 2") || len(strokes) == 0 {
		t.Errorf("map.svg: texts %q, strokes %v: want the title and the outlines", texts, strokes)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	// gonum's SVG canvas fills a polygon as a path with a fill style: one
	// per cell, beside the outlines' strokes (hundreds of arcs).
	if fills, lines := bytes.Count(b, []byte("fill:#")), bytes.Count(b, []byte("<path")); fills < len(cells) || lines < 300 {
		t.Errorf("map.svg: %d filled shapes for %d cells, %d paths: want a shape per cell and the countries' outlines", fills, len(cells), lines)
	}
	ask(t, "heatmap", "--store", store, "--places", "--chart", pngPath)
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("map.png: %v", err)
	}
	if r := img.Bounds(); r.Dx() < 500 || r.Dy() < 200 || !hasColor(img) {
		t.Errorf("map.png: %v, coloured %v: want a map with shaded cells", r, hasColor(img))
	}

	var stdout, stderr bytes.Buffer
	err = queryMain([]string{"heatmap", "--store", store, "--precision", "9"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "--precision 9: want a geohash length of 1 to 8") {
		t.Errorf("--precision 9: %v, want a usage error naming the range", err)
	}
}

// hasColor says whether an image has a pixel that is neither grey nor
// white: a shaded cell.
func hasColor(img image.Image) bool {
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr != cg || cg != cb {
				return true
			}
		}
	}
	return false
}
