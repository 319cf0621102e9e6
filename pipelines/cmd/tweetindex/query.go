package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// questionCommand is a subcommand of query: one of the questions.
type questionCommand struct {
	name    string
	usage   string // the subcommand's own flags
	summary string
	flags   questionFlags
	run     func(q *queryCmd, ctx context.Context) error
}

// questionFlags says which flags a question takes beyond the common ones.
type questionFlags uint8

const (
	withBox   questionFlags = 1 << iota // --bbox
	needBox                             // --bbox is required
	withStep                            // --by
	withTerm                            // --term, --field
	withTerms                           // --term, --and, --or, --field
	withPage                            // --limit, --cursor
)

var questionCommands = []questionCommand{
	{"count", "", "1. count tweets", 0, (*queryCmd).count},
	{"count-geo", "[--bbox B]", "2. count geotagged tweets, in a box if given", withBox, (*queryCmd).countGeo},
	{"series", "[--by minute|hour|day] [--by-lang] [--chart FILE]", "3. tweets per minute, hour or day (every step, 0 when empty), per language with --by-lang; --chart draws it (.svg, .png or .pdf)", withStep, (*queryCmd).series},
	{"count-term", "--term T [--field text|user|url]", "4. count tweets that contain a term", withTerm, (*queryCmd).countTerm},
	{"geo", "--bbox B [--limit N] [--cursor C] [--format geojson]", "5. geotagged tweets in a box (--format geojson: a FeatureCollection for map tools)", withBox | needBox | withPage, (*queryCmd).geo},
	{"tweets", "[--limit N] [--cursor C]", "6. tweets of a time range", withPage, (*queryCmd).tweets},
	{"terms", "(--term T | --and T1,T2 | --or T1,T2 | --phrase P) [--field F] [--limit N] [--cursor C]", "7, 8. tweets that contain a term, all terms (AND) or any (OR); a term ending in * is every term that begins with it ('#vote*'); --phrase P: the words of P adjacent and in order, one more term (with --or, one more of which any is enough)", withTerms | withPage, (*queryCmd).terms},
	{"export", "[--format jsonl|csv]", "9. export every tweet of the range, streamed (jsonl: the stored JSON)", 0, (*queryCmd).export},
	{"users", "[--top N]", "10. distribution of tweets per user; with --top N, the N users with the most tweets", 0, (*queryCmd).users},
	{"edges", "--type retweet|quote|reply|mention|hashtag [--node NAME] [--top N] [--format gexf|graphml]", "who retweets, quotes, replies to or mentions whom, or which hashtags go together: edges weighted by tweets, most first (gexf, graphml: for Gephi, networkx, igraph)", 0, (*queryCmd).edges},
	{"heatmap", "[--bbox B] [--precision P] [--format geojson] [--chart FILE]", "where, as a map: geotagged tweets counted by geohash cell of P characters (geojson: the cells as polygons; --chart draws them over the countries' outlines, .svg, .png or .pdf)", withBox, (*queryCmd).heatmap},
	{"top", "[--field hashtag|mention|text|user|url] [--limit N]", "the terms of a field the most tweets hold, over whole UTC days (the per-day term counts)", 0, (*queryCmd).topTerms},
	{"trending", "--from T1 --to T2 [--baseline-from B1 --baseline-to B2] [--field F] [--limit N]", "the terms whose share of the tweets rose most against a baseline (default: as long, just before), with the score and both counts", 0, (*queryCmd).trending},
	{"complete", "--prefix P [--field F] [--limit N]", "the terms that begin with a prefix, those of the most tweets first (the terms a --term 'P*' stands for)", 0, (*queryCmd).complete},
	{"bench", "[--repeat N] [--seed N]", "time every question from the indexes and by a scan of the raw table", 0, (*queryCmd).bench},
}

const queryUsage = `Usage: tweetindex query QUESTION (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--lang L] [--format table|jsonl|csv|geojson] [flags]

Questions:
%s
Every question takes --from/--to (a range [T1, T2), exact to the second;
default: all the data) and --lang. A box B is minLon,minLat,maxLon,maxLat in degrees
(minLon > maxLon crosses the antimeridian). Retrievals come in row key (time)
order; with --limit N the last line on stderr gives the --cursor of the next
page. Counts come from the indexes (and the raw rows of partial minutes
at the range's edges), never from a scan of the raw tweets.
`

