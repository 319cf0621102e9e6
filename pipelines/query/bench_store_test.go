package query

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/tweetindex/tweetindex/io/storeio"
)

var benchStore = flag.String("query.store", "", "a store (make bench-query builds one) that BenchmarkQuestions times the questions of Bench on")

// BenchmarkQuestions times the index answer of each question of Bench on
// the store -query.store names (skipped without one), for profiling:
//
//	go test -run '^$' -bench Questions -cpuprofile cpu.out ./pipelines/query -args -query.store .tweetindex/benchq-200000/store
func BenchmarkQuestions(b *testing.B) {
	if *benchStore == "" {
		b.Skip("no -query.store: make bench-query builds one")
	}
	st, err := storeio.OpenRead(*benchStore, storeio.ReadCacheSize)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	qs, err := benchQuestions(ctx, NewEngine(st), 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range qs {
		b.Run(fmt.Sprint(q.number), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := q.index(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
