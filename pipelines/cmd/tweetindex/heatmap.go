package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/pipelines/serve"
)

// heatmap answers query heatmap: a row per geohash cell, with its extent.
func (q *queryCmd) heatmap(ctx context.Context) error {
	cells, err := q.engine.Heatmap(ctx, q.filter, q.box, q.precision)
	if err != nil {
		return err
	}
	if q.chart != "" {
		if err := writeHeatmapChart(q.chart, cells, q.box, q.precision); err != nil {
			return err
		}
	}
	if err := q.out.Header("geohash", "tweets", "min_lat", "min_lon", "max_lat", "max_lon"); err != nil {
		return err
	}
	for _, c := range cells {
		minLat, minLon, maxLat, maxLon := c.Bounds()
		if err := q.out.Row(c.Geohash, c.Count, minLat, minLon, maxLat, maxLon); err != nil {
			return err
		}
	}
	if q.format == "table" {
		total, largest := query.HeatTotal(cells)
		q.note = fmt.Sprintf("%d tweets in %d cells of precision %d (the largest: %d)", total, len(cells), q.precision, largest)
	}
	return nil
}

// writeHeatmapChart draws the cells over the countries' outlines into
// path (SVG, PNG or PDF by its extension): each cell a rectangle shaded by
// its count on a logarithmic scale, the map framed on box (the cells'
// extent without one).
func writeHeatmapChart(path string, cells []query.HeatCell, box *query.Box, precision int) error {
	outlines, err := countryArcs()
	if err != nil {
		return fmt.Errorf("--chart: the countries' outlines: %w", err)
	}
	p := plot.New()
	total, largest := query.HeatTotal(cells)
	p.Title.Text = fmt.Sprintf("geotagged tweets by geohash cell of precision %d: %d tweets, %d cells", precision, total, len(cells))
	p.X.Label.Text = "longitude"
	p.Y.Label.Text = "latitude"
	minLat, minLon, maxLat, maxLon := -90.0, -180.0, 90.0, 180.0
	switch {
	case box != nil && box.MinLon <= box.MaxLon:
		minLat, minLon, maxLat, maxLon = box.MinLat, box.MinLon, box.MaxLat, box.MaxLon
	case box == nil && len(cells) > 0:
		minLat, minLon, maxLat, maxLon = 90, 180, -90, -180
		for _, c := range cells {
			a, b, cc, d := c.Bounds()
			minLat, minLon, maxLat, maxLon = min(minLat, a), min(minLon, b), max(maxLat, cc), max(maxLon, d)
		}
		// A margin of a tenth, for the coasts around the cells.
		dLat, dLon := (maxLat-minLat)/10+0.5, (maxLon-minLon)/10+0.5
		minLat, minLon, maxLat, maxLon = max(minLat-dLat, -90), max(minLon-dLon, -180), min(maxLat+dLat, 90), min(maxLon+dLon, 180)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = minLon, maxLon, minLat, maxLat
	for _, c := range cells {
		a, b, cc, d := c.Bounds()
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b, Y: a}, {X: d, Y: a}, {X: d, Y: cc}, {X: b, Y: cc}})
		if err != nil {
			return fmt.Errorf("--chart: %w", err)
		}
		poly.Color = heatColor(c.Count, largest)
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	for _, arc := range outlines {
		line, err := plotter.NewLine(arc)
		if err != nil {
			return fmt.Errorf("--chart: %w", err)
		}
		line.Color = color.RGBA{0x55, 0x55, 0x55, 0xff}
		line.Width = vg.Points(0.5)
		p.Add(line)
	}
	// Degrees of longitude and latitude drawn alike near the map's
	// middle latitude (an equirectangular view).
	w := 10 * vg.Inch
	h := vg.Length(float64(w) * (maxLat - minLat) / ((maxLon - minLon) * math.Cos((minLat+maxLat)/2*math.Pi/180)))
	h = min(max(h, 3*vg.Inch), 14*vg.Inch) + vg.Inch // the title and axes
	if err := p.Save(w, h, path); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	return nil
}

// heatColor shades a cell of n tweets, of the largest cell's most: pale
// yellow to dark red on a logarithmic scale, half opaque so that the
// outlines show through.
func heatColor(n, most int64) color.Color {
	f := 1.0
	if most > 1 {
		f = math.Log1p(float64(n)) / math.Log1p(float64(most))
	}
	lerp := func(a, b uint8) uint8 { return uint8(float64(a) + f*(float64(b)-float64(a))) }
	return color.NRGBA{lerp(0xff, 0xb1), lerp(0xed, 0x00), lerp(0xa0, 0x26), 0xd0}
}

// countryArcs decodes the arcs of the countries' TopoJSON (world-atlas,
// quantized and delta-encoded) into lines of longitude and latitude:
// every border and coast, each drawn once.
func countryArcs() ([]plotter.XYs, error) {
	var topo struct {
		Arcs      [][][2]float64 `json:"arcs"`
		Transform *struct {
			Scale     [2]float64 `json:"scale"`
			Translate [2]float64 `json:"translate"`
		} `json:"transform"`
	}
	if err := json.Unmarshal(serve.CountriesTopoJSON(), &topo); err != nil {
		return nil, err
	}
	if topo.Transform == nil {
		return nil, fmt.Errorf("not a quantized topology")
	}
	s, t := topo.Transform.Scale, topo.Transform.Translate
	lines := make([]plotter.XYs, 0, len(topo.Arcs))
	for _, arc := range topo.Arcs {
		var xys plotter.XYs
		var x, y float64
		for _, d := range arc {
			x, y = x+d[0], y+d[1]
			pt := plotter.XY{X: x*s[0] + t[0], Y: y*s[1] + t[1]}
			if n := len(xys); n > 0 && math.Abs(pt.X-xys[n-1].X) > 180 {
				// The arc crosses the antimeridian: two lines, not one
				// across the map.
				lines = appendLine(lines, xys)
				xys = nil
			}
			xys = append(xys, pt)
		}
		lines = appendLine(lines, xys)
	}
	return lines, nil
}

// appendLine appends xys to lines if it is a line (two points or more).
func appendLine(lines []plotter.XYs, xys plotter.XYs) []plotter.XYs {
	if len(xys) < 2 {
		return lines
	}
	return append(lines, xys)
}
