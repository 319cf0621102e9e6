package main

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/tweetindex/tweetindex/io/sink"
	"io"
	"os"
	"strings"

	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// tableList returns the tables' names (schemas.Registry) joined by sep.
func tableList(sep string) string {
	names := make([]string, len(schemas.Registry()))
	for i, s := range schemas.Registry() {
		names[i] = s.Name
	}
	return strings.Join(names, sep)
}

func runDump(args []string) error {
	c := newCommand("dump", "tweetindex dump (--store DIR | --cassandra HOSTS [--keyspace K]) --table "+tableList("|"),
		"dump writes a table as JSON lines with decoded fields (README.md lists them).")
	fs := c.fs
	var sink sinkFlags
	sink.register(fs, false)
	table := fs.String("table", "", "table to dump: "+tableList(", ")+" (or the CQL table's name: raw_tweets, term_index, ...)")
	if err := c.parseNoArgs(args); err != nil {
		return err
	}
	if *table == "" {
		return usagef("no table: pass --table %s", tableList("|"))
	}
	t, ok := tableByName(*table)
	if !ok {
		return usagef("--table %q: want one of %s", *table, tableList(", "))
	}
	if err := sink.checkRead(); err != nil {
		return asUsage(err)
	}
	tables, err := sink.open(0)
	if err != nil {
		return err
	}
	defer tables.Close()
	_, err = dump(context.Background(), tables, t, os.Stdout)
	return err
}

// tableByName finds a table by its name in this project (raw, terms, ...)
// or by its CQL table's name (raw_tweets, term_index, ...), which is what
// a cqlsh user sees.
func tableByName(name string) (schemas.Table, bool) {
	if t, ok := schemas.TableByName(name); ok {
		return t, true
	}
	if ct := schemas.CQLTableNamed(name); ct != nil {
		return ct.Table, true
	}
	return 0, false
}

// dump writes every row of table as JSON lines with decoded fields
// (maintain.DumpRows), and returns how many.
func dump(ctx context.Context, src sink.Reader, table schemas.Table, w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	n, err := maintain.DumpRows(ctx, src, table, newJSONLines(bw))
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// newJSONLines returns a function that writes each value as one line of
// JSON to w, HTML characters unescaped.
func newJSONLines(w io.Writer) func(any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(v any) error { return enc.Encode(v) }
}
