package main

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// edgeTypeNames lists the kinds of edge as --type takes them.
func edgeTypeNames() string {
	var names []string
	for _, t := range schemas.EdgeTypes() {
		names = append(names, t.Name())
	}
	return strings.Join(names, ", ")
}

// resolveEdges checks the flags of query edges and makes its writer.
func (q *queryCmd) resolveEdges() error {
	if q.edgeType == "" {
		return errors.New("--type is required: " + edgeTypeNames())
	}
	t, ok := schemas.EdgeTypeByName(q.edgeType)
	if !ok {
		return fmt.Errorf("--type %q: want one of %s", q.edgeType, edgeTypeNames())
	}
	if q.top < 0 {
		return fmt.Errorf("--top %d: want 0 (all) or more", q.top)
	}
	q.edgeQ = query.EdgeQuery{Type: t, Node: strings.TrimPrefix(strings.TrimPrefix(q.node, "@"), "#"), Top: q.top}
	switch q.format {
	case "gexf", "graphml":
		q.out = &graphWriter{w: q.stdout, format: q.format, kind: t}
		return nil
	case "geojson":
		return errors.New("--format geojson is for the retrievals (geo, tweets, terms): edges has no points; want table, jsonl, csv, gexf or graphml")
	}
	var err error
	if q.out, err = newResultWriter(q.format, q.stdout); err != nil {
		return fmt.Errorf("%w, or for edges gexf or graphml", err)
	}
	return nil
}

// edges answers who retweets, quotes, replies to or mentions whom, or
// which hashtags go together.
func (q *queryCmd) edges(ctx context.Context) error {
	if indexed, err := q.engine.EdgeWeightsIndexed(ctx); err != nil {
		return err
	} else if !indexed {
		fmt.Fprintln(q.stderr, "note: this store was indexed before the edge weights per day existed (no "+schemas.EdgeDaysParam+"): edges reads every edge cell of the range, which is slower over many days; index the tweets into a new store to make it fast")
	}
	edges, err := q.engine.Edges(ctx, q.filter, q.edgeQ)
	if err != nil {
		return err
	}
	if err := q.out.Header("source", "target", "tweets"); err != nil {
		return err
	}
	for _, e := range edges {
		if err := q.out.Row(e.Source, e.Target, e.Tweets); err != nil {
			return err
		}
	}
	return nil
}

// graphWriter writes edges (rows of source, target, tweets) as a graph
// file that Gephi, networkx and igraph read: GEXF 1.2 or GraphML, nodes
// labelled with their names and edges weighted by their tweets (the
// attribute "weight"), directed except for hashtags. It buffers the rows
// until Flush.
type graphWriter struct {
	w      io.Writer
	format string // gexf or graphml
	kind   schemas.EdgeType
	edges  []query.Edge
}

func (g *graphWriter) Header(...string) error { return nil }

func (g *graphWriter) Row(vals ...any) error {
	if len(vals) != 3 {
		return fmt.Errorf("graph row of %d values, want source, target, tweets", len(vals))
	}
	src, _ := vals[0].(string)
	dst, _ := vals[1].(string)
	n, _ := vals[2].(int64)
	g.edges = append(g.edges, query.Edge{Source: src, Target: dst, Tweets: n})
	return nil
}

func (g *graphWriter) Flush() error {
	if g.w == nil {
		return nil
	}
	w := bufio.NewWriter(g.w)
	// The nodes, numbered in the order they first appear.
	ids := map[string]int{}
	var nodes []string
	node := func(name string) int {
		id, ok := ids[name]
		if !ok {
			id = len(nodes)
			ids[name] = id
			nodes = append(nodes, name)
		}
		return id
	}
	for _, e := range g.edges {
		node(e.Source)
		node(e.Target)
	}
	directed := "directed"
	if !g.kind.Directed() {
		directed = "undirected"
	}
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s)) // also escapes quotes: fit for attributes
		return b.String()
	}
	fmt.Fprintln(w, `<?xml version="1.0" encoding="UTF-8"?>`)
	switch g.format {
	case "gexf":
		fmt.Fprintln(w, `<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">`)
		fmt.Fprintf(w, "  <meta><creator>tweetindex</creator><description>%s edges</description></meta>\n", g.kind.Name())
		fmt.Fprintf(w, "  <graph mode=\"static\" defaultedgetype=\"%s\">\n    <nodes>\n", directed)
		for i, n := range nodes {
			fmt.Fprintf(w, "      <node id=\"%d\" label=\"%s\"/>\n", i, esc(n))
		}
		fmt.Fprintln(w, "    </nodes>\n    <edges>")
		for i, e := range g.edges {
			fmt.Fprintf(w, "      <edge id=\"%d\" source=\"%d\" target=\"%d\" weight=\"%d\"/>\n", i, ids[e.Source], ids[e.Target], e.Tweets)
		}
		fmt.Fprintln(w, "    </edges>\n  </graph>\n</gexf>")
	case "graphml":
		fmt.Fprintln(w, `<graphml xmlns="http://graphml.graphdrawing.org/xmlns">`)
		fmt.Fprintln(w, `  <key id="label" for="node" attr.name="label" attr.type="string"/>`)
		fmt.Fprintln(w, `  <key id="weight" for="edge" attr.name="weight" attr.type="long"/>`)
		fmt.Fprintf(w, "  <graph id=\"%s\" edgedefault=\"%s\">\n", g.kind.Name(), directed)
		for i, n := range nodes {
			fmt.Fprintf(w, "    <node id=\"n%d\"><data key=\"label\">%s</data></node>\n", i, esc(n))
		}
		for _, e := range g.edges {
			fmt.Fprintf(w, "    <edge source=\"n%d\" target=\"n%d\"><data key=\"weight\">%d</data></edge>\n", ids[e.Source], ids[e.Target], e.Tweets)
		}
		fmt.Fprintln(w, "  </graph>\n</graphml>")
	}
	g.edges = nil
	return w.Flush()
}
