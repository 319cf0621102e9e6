// Command postgres asks PostgreSQL + PostGIS the questions of `tweetindex
// query bench`, on the same tweets, and prints both answers' times side by
// side, with whether the answers are the same.
//
// It loads the tweets a store holds (its raw table, after deduplication)
// into one PostgreSQL table, indexed as a data team would index it: a
// btree on created_at, a GIN index on the array of the text's terms (made
// by the indexing tokenizer, so that both sides search the same terms), a
// GIN index on a tsvector of the text's terms at their positions (the
// same tokenizer's, for phrases: phrase.go) and a GiST index on the exact
// points. Then it picks the questions' ranges,
// terms and box from the store (query.NewBenchSetup), times the index
// answers in process (query.Bench) and PostgreSQL's through psql (\timing,
// client side, results discarded), and compares each answer: counts, the
// ids retrieved, the series and the users' distribution.
//
// It needs psql and a database with PostGIS; the tests do not use it:
//
//	make bench-query                       # builds .tweetindex/benchq-200000/store
//	createdb tweets && psql -d tweets -c 'create extension postgis'
//	go run ./testdata/postgres -store .tweetindex/benchq-200000/store -db tweets
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

func main() {
	store := flag.String("store", "", "the store whose tweets and questions to use (required)")
	db := flag.String("db", "tweets", "the PostgreSQL database (psql -d), with the postgis extension")
	psql := flag.String("psql", "psql", "the psql program")
	seed := flag.Uint64("seed", 1, "picks the box's tweet, as query bench --seed")
	repeat := flag.Int("repeat", 3, "times each answer is timed; the fastest counts")
	load := flag.Bool("load", true, "(re)load the table from the store first; false reuses the loaded one")
	flag.Parse()
	if *store == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./testdata/postgres -store DIR [-db tweets] [-load=false]")
		os.Exit(2)
	}
	if err := run(context.Background(), *store, pg{psql: *psql, db: *db}, *seed, *repeat, *load); err != nil {
		fmt.Fprintln(os.Stderr, "postgres:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string, p pg, seed uint64, repeat int, load bool) error {
	st, err := storeio.OpenRead(dir, storeio.ReadCacheSize)
	if err != nil {
		return err
	}
	defer st.Close()
	e := query.NewEngine(st)
	if load {
		start := time.Now()
		n, err := p.load(ctx, e)
		if err != nil {
			return fmt.Errorf("loading PostgreSQL: %w", err)
		}
		fmt.Fprintf(os.Stderr, "loaded %d tweets into PostgreSQL and indexed them in %.1f s\n", n, time.Since(start).Seconds())
	}
	b, err := query.NewBenchSetup(ctx, e, seed)
	if err != nil {
		return err
	}
	qs := questions(b)
	phrase, err := pickPhrase(ctx, e, b)
	if err != nil {
		return err
	}
	qs = append(qs, phraseQuestion(b, phrase))
	// PostgreSQL first: its answers, then its times.
	pgTimes, err := p.times(ctx, qs, repeat)
	if err != nil {
		return err
	}
	res, err := query.Bench(ctx, e, query.BenchOptions{Repeat: repeat, Seed: seed})
	if err != nil {
		return err
	}
	fmt.Printf("%-3s %-52s %12s %12s %7s  %s\n", "#", "question", "tweetindex", "PostgreSQL", "ratio", "same answer")
	for i, q := range qs {
		mine, err := q.index(ctx, e)
		if err != nil {
			return fmt.Errorf("question %d from the index: %w", q.number, err)
		}
		theirs, err := p.answer(ctx, q.answer)
		if err != nil {
			return fmt.Errorf("question %d from PostgreSQL: %w", q.number, err)
		}
		var idx time.Duration
		if q.retrieve != nil { // not a question of query bench: timed here, as it times retrievals
			if idx, err = fastest(repeat, func() error { return q.retrieve(ctx, e, func(query.Hit) error { return nil }) }); err != nil {
				return fmt.Errorf("question %d from the index: %w", q.number, err)
			}
		} else {
			for _, r := range res {
				if r.Number == q.number {
					idx = r.Index
				}
			}
		}
		same := "yes"
		if mine != theirs {
			same = fmt.Sprintf("NO (tweetindex %s, PostgreSQL %s)", summary(mine), summary(theirs))
		}
		fmt.Printf("%-3d %-52s %12s %12s %7.2f  %s\n", q.number, q.text, ms(idx), ms(pgTimes[i]),
			float64(idx)/float64(max(pgTimes[i], 1)), same)
	}
	return nil
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) + " ms" }

