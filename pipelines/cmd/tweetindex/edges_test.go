package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestQueryEdgesFormats asks for each kind of edge of the sample in every
// format: the table, CSV and JSON lines hold the same edges, --top and
// --node keep what they say, and the GEXF and GraphML files, read by
// networkx (Python, a reader the project did not write), hold the same
// nodes, edges and weights, directed or not as the kind is.
func TestQueryEdgesFormats(t *testing.T) {
	store, _ := indexedSample(t)
	networkx := exec.Command("python3", "-c", "import networkx").Run() == nil
	if !networkx {
		t.Log("python3-networkx is not installed (apt-get install python3-networkx): the GEXF and GraphML files are not read back")
	}
	for _, kind := range []string{"retweet", "quote", "reply", "mention", "hashtag"} {
		base := []string{"edges", "--store", store, "--type", kind}
		all := jsonlEdges(t, first(ask(t, append(base, "--format", "jsonl")...)))
		if len(all) < 10 {
			t.Fatalf("%s: %d edges in the sample: too few to test", kind, len(all))
		}
		var fromCSV []string
		for _, r := range csvRows(t, first(ask(t, append(base, "--format", "csv")...)), "source", "target", "tweets") {
			fromCSV = append(fromCSV, strings.Join(r, " "))
		}
		if !slices.Equal(fromCSV, all) {
			t.Errorf("%s: CSV %q, JSON lines %q", kind, fromCSV, all)
		}
		table := strings.Split(strings.TrimSpace(first(ask(t, base...))), "\n")
		if len(table) != len(all)+1 || strings.Join(strings.Fields(table[1]), " ") != all[0] {
			t.Errorf("%s: table of %d lines, first %q; want %d edges, first %q", kind, len(table), table[1], len(all), all[0])
		}
		if top := jsonlEdges(t, first(ask(t, append(base, "--format", "jsonl", "--top", "3")...))); !slices.Equal(top, all[:3]) {
			t.Errorf("%s --top 3: %q, want %q", kind, top, all[:3])
		}
		node := strings.Fields(all[len(all)/2])[1]
		var want []string
		for _, e := range all {
			if f := strings.Fields(e); f[0] == node || f[1] == node {
				want = append(want, e)
			}
		}
		if got := jsonlEdges(t, first(ask(t, append(base, "--format", "jsonl", "--node", strings.ToUpper(node))...))); !slices.Equal(got, want) {
			t.Errorf("%s --node %s: %q, want %q", kind, node, got, want)
		}
		if !networkx {
			continue
		}
		for _, format := range []string{"gexf", "graphml"} {
			file := filepath.Join(t.TempDir(), kind+"."+format)
			if err := os.WriteFile(file, []byte(first(ask(t, append(base, "--format", format)...))), 0o644); err != nil {
				t.Fatal(err)
			}
			directed, edges := readWithNetworkx(t, file, format)
			if directed != (kind != "hashtag") {
				t.Errorf("%s %s: networkx reads a graph directed %t", kind, format, directed)
			}
			slices.Sort(edges)
			sorted := slices.Sorted(slices.Values(all))
			if !slices.Equal(edges, sorted) {
				t.Errorf("%s %s: networkx reads %d edges, the answer has %d\n first read %q\n first want %q", kind, format, len(edges), len(sorted), edges[:min(3, len(edges))], sorted[:3])
			}
		}
	}
}

// jsonlEdges returns the edges of a JSON-lines answer as "source target
// tweets".
func jsonlEdges(t *testing.T, out string) []string {
	t.Helper()
	var edges []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Source, Target string
			Tweets         int64
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		edges = append(edges, fmt.Sprintf("%s %s %d", e.Source, e.Target, e.Tweets))
	}
	return edges
}

// readWithNetworkx reads a GEXF or GraphML file with networkx and returns
// whether the graph is directed and its edges as "source target weight",
// nodes by their labels. For an undirected graph, networkx may give an
// edge's ends in either order: they come back in the order the file's
// answer gives them (the smaller first).
func readWithNetworkx(t *testing.T, file, format string) (bool, []string) {
	t.Helper()
	script := `
import json, sys, networkx as nx
g = nx.read_gexf(sys.argv[1]) if sys.argv[2] == "gexf" else nx.read_graphml(sys.argv[1])
label = lambda n: g.nodes[n].get("label", n)
edges = []
for u, v, d in g.edges(data=True):
    a, b = label(u), label(v)
    if not g.is_directed() and a > b:
        a, b = b, a
    edges.append("%s %s %d" % (a, b, int(d["weight"])))
json.dump({"directed": g.is_directed(), "edges": edges}, sys.stdout, ensure_ascii=False)
`
	out, err := exec.Command("python3", "-c", script, file, format).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("networkx reading %s: %v\n%s", file, err, stderr)
	}
	var got struct {
		Directed bool
		Edges    []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("networkx's answer %q: %v", out, err)
	}
	return got.Directed, got.Edges
}

// TestEdgesOnAStoreWithoutWeights indexes the sample into a store and
// removes its edge weights and param/edgedays, as a store indexed before
// the weights existed: edges of every kind give the answers of the sample
// store (which reads its weights for whole days, silently) and say on
// stderr that they read the edge cells instead.
func TestEdgesOnAStoreWithoutWeights(t *testing.T) {
	store, _ := indexedSample(t)
	old, removed := sampleStoreWithout(t, schemas.TableEdgeDays, schemas.EdgeDaysParam)
	if removed < 100 {
		t.Fatalf("the sample store held %d edge weights: want many", removed)
	}
	for _, kind := range []string{"retweet", "quote", "reply", "mention", "hashtag"} {
		want, wantErr := ask(t, "edges", "--store", store, "--type", kind, "--format", "csv")
		got, gotErr := ask(t, "edges", "--store", old, "--type", kind, "--format", "csv")
		if got != want || strings.Count(want, "\n") < 10 {
			t.Errorf("%s edges without the weights:\n%s\nwith them:\n%s", kind, got, want)
		}
		if strings.Contains(wantErr, "edge weights") || !strings.Contains(gotErr, "indexed before the edge weights per day existed") {
			t.Errorf("%s edges: stderr %q with the weights, %q without: want a note without them only", kind, wantErr, gotErr)
		}
	}
}
