package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// maxPrefixTerms is the most terms a prefix of query terms (--term
// '#vote*') may expand to: the tweets of each are a read of the term
// index, and an OR of thousands is a scan in disguise.
var maxPrefixTerms = 1000

// termDayQuestion says whether a question reads the per-day term counts.
func termDayQuestion(name string) bool {
	return name == "top" || name == "trending" || name == "complete"
}

// registerTop registers the flags of top, trending and complete.
func (q *queryCmd) registerTop(fs *flag.FlagSet, name string) {
	fields := strings.Join(schemas.TermDayFields(), ", ")
	switch name {
	case "top", "trending":
		fs.StringVar(&q.field, "field", schemas.TermFieldHashtag, "the field of the terms: "+fields+" (text: the words, hashtags and mentions apart)")
		fs.IntVar(&q.limit, "limit", 20, "at most this many terms (0: all)")
	case "complete":
		fs.StringVar(&q.prefix, "prefix", "", "the beginning of the terms, as the indexer tokenizes (lower case): clim, #vote, @nasa")
		fs.StringVar(&q.field, "field", "", "the field of the terms: "+fields+" (default: hashtag for #..., mention for @..., else text)")
		fs.IntVar(&q.limit, "limit", 10, "at most this many terms (0: all)")
	}
	if name == "trending" {
		fs.StringVar(&q.baseFrom, "baseline-from", "", "the baseline's start (default: as long before --from as the range is long)")
		fs.StringVar(&q.baseTo, "baseline-to", "", "the baseline's end, exclusive (default: --from)")
	}
}

// resolveTop checks the flags of top, trending and complete into
// q.topQ and q.baseline.
func (q *queryCmd) resolveTop(name string) error {
	if name == "complete" {
		if q.prefix == "" {
			return errors.New("--prefix is required: the beginning of the terms to complete (clim, #vote, @nasa)")
		}
		q.prefix = strings.ToLower(q.prefix)
		if q.field == "" {
			q.field = query.PrefixField(q.prefix)
		}
	}
	if err := query.CheckTermDayField(q.field); err != nil {
		return fmt.Errorf("--%w", err)
	}
	q.topQ = query.TopQuery{Field: q.field, Prefix: q.prefix, Limit: q.limit}
	if name != "trending" {
		return nil
	}
	if q.filter.From.IsZero() || q.filter.To.IsZero() {
		return errors.New("trending needs --from and --to: the range whose terms rose (the baseline is as long, just before, unless --baseline-from/--baseline-to say otherwise)")
	}
	q.baseline = query.Baseline(q.filter)
	var err error
	if q.baseFrom != "" {
		if q.baseline.From, err = parseTime("baseline-from", q.baseFrom); err != nil {
			return err
		}
	}
	if q.baseTo != "" {
		if q.baseline.To, err = parseTime("baseline-to", q.baseTo); err != nil {
			return err
		}
	}
	if !q.baseline.From.Before(q.baseline.To) {
		return fmt.Errorf("the baseline %s..%s is empty: --baseline-from must be before --baseline-to", q.baseline.From.Format(time.RFC3339), q.baseline.To.Format(time.RFC3339))
	}
	return nil
}

// noteWholeDays says on stderr which days a question of the per-day term
// counts answered for, when the range asked does not fall on whole days.
func (q *queryCmd) noteWholeDays(what string, f query.Filter) {
	w := query.WholeDays(f)
	if w == f || w.From.IsZero() && w.To.IsZero() {
		return
	}
	fmt.Fprintf(q.stderr, "note: %s counts whole UTC days (the per-day term counts): %s\n", what, daysText(w))
}

// daysText renders the whole-day range of f.
func daysText(f query.Filter) string {
	switch {
	case f.From.IsZero() && f.To.IsZero():
		return "every day of the data"
	case f.To.IsZero():
		return "the days from " + f.From.Format(time.DateOnly)
	case f.From.IsZero():
		return "the days up to " + f.To.Add(-24*time.Hour).Format(time.DateOnly)
	}
	from, to := f.From.Format(time.DateOnly), f.To.Add(-24*time.Hour).Format(time.DateOnly)
	if from == to {
		return from
	}
	return from + " to " + to
}

// topTerms answers "which terms of a field do the most tweets hold".
func (q *queryCmd) topTerms(ctx context.Context) error {
	q.noteWholeDays("top", q.filter)
	terms, err := q.engine.Top(ctx, q.filter, q.topQ)
	if err != nil {
		return err
	}
	q.hintLang(ctx, int64(len(terms)))
	return q.writeTermCounts(terms)
}