// summary shortens an answer for a mismatch line: its first line and
// how many lines it has.
func summary(a string) string {
	lines := strings.Split(a, "\n")
	if len(lines) == 1 {
		return a
	}
	return fmt.Sprintf("%d lines, first %q", len(lines), lines[0])
}

// question is one question of query bench, asked both ways: timed is the
// SQL a data team would write (it returns what the index returns), answer
// the SQL whose output is compared with index's rendering.
type question struct {
	number int
	text   string
	timed  string
	answer string
	index  func(context.Context, *query.Engine) (string, error)
	// retrieve, for a question query bench does not ask, is the
	// retrieval to time: the stored JSON of each tweet handed to emit.
	retrieve func(ctx context.Context, e *query.Engine, emit func(query.Hit) error) error
}

// fastest returns the fastest of n runs of fn.
func fastest(n int, fn func() error) (time.Duration, error) {
	var best time.Duration
	for i := 0; i < max(n, 1); i++ {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		if d := time.Since(start); i == 0 || d < best {
			best = d
		}
	}
	return best, nil
}

func questions(b query.BenchSetup) []question {
	box := fmt.Sprintf("ST_MakeEnvelope(%g, %g, %g, %g, 4326)", b.Box.MinLon, b.Box.MinLat, b.Box.MaxLon, b.Box.MaxLat)
	term := func(ts ...string) string {
		q := make([]string, len(ts))
		for i, t := range ts {
			q[i] = "'" + strings.ReplaceAll(t, "'", "''") + "'"
		}
		return "array[" + strings.Join(q, ",") + "]"
	}
	and, one := term(b.Term, b.Term2), term(b.Term)
	count := func(n int64, err error) (string, error) { return strconv.FormatInt(n, 10), err }
	return []question{
		{number: 1, text: "count tweets (6 hours)",
			timed:  "select count(*) from tweets where " + during(b.Six),
			answer: "select count(*) from tweets where " + during(b.Six),
			index:  func(ctx context.Context, e *query.Engine) (string, error) { return count(e.Count(ctx, b.Six)) }},
		{number: 2, text: "count geotagged tweets in box (all)",
			timed:  "select count(*) from tweets where exact and geom && " + box,
			answer: "select count(*) from tweets where exact and geom && " + box,
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return count(e.CountGeo(ctx, b.All, &b.Box))
			}},
		{number: 3, text: "tweets per hour (all)",
			timed:  "select date_trunc('hour', created_at) h, count(*) from tweets group by 1 order by 1",
			answer: "select extract(epoch from date_trunc('hour', created_at))::bigint, count(*) from tweets group by 1 order by 1",
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				p, err := e.Series(ctx, b.All, time.Hour)
				var lines []string
				for _, p := range p {
					if p.Count > 0 {
						lines = append(lines, fmt.Sprintf("%d|%d", p.Start.Unix(), p.Count))
					}
				}
				return strings.Join(lines, "\n"), err
			}},
		{number: 4, text: fmt.Sprintf("count tweets with %q (all)", b.Term),
			timed:  "select count(*) from tweets where terms @> " + one,
			answer: "select count(*) from tweets where terms @> " + one,
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return count(e.CountTerm(ctx, b.All, b.Term, "text"))
			}},
		{number: 5, text: "geotagged tweets in box (24 hours)",
			timed:  "select id, ST_Y(geom), ST_X(geom), json from tweets where exact and geom && " + box + " and " + during(b.Day) + " order by created_at",
			answer: "select id from tweets where exact and geom && " + box + " and " + during(b.Day) + " order by id",
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return ids(func(emit func(query.Hit) error) error { return e.Geo(ctx, b.Day, &b.Box, query.Page{}, emit) })
			}},
		{number: 6, text: "tweets (1 hour)",
			timed:  "select id, json from tweets where " + during(b.Hour) + " order by created_at",
			answer: "select id from tweets where " + during(b.Hour) + " order by id",
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return ids(func(emit func(query.Hit) error) error { return e.Tweets(ctx, b.Hour, query.Page{}, emit) })
			}},
		{number: 7, text: fmt.Sprintf("tweets with %q AND %q (all)", b.Term, b.Term2),
			timed:  "select id, json from tweets where terms @> " + and + " order by created_at",
			answer: "select id from tweets where terms @> " + and + " order by id",
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return ids(func(emit func(query.Hit) error) error {
					return e.Terms(ctx, b.All, []string{b.Term, b.Term2}, query.And, "text", query.Page{}, emit)
				})
			}},
		{number: 8, text: fmt.Sprintf("tweets with %q (6 hours)", b.Term),
			timed:  "select id, json from tweets where terms @> " + one + " and " + during(b.Six) + " order by created_at",
			answer: "select id from tweets where terms @> " + one + " and " + during(b.Six) + " order by id",
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return ids(func(emit func(query.Hit) error) error {
					return e.Terms(ctx, b.Six, []string{b.Term}, query.And, "text", query.Page{}, emit)
				})
			}},
		{number: 9, text: "export tweets as JSON lines (1 hour)",
			timed:  "copy (select json from tweets where " + during(b.Hour) + " order by created_at) to stdout",
			answer: "select count(*) from tweets where " + during(b.Hour),
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return count(e.Export(ctx, b.Hour, io.Discard))
			}},
		{number: 10, text: "tweets per user (6 hours)",
			timed:  "select n, count(*) from (select lower(screen_name), count(*) n from tweets where " + during(b.Six) + " group by 1) u group by n order by n",
			answer: "select n, count(*) from (select lower(screen_name), count(*) n from tweets where " + during(b.Six) + " group by 1) u group by n order by n",
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				d, err := e.Users(ctx, b.Six)
				lines := make([]string, len(d))
				for i, u := range d {
					lines[i] = fmt.Sprintf("%d|%d", u.Tweets, u.Users)
				}
				return strings.Join(lines, "\n"), err
			}},
		{number: 11, text: fmt.Sprintf("tweets with %q OR %q (all)", b.Term, b.Term2),
			timed:  "select id, json from tweets where terms && " + and + " order by created_at",
			answer: "select id from tweets where terms && " + and + " order by id",
			index: func(ctx context.Context, e *query.Engine) (string, error) {
				return ids(func(emit func(query.Hit) error) error {
					return e.Terms(ctx, b.All, []string{b.Term, b.Term2}, query.Or, "text", query.Page{}, emit)
				})
			}},
	}
}

