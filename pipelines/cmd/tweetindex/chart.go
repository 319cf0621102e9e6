package main

import (
	"cmp"
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// maxChartLines is the most lines a chart draws: with more languages, the
// largest maxChartLines-1 get a line each and the rest one line together.
const maxChartLines = 10

// chartColors are the lines' colors (Tableau 10): distinct, and readable
// on white.
var chartColors = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff}, {0x59, 0xa1, 0x4f, 0xff},
	{0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// chartLine is one line of a chart: a name and a count per step.
type chartLine struct {
	name   string
	counts []float64
	total  int64
}

// chartLines groups a series (zero-filled, in time order; with byLang a
// point per step and language) into lines: one, or one per language, the
// largest first, at most maxChartLines. It returns the steps' starts in
// Unix seconds too.
func chartLines(points []query.Point, byLang bool) (steps []float64, lines []chartLine) {
	index := map[string]int{}
	stepIndex := map[int64]int{}
	for _, p := range points {
		at := p.Start.Unix()
		si, ok := stepIndex[at]
		if !ok {
			si = len(steps)
			stepIndex[at] = si
			steps = append(steps, float64(at))
		}
		name := "tweets"
		if byLang {
			name = p.Lang
		}
		li, ok := index[name]
		if !ok {
			li = len(lines)
			index[name] = li
			lines = append(lines, chartLine{name: name})
		}
		l := &lines[li]
		for len(l.counts) <= si {
			l.counts = append(l.counts, 0)
		}
		l.counts[si] += float64(p.Count)
		l.total += p.Count
	}
	for i := range lines {
		for len(lines[i].counts) < len(steps) {
			lines[i].counts = append(lines[i].counts, 0)
		}
	}
	slices.SortStableFunc(lines, func(a, b chartLine) int {
		return cmp.Or(cmp.Compare(b.total, a.total), cmp.Compare(a.name, b.name))
	})
	if len(lines) > maxChartLines {
		rest := chartLine{name: fmt.Sprintf("other (%d languages)", len(lines)-maxChartLines+1), counts: make([]float64, len(steps))}
		for _, l := range lines[maxChartLines-1:] {
			for i, c := range l.counts {
				rest.counts[i] += c
			}
			rest.total += l.total
		}
		lines = append(lines[:maxChartLines-1], rest)
	}
	return steps, lines
}

// timeFormats label the time axis of a chart of steps of each size.
var timeFormats = map[string]string{"minute": "01-02\n15:04", "hour": "01-02\n15:04", "day": "2006-01-02"}

// writeChart draws the series as a line chart (a line per language with
// byLang) into path: SVG, PNG or PDF by its extension.
func writeChart(path string, points []query.Point, by string, byLang bool) error {
	if err := checkChartPath(path); err != nil {
		return err
	}
	steps, lines := chartLines(points, byLang)
	p := plot.New()
	p.Title.Text = "tweets per " + by
	if byLang {
		p.Title.Text += ", by language"
	}
	p.Y.Label.Text = "tweets"
	p.X.Label.Text = "UTC"
	p.Y.Min = 0
	p.X.Tick.Marker = plot.TimeTicks{Format: timeFormats[by]}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	top := 1.0
	for _, l := range lines {
		top = max(top, slices.Max(append(l.counts, 0)))
	}
	p.Y.Max = top * (1 + 0.08*float64(len(lines)+1)) // room for the legend above the lines
	for i, l := range lines {
		xys := make(plotter.XYs, len(steps))
		for j := range steps {
			xys[j] = plotter.XY{X: steps[j], Y: l.counts[j]}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("--chart: %w", err)
		}
		line.Color = chartColors[i%len(chartColors)]
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(l.name, line)
	}
	if err := p.Save(9*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	return nil
}

// checkChartPath says what is wrong with --chart path, if anything: its
// extension picks the format.
func checkChartPath(path string) error {
	if path == "" {
		return nil
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".svg" && ext != ".png" && ext != ".pdf" {
		return fmt.Errorf("--chart %s: want a .svg, .png or .pdf file", path)
	}
	return nil
}
