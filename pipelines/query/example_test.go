package query_test

import (
	"fmt"

	"github.com/tweetindex/tweetindex/pipelines/query"
)

// A box is covered with geohash prefix ranges; a box that crosses the
// antimeridian is covered as its two halves.
func ExampleCover() {
	paris := query.Box{MinLon: 2.2, MinLat: 48.8, MaxLon: 2.5, MaxLat: 48.9}
	fmt.Println(query.Cover(paris, query.DefaultBudget))
	fiji, _ := query.ParseBox("177,-19,-179,-16")
	for _, r := range query.Cover(fiji, 4) {
		fmt.Printf("[%s, %s)\n", r.Start, r.End)
	}
	fmt.Println(fiji.Contains(-17.8, 179.9), fiji.Contains(-17.8, -179.5), fiji.Contains(-17.8, 170))
	// Output:
	// [{u09td u09th} {u09ts u09u} {u09v8 u09v9} {u09vb u09vc} {u09w4 u09w6} {u09wh u09wk} {u09wn u09wq} {u09y0 u09y1}]
	// [2h8, 2h9)
	// [2hb, 2hc)
	// [2j0, 2j1)
	// [ru, rw)
	// true true false
}