// during is the SQL condition of f's time range.
func during(f query.Filter) string {
	var c []string
	if !f.From.IsZero() {
		c = append(c, "created_at >= '"+f.From.UTC().Format(time.RFC3339)+"'")
	}
	if !f.To.IsZero() {
		c = append(c, "created_at < '"+f.To.UTC().Format(time.RFC3339)+"'")
	}
	if len(c) == 0 {
		return "true"
	}
	return strings.Join(c, " and ")
}

// ids renders the ids of the tweets a retrieval returns, sorted, one a
// line.
func ids(run func(emit func(query.Hit) error) error) (string, error) {
	var out []uint64
	err := run(func(h query.Hit) error {
		t, err := h.Tweet()
		if err != nil {
			return err
		}
		out = append(out, t.ID)
		return nil
	})
	slices.Sort(out)
	lines := make([]string, len(out))
	for i, id := range out {
		lines[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(lines, "\n"), err
}

// pg runs psql.
type pg struct {
	psql, db string
}

func (p pg) cmd(ctx context.Context, args ...string) *exec.Cmd {
	flags := []string{"-X", "-q", "-v", "ON_ERROR_STOP=1"}
	if p.db != "" { // else psql's default (PGDATABASE, or the user's name)
		flags = append(flags, "-d", p.db)
	}
	c := exec.CommandContext(ctx, p.psql, append(flags, args...)...)
	c.Stderr = os.Stderr
	return c
}

// exec runs SQL statements.
func (p pg) exec(ctx context.Context, sql string) error {
	c := p.cmd(ctx)
	c.Stdin = strings.NewReader(sql)
	c.Stdout = io.Discard
	if err := c.Run(); err != nil {
		return fmt.Errorf("psql: %w", err)
	}
	return nil
}

// answer runs one query and returns its rows, fields separated by '|', one
// a line.
func (p pg) answer(ctx context.Context, sql string) (string, error) {
	out, err := p.cmd(ctx, "-A", "-t", "-c", sql).Output()
	if err != nil {
		return "", fmt.Errorf("psql: %w", err)
	}
	return strings.TrimRight(string(out), "\n"), nil
}

// times runs each question's timed SQL repeat times in one session, its
// output discarded, and returns the fastest time of each.
func (p pg) times(ctx context.Context, qs []question, repeat int) ([]time.Duration, error) {
	var script strings.Builder
	script.WriteString("\\timing on\n\\o /dev/null\n")
	for _, q := range qs {
		for range repeat {
			script.WriteString(q.timed + ";\n")
		}
	}
	c := p.cmd(ctx, "-A", "-t") // unaligned: psql's formatting of wide rows is not PostgreSQL's time
	c.Stdin = strings.NewReader(script.String())
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("psql: %w", err)
	}
	var all []time.Duration
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// "Time: 12.345 ms" or "Time: 1234.567 ms (00:01.235)"
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "Time:" {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, fmt.Errorf("psql timing line %q: %w", sc.Text(), err)
		}
		all = append(all, time.Duration(v*1e6))
	}
	if len(all) != len(qs)*repeat {
		return nil, fmt.Errorf("psql printed %d timings for %d statements", len(all), len(qs)*repeat)
	}
	best := make([]time.Duration, len(qs))
	for i := range qs {
		best[i] = slices.Min(all[i*repeat : (i+1)*repeat])
	}
	return best, nil
}

