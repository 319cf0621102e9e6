// Package transforms holds the Beam transforms of the tweetindex graph: the
// parse stage that turns source records into tweets and dead letters, the
// deduplication by tweet id, and one file per table that turns deduplicated
// tweets into that table's cells (raw.go, terms.go, frequency.go, geo.go,
// deadletter.go). Sinks live in io/; the graph that wires these together is
// pipelines/graph.go.
//
// Elements travel in batches (TweetBatch, []schemas.Cell, []schemas.Record):
// a runner's cost is per element, and a tweet produces tens of cells, so
// batching is what lets the graph keep up with the parser.
package transforms