func queryHelp() string {
	var b strings.Builder
	for _, c := range questionCommands {
		fmt.Fprintf(&b, "  %-11s %s\n  %-11s   %s\n", c.name, c.usage, "", c.summary)
	}
	return fmt.Sprintf(queryUsage, b.String())
}

// queryCmd holds a question's flags and the engine that answers it.
type queryCmd struct {
	sink           sinkFlags
	from, to, lang string
	format         string
	bbox           string
	by             string
	term, and, or  string
	phrase         string
	field          string
	limit          int
	exact, places  bool
	byLang         bool
	chart          string
	precision      int // heatmap
	top            int
	edgeType, node string
	prefix         string // complete
	baseFrom       string // trending
	baseTo         string
	cursor         string
	repeat         int
	seed           uint64

	filter   query.Filter
	edgeQ    query.EdgeQuery // edges
	topQ     query.TopQuery  // top, trending, complete
	baseline query.Filter    // trending
	box      *query.Box
	page     query.Page
	step     time.Duration // --by
	words    []string      // the terms of --term, --and or --or (terms)
	phrases  []string      // --phrase (terms)
	op       query.Op      // And, or Or for --or
	engine   *query.Engine
	reader   sink.Reader
	out      resultWriter
	note     string // printed on stderr after the answer: the next page's cursor
	stdout   io.Writer
	stderr   io.Writer
}

func runQuery(args []string) error { return queryMain(args, os.Stdout, os.Stderr) }

