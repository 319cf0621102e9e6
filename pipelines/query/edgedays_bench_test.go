package query_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

var benchEdges = flag.String("bench.edges", "", "BenchmarkEdgesRepeated: stores to index, TWEETSxPAIRS,... (retweets over three whole days, each of one of PAIRS (retweeter, retweeted) pairs)")

// BenchmarkEdgesRepeated indexes, for each TWEETSxPAIRS of -bench.edges,
// that many retweets over three whole UTC days, each by one of PAIRS
// (retweeter, retweeted) pairs picked at random (a retweet network, whose
// pairs repeat), into a fresh store, and times the retweet network of the
// three days from the per-day edge weights (weights) and from the edge
// cells alone, as on a store indexed before the weights existed (cells):
//
//	go test -run '^$' -bench EdgesRepeated -benchtime 5x ./pipelines/query -args -bench.edges 100000x1000,300000x1000,300000x100000
//
// Both give the same edges.
func BenchmarkEdgesRepeated(b *testing.B) {
	if *benchEdges == "" {
		b.Skip("-bench.edges TWEETSxPAIRS,...: the stores to index")
	}
	for _, spec := range strings.Split(*benchEdges, ",") {
		t, p, _ := strings.Cut(spec, "x")
		tweets, err1 := strconv.Atoi(t)
		pairs, err2 := strconv.Atoi(p)
		if err1 != nil || err2 != nil || tweets <= 0 || pairs <= 0 {
			b.Fatalf("-bench.edges %q: want TWEETSxPAIRS", spec)
		}
		b.Run(spec, func(b *testing.B) { benchEdgesRepeated(b, tweets, pairs) })
	}
}

func benchEdgesRepeated(b *testing.B, tweets, pairs int) {
	ctx := context.Background()
	dir := b.TempDir()
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	input := filepath.Join(dir, "retweets.jsonl")
	f, err := os.Create(input)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(uint64(tweets), uint64(pairs)))
	span := int64(3 * 86400)
	for i := range tweets {
		at := day.Add(time.Duration(int64(i)*span/int64(tweets)) * time.Second)
		id := uint64(at.UnixMilli()-1288834974657)<<22 | uint64(i%4096)
		pair := rng.IntN(pairs)
		fmt.Fprintf(w, `{"created_at":%q,"id_str":"%d","text":"RT @b%d: words %d","lang":"en","user":{"name":"n","screen_name":"a%d"}}`+"\n",
			at.Format(time.RubyDate), id, pair%97, i, pair)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	store := filepath.Join(dir, "store")
	if _, err := job.Run(ctx, pipelines.Config{Input: input, Store: store}); err != nil {
		b.Fatal(err)
	}
	st, err := storeio.OpenRead(store, storeio.ReadCacheSize)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	filter := query.Filter{From: day, To: day.Add(3 * 24 * time.Hour)}
	q := query.EdgeQuery{Type: schemas.EdgeRetweet}
	var answers [2]string
	for i, hide := range []bool{false, true} {
		name := "weights"
		if hide {
			name = "cells"
		}
		b.Run(name, func(b *testing.B) {
			r := &tableReads{Reader: st, hideEdgeDays: hide}
			var edges []query.Edge
			for b.Loop() {
				e := query.NewEngine(r) // each question reads the parameters anew
				if edges, err = e.Edges(ctx, filter, q); err != nil {
					b.Fatal(err)
				}
			}
			answers[i] = fmt.Sprint(edges)
			b.ReportMetric(float64(len(edges)), "edges")
		})
	}
	if answers[0] != answers[1] {
		b.Errorf("the weights and the cells give different edges")
	}
}