// complete answers "which terms complete a prefix", those of the most
// tweets first.
func (q *queryCmd) complete(ctx context.Context) error {
	q.noteWholeDays("complete", q.filter)
	terms, err := q.engine.Top(ctx, q.filter, q.topQ)
	if err != nil {
		return err
	}
	return q.writeTermCounts(terms)
}

func (q *queryCmd) writeTermCounts(terms []query.TermCount) error {
	if err := q.out.Header("term", "tweets"); err != nil {
		return err
	}
	for _, t := range terms {
		if err := q.out.Row(t.Term, t.Tweets); err != nil {
			return err
		}
	}
	return nil
}

// trending answers "which terms rose most against a baseline".
func (q *queryCmd) trending(ctx context.Context) error {
	trends, err := q.engine.Trending(ctx, q.filter, q.baseline, q.topQ)
	if err != nil {
		return err
	}
	total, baseTotal, err := q.trendTotals(ctx, trends)
	if err != nil {
		return err
	}
	fmt.Fprintf(q.stderr, "note: %s (%d tweets) against the baseline %s (%d tweets); score = log2(((n+1)/(N+1)) / ((b+1)/(B+1)))\n",
		daysText(query.WholeDays(q.filter)), total, daysText(query.WholeDays(q.baseline)), baseTotal)
	if baseTotal == 0 {
		fmt.Fprintln(q.stderr, "note: the baseline holds no tweets: no share can rise against it; ask with --baseline-from/--baseline-to over days that hold tweets")
	}
	if err := q.out.Header("term", "score", "tweets", "baseline_tweets"); err != nil {
		return err
	}
	for _, t := range trends {
		if err := q.out.Row(t.Term, math.Round(t.Score*1000)/1000, t.Tweets, t.BaselineTweets); err != nil {
			return err
		}
	}
	return nil
}

// trendTotals returns the tweets of the range and of the baseline: the
// trends' own, or counted when there is none.
func (q *queryCmd) trendTotals(ctx context.Context, trends []query.Trend) (int64, int64, error) {
	if len(trends) > 0 {
		return trends[0].Total, trends[0].BaselineTotal, nil
	}
	base := q.baseline
	base.Lang = q.filter.Lang
	total, err := q.engine.Count(ctx, query.WholeDays(q.filter))
	if err != nil {
		return 0, 0, err
	}
	baseTotal, err := q.engine.Count(ctx, query.WholeDays(base))
	return total, baseTotal, err
}

// prefixTerm returns the prefix of a term that ends with '*' ("#vote*"),
// and whether it is one.
func prefixTerm(term string) (string, bool) {
	p, ok := strings.CutSuffix(term, "*")
	return strings.ToLower(p), ok
}

// expandPrefixes replaces each term of q.words that ends with '*' by the
// terms that complete it over the range (the per-day term counts, whole
// days), and says on stderr how many; more than maxPrefixTerms is an
// error. It returns false when no term is left to ask for.
func (q *queryCmd) expandPrefixes(ctx context.Context) (bool, error) {
	var words []string
	expanded := false
	for _, w := range q.words {
		prefix, ok := prefixTerm(w)
		if !ok {
			words = append(words, w)
			continue
		}
		expanded = true
		field := q.field
		if field == schemas.TermFieldText {
			field = query.PrefixField(prefix)
		}
		terms, err := q.engine.Top(ctx, q.filter, query.TopQuery{Field: field, Prefix: prefix, Limit: maxPrefixTerms + 1})
		if err != nil {
			return false, err
		}
		if len(terms) > maxPrefixTerms {
			return false, fmt.Errorf("--term %q: more than %d terms begin with %q over %s: give a longer prefix or a shorter range", w, maxPrefixTerms, prefix, daysText(query.WholeDays(q.filter)))
		}
		names := make([]string, len(terms))
		for i, t := range terms {
			names[i] = t.Term
		}
		shown := names
		if len(shown) > 10 {
			shown = append(shown[:10:10], "...")
		}
		plural := "s"
		if len(names) == 1 {
			plural = ""
		}
		fmt.Fprintf(q.stderr, "note: %q expands to %d term%s over %s: %s\n", w, len(names), plural, daysText(query.WholeDays(q.filter)), strings.Join(shown, " "))
		words = append(words, names...)
	}
	if expanded {
		q.words, q.op = words, query.Or
		if len(q.words) > maxPrefixTerms {
			return false, fmt.Errorf("the prefixes expand to %d terms, more than %d: give longer prefixes or a shorter range", len(q.words), maxPrefixTerms)
		}
	}
	return len(q.words) > 0, nil
}
