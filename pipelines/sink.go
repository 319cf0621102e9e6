package pipelines

import "github.com/tweetindex/tweetindex/io/sink"

// openSink opens the sink of cfg's run, for the steps of Run around its
// pipeline (what the sink holds, run records, marks, recounts): the store
// directory is created if it does not exist yet.
func openSink(cfg Config) (*sink.Sink, error) {
	return sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra, Create: true})
}