const schema = `
drop table if exists tweets;
create table tweets (
	id          bigint primary key,
	created_at  timestamptz not null,
	lang        text not null,
	screen_name text not null,
	terms       text[] not null,
	words       tsvector not null,
	geom        geometry(Point, 4326),
	exact       boolean,
	json        text not null
);
`

const indexes = `
create index tweets_created_at on tweets (created_at);
create index tweets_terms on tweets using gin (terms);
create index tweets_words on tweets using gin (words);
create index tweets_geom on tweets using gist (geom);
vacuum analyze tweets;
`

// load copies every tweet the store holds into the tweets table and
// indexes it.
func (p pg) load(ctx context.Context, e *query.Engine) (int64, error) {
	if err := p.exec(ctx, schema); err != nil {
		return 0, err
	}
	var scratch []transforms.Term
	var posts []transforms.Posting
	n, err := p.copyIn(ctx, "tweets", e, func(line []byte, h query.Hit, t *schemas.Tweet) []byte {
		scratch = transforms.Tokenize(scratch[:0], t.Text)
		line = strconv.AppendUint(line, t.ID, 10)
		line = append(line, '\t')
		line = time.Unix(t.CreatedAt, 0).UTC().AppendFormat(line, time.RFC3339)
		line = append(line, '\t')
		line = copyText(line, t.Lang)
		line = append(line, '\t')
		line = copyText(line, t.ScreenName)
		line = append(line, '\t')
		var arr []byte
		arr = append(arr, '{')
		for i, term := range scratch {
			if i > 0 {
				arr = append(arr, ',')
			}
			arr = append(arr, '"')
			for _, r := range []byte(term.Term) {
				if r == '"' || r == '\\' {
					arr = append(arr, '\\')
				}
				arr = append(arr, r)
			}
			arr = append(arr, '"')
		}
		arr = append(arr, '}')
		line = copyText(line, string(arr))
		line = append(line, '\t')
		posts = transforms.TextPostings(posts[:0], t.Text)
		line = copyText(line, tsvectorText(posts))
		line = append(line, '\t')
		if t.HasPoint {
			line = fmt.Appendf(line, "SRID=4326;POINT(%s %s)\t%t", strconv.FormatFloat(t.Lon, 'g', -1, 64), strconv.FormatFloat(t.Lat, 'g', -1, 64), !t.PlaceCentre)
		} else {
			line = append(line, `\N`+"\t"+`\N`...)
		}
		line = append(line, '\t')
		return copyText(line, string(h.JSON))
	})
	if err != nil {
		return n, err
	}
	if n == 0 {
		return 0, errors.New("the store holds no tweets")
	}
	return n, p.exec(ctx, indexes)
}

// copyIn copies one line a tweet of e (row appends it, without its
// newline) into table through psql's COPY FROM STDIN, and returns the
// lines copied.
func (p pg) copyIn(ctx context.Context, table string, e *query.Engine, row func(line []byte, h query.Hit, t *schemas.Tweet) []byte) (int64, error) {
	c := p.cmd(ctx, "-c", "copy "+table+" from stdin")
	in, err := c.StdinPipe()
	if err != nil {
		return 0, err
	}
	if err := c.Start(); err != nil {
		return 0, fmt.Errorf("psql: %w", err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	var n int64
	var line []byte
	err = e.Tweets(ctx, query.Filter{}, query.Page{}, func(h query.Hit) error {
		t, err := h.Tweet()
		if err != nil {
			return err
		}
		line = append(row(line[:0], h, t), '\n')
		n++
		_, err = w.Write(line)
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if cerr := in.Close(); err == nil {
		err = cerr
	}
	if werr := c.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("psql copy: %w", werr)
	}
	return n, err
}

// copyText appends s escaped for COPY's text format.
func copyText(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
