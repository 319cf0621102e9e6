package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/pipelines/serve"
)

// The questions of query, served: a request's parameters are the
// question's flags without their dashes, parsed and checked by the same
// code as the command line's (command.parse, queryCmd.resolveFlags), and
// answered by the same code (questionCommand.run) into the same writers,
// so that an answer and an error message are the command's.

// notServed are the flags of a question that a request may not give, and
// why: the tables are the server's, it writes no file, and the tuning of
// box searches is its own.
var notServed = map[string]string{
	"chart":    "the API writes no file: the page draws the series, or chart its rows",
	"ranges":   "the server tunes box searches itself",
	"parallel": "the server tunes box searches itself",
}

// sinkFlagNames are the flags that choose the tables (--store,
// --cassandra, ...): the server's, not a request's.
func sinkFlagNames() map[string]bool {
	fs := flag.NewFlagSet("sink", flag.ContinueOnError)
	var sf sinkFlags
	sf.register(fs, false)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}

// serveQuestions returns the questions of query (bench aside) for serve.
func serveQuestions() []serve.Question {
	sinkNames := sinkFlagNames()
	runs := &runsCache{} // the questions share the run records of a view
	var qs []serve.Question
	for _, qc := range questionCommands {
		if qc.name == "bench" {
			continue
		}
		fs := flag.NewFlagSet(qc.name, flag.ContinueOnError)
		(&queryCmd{engine: &query.Engine{}}).register(fs, qc)
		q := serve.Question{Name: qc.name, Summary: qc.summary, Retrieval: qc.flags&withPage != 0, Answer: answerFor(qc), Coverage: coverageFor(qc, runs)}
		switch {
		case qc.name == "export":
			q.Formats = []string{"jsonl", "csv"}
		case q.Retrieval, qc.name == "heatmap":
			q.Formats = []string{"jsonl", "csv", "geojson"}
		default:
			q.Formats = []string{"jsonl", "csv"}
		}
		fs.VisitAll(func(f *flag.Flag) {
			if sinkNames[f.Name] || notServed[f.Name] != "" {
				return
			}
			p := serve.Param{Name: f.Name, Type: "string", Default: f.DefValue, Help: f.Usage}
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				p.Type = "boolean"
			} else if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case int, int64, uint64:
					p.Type = "integer"
				}
			}
			if f.Name == "format" {
				p.Default = q.Formats[0]
				p.Help = "output: " + strings.Join(q.Formats, ", ") + " (jsonl: an object per row"
				if qc.name == "export" {
					p.Help += "; export's is the stored JSON of each tweet"
				}
				p.Help += ")"
			}
			q.Params = append(q.Params, p)
		})
		qs = append(qs, q)
	}
	return qs
}

// answerFor returns the answer of question qc to a request.
func answerFor(qc questionCommand) func(context.Context, *query.Engine, url.Values, io.Writer) (serve.Result, error) {
	sinkNames := sinkFlagNames()
	return func(ctx context.Context, e *query.Engine, params url.Values, w io.Writer) (serve.Result, error) {
		var notes bytes.Buffer
		q := &queryCmd{stdout: w, stderr: &notes, engine: &query.Engine{}}
		c := newCommand("query "+qc.name, "", "")
		c.elsewhere = questionsTaking
		q.register(c.fs, qc)
		args, err := paramArgs(c.fs, params, sinkNames)
		if err != nil {
			return serve.Result{}, serve.BadRequest(err)
		}
		if err := c.parseNoArgs(args); err != nil {
			return serve.Result{}, serve.BadRequest(err)
		}
		if q.format == "table" {
			return serve.Result{}, serve.BadRequest(fmt.Errorf("--format table is for the terminal: the API answers jsonl (the default), csv or, for retrievals and heatmap, geojson"))
		}
		if err := q.resolveFlags(qc); err != nil {
			return serve.Result{}, serve.BadRequest(err)
		}
		q.engine = e
		if _, ok := e.R.(*storeio.Store); !ok {
			q.sink.cassandra = "(served)" // notes say "keyspace"
		}
		page := &pageWatch{resultWriter: q.out}
		q.out = page
		if err := qc.run(q, ctx); err != nil {
			if errors.Is(err, query.ErrTermDaysNotIndexed) {
				err = serve.NotIndexed(err)
			}
			return serve.Result{}, err
		}
		if err := q.out.Flush(); err != nil {
			return serve.Result{}, err
		}
		var res serve.Result
		if q.page.Limit > 0 && page.n >= q.page.Limit && page.last != nil {
			res.NextCursor = hex.EncodeToString(page.last)
		}
		for _, l := range strings.Split(strings.TrimSpace(notes.String()), "\n") {
			if l != "" {
				res.Notes = append(res.Notes, strings.TrimPrefix(l, "note: "))
			}
		}
		return res, nil
	}
}

// coverageFor returns the coverage of the range a request to question qc
// asks about (answerCoverage), nil when its parameters are wrong.
func coverageFor(qc questionCommand, runs *runsCache) serve.CoverageFunc {
	sinkNames := sinkFlagNames()
	return func(ctx context.Context, e *query.Engine, params url.Values) (*serve.Coverage, error) {
		q := &queryCmd{stdout: io.Discard, stderr: io.Discard, engine: &query.Engine{}}
		c := newCommand("query "+qc.name, "", "")
		q.register(c.fs, qc)
		args, err := paramArgs(c.fs, params, sinkNames)
		if err != nil || c.parseNoArgs(args) != nil || q.resolveFlags(qc) != nil {
			return nil, nil // the answer says what is wrong
		}
		spans, from, to, ok, err := answerCoverage(ctx, e, q.filter, runs.read)
		if err != nil {
			return nil, err
		}
		return serveCoverage(spans, from, to, ok), nil
	}
}

// paramArgs turns a request's parameters into the command line's flags
// (--name=value), in a fixed order; format defaults to jsonl. A flag that
// chooses the tables or is in notServed is an error; a boolean given
// without a value (?by-lang) is true.
func paramArgs(fs *flag.FlagSet, params url.Values, sinkNames map[string]bool) ([]string, error) {
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	slices.Sort(names)
	var args []string
	if !params.Has("format") {
		args = append(args, "--format=jsonl") // register's default is table
	}
	for _, name := range names {
		if sinkNames[name] {
			return nil, fmt.Errorf("%s is not a parameter of the API: the server answers from its own tables", name)
		}
		if why := notServed[name]; why != "" {
			return nil, fmt.Errorf("%s is not a parameter of the API: %s", name, why)
		}
		for _, v := range params[name] {
			if f := fs.Lookup(name); f != nil && v == "" {
				if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
					v = "true"
				}
			}
			args = append(args, "--"+name+"="+v)
		}
	}
	return args, nil
}

// pageWatch passes rows on and remembers how many went and the row key of
// the last (the first column of a retrieval's rows): a full page's is the
// cursor of the next.
type pageWatch struct {
	resultWriter
	n    int
	last []byte
}

func (p *pageWatch) Row(vals ...any) error {
	p.n++
	if len(vals) > 0 {
		if k, ok := vals[0].([]byte); ok {
			p.last = append(p.last[:0], k...)
		}
	}
	return p.resultWriter.Row(vals...)
}