// queryMain runs tweetindex query with args, writing the answer to
// stdout and notes (page cursors, timings) to stderr.
func queryMain(args []string, stdoutW, stderr io.Writer) error {
	qi := questionAt(args)
	if qi < 0 || args[qi] == "help" {
		if qi >= 0 || slices.ContainsFunc(args, isHelpFlag) {
			fmt.Fprint(stdoutW, queryHelp())
			return errHelpShown
		}
		names := questionNames()
		return usagef("name a question: %s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	i := slices.IndexFunc(questionCommands, func(c questionCommand) bool { return c.name == args[qi] })
	if i < 0 {
		return unknownQuestion(args[qi])
	}
	err := askQuestion(args, qi, questionCommands[i], stdoutW, stderr)
	return helpOf(err, "query "+questionCommands[i].name)
}

// askQuestion runs question qc (args[qi]) with the other args as its flags.
func askQuestion(args []string, qi int, qc questionCommand, stdoutW, stderr io.Writer) error {
	stdout := bufio.NewWriterSize(stdoutW, 64<<10)
	defer stdout.Flush()
	q := &queryCmd{stdout: stdout, stderr: stderr, engine: &query.Engine{}}
	c := newCommand("query "+qc.name, fmt.Sprintf("tweetindex query %s (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--lang L] %s", qc.name, qc.usage), qc.summary)
	c.stdout = stdoutW
	c.elsewhere = questionsTaking
	q.register(c.fs, qc)
	if err := c.parseNoArgs(without(args, qi)); err != nil {
		return err
	}
	if err := q.sink.checkRead(); err != nil {
		return asUsage(err)
	}
	if err := q.resolveFlags(qc); err != nil {
		return asUsage(err)
	}
	var cache int64
	if qc.name == "bench" {
		cache = storeio.ReadCacheSize // it asks each question again: keep what it read
	}
	s, err := q.sink.openForQuery(cache)
	if err != nil {
		return err
	}
	defer s.Close()
	if st, ok := s.Reader.(*storeio.Store); ok {
		if snap, at := st.Snapshot(); snap {
			fmt.Fprintf(q.stderr, "note: store %s is being written by another process; reading its snapshot of %s (%s ago)\n",
				q.sink.store, at.Format(time.RFC3339), time.Since(at).Round(time.Second))
		}
	}
	q.reader, q.engine.R = s.Reader, s.Reader // the store or keyspace reader itself: the engine looks for their fast paths
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	if err := qc.run(q, ctx); err != nil {
		q.out.Flush()
		return err
	}
	if err := q.out.Flush(); err != nil {
		return err
	}
	if err := stdout.Flush(); err != nil {
		return err
	}
	if q.note != "" {
		fmt.Fprintln(q.stderr, q.note)
	}
	if qc.name != "bench" {
		spans, from, to, ok, err := answerCoverage(ctx, q.engine, q.filter, nil)
		if err != nil {
			return err
		}
		fmt.Fprintln(q.stderr, coverageLine(spans, from, to, ok))
	}
	if q.format == "table" && qc.name != "bench" {
		fmt.Fprintf(q.stderr, "(%s)\n", time.Since(start).Round(time.Microsecond))
	}
	return nil
}

// questionsTaking says which questions take flag name ("--limit is for
// geo, tweets and terms"), or "" if none does.
func questionsTaking(name string) string {
	var names []string
	for _, qc := range questionCommands {
		fs := flag.NewFlagSet(qc.name, flag.ContinueOnError)
		(&queryCmd{engine: &query.Engine{}}).register(fs, qc)
		if fs.Lookup(name) != nil {
			names = append(names, qc.name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "--" + name + " is for " + names[0]
	}
	return "--" + name + " is for " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func (q *queryCmd) register(fs *flag.FlagSet, qc questionCommand) {
	q.sink.register(fs, false)
	fs.StringVar(&q.from, "from", "", "the range's start, to the second (RFC 3339, 2006-01-02T15:04:05 in UTC, or a UTC date; default: the data's first minute)")
	fs.StringVar(&q.to, "to", "", "the range's end, exclusive (default: after the data's last minute)")
	fs.StringVar(&q.lang, "lang", "", "only tweets of this language (as the tweet's lang: en, ja, und, ...)")
	format := "table"
	if qc.name == "export" {
		format = "jsonl"
	}
	fs.StringVar(&q.format, "format", format, "output: table (aligned, for people), jsonl, csv, or for retrievals geojson (a FeatureCollection of the tweets' points)")
	if qc.flags&withBox != 0 {
		fs.StringVar(&q.bbox, "bbox", "", "bounding box minLon,minLat,maxLon,maxLat in degrees")
	}
	if qc.flags&withBox != 0 {
		fs.BoolVar(&q.exact, "exact", true, "only tweets with exact coordinates (--exact=false is --places)")
		fs.BoolVar(&q.places, "places", false, "also tweets located only by their place's centre (and geo rows indexed before the kind of point was recorded)")
	}
	if qc.flags&withBox != 0 || qc.name == "bench" {
		fs.IntVar(&q.engine.Budget, "ranges", 0, "cover a box with at most this many geohash ranges (default 32 on a store, 8 on Cassandra)")
		fs.IntVar(&q.engine.Parallel, "parallel", 0, "concurrent range reads of a box search (default 8 on a store, 32 on Cassandra)")
	}
	if qc.flags&withStep != 0 {
		fs.StringVar(&q.by, "by", "hour", "step of the series: minute, hour or day")
		fs.BoolVar(&q.byLang, "by-lang", false, "a row per step and language")
		fs.StringVar(&q.chart, "chart", "", "also draw the series as a line chart into this file (.svg, .png or .pdf; a line per language with --by-lang)")
	}
	if qc.flags&(withTerm|withTerms) != 0 {
		fs.StringVar(&q.term, "term", "", "the term, as the indexer tokenizes: a word, #hashtag, @mention, or part of a user's name")
		fs.StringVar(&q.field, "field", "text", "the field the term is in: text, user or url (the host of a link: nytimes.com)")
	}
	if qc.flags&withTerms != 0 {
		fs.StringVar(&q.and, "and", "", "comma-separated terms that must all be in a tweet")
		fs.StringVar(&q.or, "or", "", "comma-separated terms of which any must be in a tweet")
		fs.StringVar(&q.phrase, "phrase", "", "words that must stand in a tweet's text adjacent and in this order (\"climate change\"), as the indexer tokenizes: punctuation, emoji and URLs between them do not count, a one-letter word does")
	}
	if qc.flags&withPage != 0 {
		fs.IntVar(&q.limit, "limit", 0, "at most this many tweets (0: all)")
		fs.StringVar(&q.cursor, "cursor", "", "start after this row key (hex), as a page's last line says")
	}
	if qc.name == "heatmap" {
		fs.IntVar(&q.precision, "precision", 4, fmt.Sprintf("geohash length of the cells, 1 to %d (1: 5,000 km, 2: 1,250 km by 625 km, 3: 156 km, 4: 39 km by 20 km, 5: 4.9 km, 6: 1.2 km by 0.6 km)", query.MaxHeatPrecision))
		fs.StringVar(&q.chart, "chart", "", "also draw the cells over the countries' outlines into this file (.svg, .png or .pdf)")
	}
	if qc.name == "users" {
		fs.IntVar(&q.top, "top", 0, "the N users with the most tweets, with their counts (0: the distribution)")
	}
	if qc.name == "edges" {
		fs.StringVar(&q.edgeType, "type", "", "the kind of edge: "+edgeTypeNames())
		fs.StringVar(&q.node, "node", "", "only the edges of this user (screen name) or hashtag (without #), as source or target")
		fs.IntVar(&q.top, "top", 0, "only the N edges of the most tweets (0: all)")
	}
	if termDayQuestion(qc.name) {
		q.registerTop(fs, qc.name)
	}
	if qc.name == "bench" {
		fs.IntVar(&q.repeat, "repeat", 3, "answer each question this many times; the fastest time counts")
		fs.Uint64Var(&q.seed, "seed", 1, "seed of the choice of terms and boxes from the data")
	}
}

// resolveFlags checks and parses the question's flags (those of the
// tables aside: sinkFlags.checkRead) into the filter, box, page, step and
// terms, and makes the output's writer: every mistake in them is found
// before the store is opened (a usage error). tweetindex serve resolves
// a request's parameters with it too.
func (q *queryCmd) resolveFlags(qc questionCommand) error {
	var err error
	if qc.name == "edges" {
		if err := q.resolveEdges(); err != nil {
			return err
		}
	} else if q.out, err = newResultWriter(q.format, q.stdout); err != nil {
		return err
	}
	if q.filter.From, err = parseTime("from", q.from); err != nil {
		return err
	}
	if q.filter.To, err = parseTime("to", q.to); err != nil {
		return err
	}
	if !q.filter.From.IsZero() && !q.filter.To.IsZero() && !q.filter.From.Before(q.filter.To) {
		return fmt.Errorf("--from %s is not before --to %s", q.from, q.to)
	}
	q.filter.Lang = q.lang
	q.filter.PlaceCentres = q.places || (qc.flags&withBox != 0 && !q.exact)
	if q.bbox != "" {
		b, err := query.ParseBox(q.bbox)
		if err != nil {
			return err
		}
		q.box = &b
	} else if qc.flags&needBox != 0 {
		return errors.New("--bbox is required: minLon,minLat,maxLon,maxLat in degrees")
	}
	if q.cursor != "" {
		b, err := hex.DecodeString(q.cursor)
		if err != nil || len(b) != schemas.RowKeyLen {
			return fmt.Errorf("--cursor %q: want a row key of %d bytes in hex, as a page's last line gives", q.cursor, schemas.RowKeyLen)
		}
		var k schemas.RowKey
		copy(k[:], b)
		q.page.After = &k
	}
	if q.engine.Budget < 0 || q.engine.Parallel < 0 {
		return fmt.Errorf("--ranges and --parallel want 1 or more")
	}
	if q.limit < 0 {
		return fmt.Errorf("--limit %d: want 0 (all) or more", q.limit)
	}
	q.page.Limit = q.limit
	if qc.name == "export" && q.format == "table" {
		return errors.New("--format table does not stream: export as jsonl or csv")
	}
	if q.format == "geojson" && qc.flags&withPage == 0 && qc.name != "heatmap" {
		return fmt.Errorf("--format geojson is for the retrievals (geo, tweets, terms) and heatmap: %s has no points", qc.name)
	}
	if qc.name == "heatmap" {
		if err := query.CheckHeatPrecision(q.precision); err != nil {
			return fmt.Errorf("--%w", err)
		}
		if err := checkChartPath(q.chart); err != nil {
			return err
		}
	}
	if qc.name == "bench" && q.repeat < 1 {
		return fmt.Errorf("--repeat %d: want 1 or more", q.repeat)
	}
	if qc.name == "users" && q.top < 0 {
		return fmt.Errorf("--top %d: want 0 (the distribution) or more", q.top)
	}
	if qc.name == "edges" && q.lang != "" {
		return errors.New("--lang is not for edges: the edge table holds no language")
	}
	if qc.flags&withStep != 0 {
		if q.step, err = stepOf(q.by); err != nil {
			return err
		}
		if err := checkChartPath(q.chart); err != nil {
			return err
		}
	}
	if qc.flags&(withTerm|withTerms) != 0 {
		if err := query.CheckField(q.field); err != nil {
			return fmt.Errorf("--%w", err)
		}
	}
	if qc.flags&withTerm != 0 && q.term == "" {
		return errors.New("--term is required")
	}
	if termDayQuestion(qc.name) {
		if err := q.resolveTop(qc.name); err != nil {
			return err
		}
	}
	if qc.flags&withTerms != 0 {
		q.op = query.And
		set := 0
		if q.term != "" {
			q.words, set = []string{q.term}, set+1
		}
		if q.and != "" {
			q.words, set = splitTerms(q.and), set+1
		}
		if q.or != "" {
			q.words, q.op, set = splitTerms(q.or), query.Or, set+1
		}
		if q.phrase != "" {
			if err := q.resolvePhrase(); err != nil {
				return err
			}
		}
		if set > 1 || set == 0 && len(q.phrases) == 0 || set == 1 && len(q.words) == 0 {
			return errors.New("pass one of --term T, --and T1,T2 or --or T1,T2, or --phrase P (with one of them or alone)")
		}
		for _, w := range q.words {
			if p, ok := prefixTerm(w); ok && (q.and != "" || p == "" || strings.HasSuffix(p, "*")) {
				return fmt.Errorf("%q: a term ending in * (a prefix: '#vote*') is for --term and --or, with one * after at least one character", w)
			} else if ok && q.phrase != "" {
				return fmt.Errorf("%q: a term ending in * (a prefix) does not combine with --phrase: ask for the phrase with whole terms", w)
			}
		}
	}
	return nil
}

// count answers question 1.
func (q *queryCmd) count(ctx context.Context) error {
	n, err := q.engine.Count(ctx, q.filter)
	if err != nil {
		return err
	}
	q.hintLang(ctx, n)
	return q.writeCount("tweets", n)
}

// countGeo answers question 2.
func (q *queryCmd) countGeo(ctx context.Context) error {
	n, err := q.engine.CountGeo(ctx, q.filter, q.box)
	if err != nil {
		return err
	}
	q.hintLang(ctx, n)
	return q.writeCount("geotagged_tweets", n)
}

// countTerm answers question 4.
func (q *queryCmd) countTerm(ctx context.Context) error {
	q.hintEmptyTerms([]string{q.term})
	if err := q.noteTokenizers(ctx); err != nil {
		return err
	}
	n, err := q.engine.CountTerm(ctx, q.filter, q.term, q.field)
	if err != nil {
		return err
	}
	q.hintLang(ctx, n)
	return q.writeCount("tweets", n)
}

func (q *queryCmd) writeCount(name string, n int64) error {
	if err := q.out.Header(name); err != nil {
		return err
	}
	return q.out.Row(n)
}

// series answers question 3.
func (q *queryCmd) series(ctx context.Context) error {
	points, err := q.engine.SeriesBy(ctx, q.filter, q.step, q.byLang)
	if err != nil {
		return err
	}
	var total int64
	for _, p := range points {
		total += p.Count
	}
	q.hintLang(ctx, total)
	if q.chart != "" {
		if err := writeChart(q.chart, points, q.by, q.byLang); err != nil {
			return err
		}
	}
	if q.byLang {
		if err := q.out.Header(q.by, "lang", "tweets"); err != nil {
			return err
		}
		for _, p := range points {
			if err := q.out.Row(p.Start, p.Lang, p.Count); err != nil {
				return err
			}
		}
		return nil
	}
	if err := q.out.Header(q.by, "tweets"); err != nil {
		return err
	}
	for _, p := range points {
		if err := q.out.Row(p.Start, p.Count); err != nil {
			return err
		}
	}
	return nil
}

// hintLang says on stderr, when an answer is empty and --lang names a tag
// the range does not hold, which tags it holds (tags are as the tweets
// give them: "en", not "EN").
func (q *queryCmd) hintLang(ctx context.Context, n int64) {
	if q.lang == "" || n > 0 {
		return
	}
	langs, err := q.engine.Langs(ctx, query.Filter{From: q.filter.From, To: q.filter.To})
	if err != nil || slices.Contains(langs, q.lang) {
		return
	}
	if len(langs) > 20 {
		langs = append(langs[:20], "...")
	}
	fmt.Fprintf(q.stderr, "note: --lang %q is not a language tag of the range (tags are as tweets give them, case included): %s\n", q.lang, strings.Join(langs, ", "))
}

// geo answers question 5.
func (q *queryCmd) geo(ctx context.Context) error {
	return q.retrieve(func(emit func(query.Hit) error) error {
		return q.engine.Geo(ctx, q.filter, q.box, q.page, emit)
	})
}

// tweets answers question 6.
func (q *queryCmd) tweets(ctx context.Context) error {
	return q.retrieve(func(emit func(query.Hit) error) error {
		return q.engine.Tweets(ctx, q.filter, q.page, emit)
	})
}

// terms answers questions 7 and 8.
func (q *queryCmd) terms(ctx context.Context) error {
	if any, err := q.expandPrefixes(ctx); err != nil {
		return err
	} else if !any && len(q.phrases) == 0 {
		return q.retrieve(func(func(query.Hit) error) error { return nil })
	}
	q.hintEmptyTerms(q.words)
	if err := q.noteTokenizers(ctx); err != nil {
		return err
	}
	return q.retrieve(func(emit func(query.Hit) error) error {
		return q.engine.Search(ctx, q.filter, query.Search{Terms: q.words, Phrases: q.phrases, Op: q.op, Field: q.field}, q.page, emit)
	})
}

// resolvePhrase checks --phrase: a phrase of the text field, holding a
// word as the index tokenizes.
func (q *queryCmd) resolvePhrase() error {
	if q.field != "text" {
		return fmt.Errorf("--phrase is of the text field: drop --field %s", q.field)
	}
	if query.PhraseWords(q.phrase) == 0 {
		return fmt.Errorf("--phrase %q holds no word as the index tokenizes (only one-letter words, punctuation or URLs)", q.phrase)
	}
	q.phrases = []string{q.phrase}
	return nil
}

// hintEmptyTerms says on stderr which terms tokenize to nothing, and so
// match no tweet.
func (q *queryCmd) hintEmptyTerms(terms []string) {
	for _, t := range query.EmptyTerms(terms, q.field) {
		fmt.Fprintf(q.stderr, "note: --term %q holds no term as the index tokenizes (one letter, punctuation, a URL): it matches no tweet\n", t)
	}
}

// noteTokenizers says on stderr, before a term question's answer, which
// tweets it can miss on a store whose term rows another tokenizer version
// wrote (query.TokenizerVersions), and what their rows may lack.
func (q *queryCmd) noteTokenizers(ctx context.Context) error {
	t, err := q.engine.TokenizerVersions(ctx)
	if err != nil {
		return err
	}
	others := t.Others()
	if len(others) == 0 {
		return nil
	}
	store := "store"
	if q.sink.cassandra != "" {
		store = "keyspace"
	}
	var b strings.Builder
	if t.Mixed() {
		fmt.Fprintf(&b, "note: this %s mixes tweets indexed with tokenizer %s", store, job.TokenizerVersionsText(t.Stored))
	} else {
		fmt.Fprintf(&b, "note: this %s was indexed with tokenizer %s", store, job.TokenizerVersionsText(t.Stored))
	}
	for _, v := range others {
		if lacks := t.Lacks(v); len(lacks) > 0 {
			fmt.Fprintf(&b, "; term rows of tweets indexed with version %d may lack terms version %d gives: %s", v, t.Question, strings.Join(lacks, "; then "))
		} else {
			fmt.Fprintf(&b, "; term rows of tweets indexed with version %d may hold other terms than version %d gives", v, t.Question)
		}
	}
	fmt.Fprintf(&b, "; this question, tokenized with version %d, can miss those tweets (index them again into a fresh %s to find them)", t.Question, store)
	if len(q.phrases) > 0 {
		fmt.Fprintf(&b, "; the phrase is checked against each tweet's text tokenized with version %d", t.Question)
	}
	fmt.Fprintln(q.stderr, b.String())
	return nil
}

func splitTerms(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// retrieve writes the tweets run emits and, when the page is full, the
// cursor of the next page on stderr.
func (q *queryCmd) retrieve(run func(emit func(query.Hit) error) error) error {
	cols, withKind := hitColumns, q.format == "geojson"
	if withKind {
		cols = append(slices.Clip(cols), pointColumn)
	}
	if err := q.out.Header(cols...); err != nil {
		return err
	}
	n := 0
	var last schemas.RowKey
	err := run(func(h query.Hit) error {
		n++
		last = h.Key
		row, err := hitRow(h, withKind)
		if err != nil {
			return err
		}
		return q.out.Row(row...)
	})
	if err != nil {
		return err
	}
	q.hintLang(context.Background(), int64(n))
	// A page ending on a row key that holds two tweets gives both, one
	// more than asked: it is full all the same.
	if q.page.Limit > 0 && n >= q.page.Limit {
		q.note = fmt.Sprintf("%d tweets; next page: --cursor %x", n, last[:])
	} else if q.format == "table" {
		q.note = fmt.Sprintf("%d tweets", n)
	}
	return nil
}

// export answers question 9: jsonl is the stored JSON of each tweet, a
// line each; csv the columns of a retrieval.
func (q *queryCmd) export(ctx context.Context) error {
	if q.format == "csv" {
		return q.retrieve(func(emit func(query.Hit) error) error {
			return q.engine.Tweets(ctx, q.filter, query.Page{}, emit)
		})
	}
	_, err := q.engine.Export(ctx, q.filter, q.stdout)
	return err
}

// bench times every question from the indexes and by a full scan.
func (q *queryCmd) bench(ctx context.Context) error {
	if q.filter != (query.Filter{}) {
		return errors.New("bench picks its own ranges: drop --from, --to and --lang")
	}
	rs, err := query.Bench(ctx, q.engine, query.BenchOptions{Repeat: q.repeat, Seed: q.seed, Progress: benchProgress(q.stderr)})
	if err != nil {
		return err
	}
	if err := printBench(q.stdout, rs); err != nil {
		return err
	}
	for _, r := range rs {
		if !r.Same {
			return fmt.Errorf("question %d: the index and the scan answer differently: a bug", r.Number)
		}
	}
	return nil
}

// users answers question 10.
func (q *queryCmd) users(ctx context.Context) error {
	if indexed, err := q.engine.AuthorsIndexed(ctx); err != nil {
		return err
	} else if !indexed {
		fmt.Fprintln(q.stderr, "note: this store was indexed before the authors table existed (no "+schemas.AuthorsParam+"): users reads every stored tweet of the range, which is slow; index the tweets into a new store to make it fast")
	}
	top, dist, err := q.engine.TopUsers(ctx, q.filter, q.top)
	if err != nil {
		return err
	}
	q.hintLang(ctx, int64(len(dist)))
	if q.top > 0 {
		if err := q.out.Header("user", "tweets"); err != nil {
			return err
		}
		for _, u := range top {
			name := u.ScreenName
			if name == "" && q.format == "table" {
				name = "(no screen name)" // a tweets.js archive's: its owner's, whom it does not name
			}
			if err := q.out.Row(name, u.Tweets); err != nil {
				return err
			}
		}
		return nil
	}
	if err := q.out.Header("tweets_per_user", "users"); err != nil {
		return err
	}
	for _, d := range dist {
		if err := q.out.Row(d.Tweets, d.Users); err != nil {
			return err
		}
	}
	return nil
}
