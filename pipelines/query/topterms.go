package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// TermCount is a term and the number of tweets that hold it.
type TermCount struct {
	Term   string
	Tweets int64
}

// TopQuery asks for the terms of one field (schemas.TermDayFields) with
// the most tweets.
type TopQuery struct {
	// Field is the field: hashtag, mention, text, user or url.
	Field string
	// Prefix, if set, keeps the terms that begin with it (completion).
	Prefix string
	// Limit, if above 0, keeps the Limit terms of the most tweets.
	Limit int
}

// ErrTermDaysNotIndexed is the error of top, trending and completion for a
// sink indexed before the per-day term counts existed.
var ErrTermDaysNotIndexed = errors.New("this store keeps no per-day term counts (no " + schemas.TermDaysParam + ": indexed with --term-days=false, or by a version that kept them only when asked): index its tweets into a new store, which keeps them by default, to ask for top, trending or completed terms")

// CheckTermDayField returns an error naming the fields if field is not one.
func CheckTermDayField(field string) error {
	if !slices.Contains(schemas.TermDayFields(), field) {
		return fmt.Errorf("field %q: want one of %s", field, strings.Join(schemas.TermDayFields(), ", "))
	}
	return nil
}

// PrefixField returns the field a completion of prefix is looked for in
// when none is given: hashtag for "#...", mention for "@...", else text.
func PrefixField(prefix string) string {
	return schemas.TermDayField(schemas.TermFieldText, prefix)
}

// WholeDays returns f with its bounds widened to whole UTC days (the
// grain of the per-day term counts): From to the start of its day, To to
// the end of the day of its last second. Zero bounds stay open.
func WholeDays(f Filter) Filter {
	if !f.From.IsZero() {
		f.From = time.Unix(schemas.DayStart(schemas.Day(f.From.Unix())), 0).UTC()
	}
	if !f.To.IsZero() {
		f.To = time.Unix(schemas.DayStart(schemas.Day(f.To.Unix()-1))+86400, 0).UTC()
	}
	return f
}

// termDays returns the days of f's range, widened to whole days: first
// and last, inclusive; ok is false for an empty range.
func (e *Engine) termDays(ctx context.Context, f Filter) (first, last uint16, ok bool, err error) {
	if _, found, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.TermDaysParam)); err != nil {
		return 0, 0, false, fmt.Errorf("reading %s: %w", schemas.TermDaysParam, err)
	} else if !found {
		return 0, 0, false, ErrTermDaysNotIndexed
	}
	s, err := e.resolve(ctx, WholeDays(f))
	if err != nil || s.from >= s.to || s.to <= 0 {
		return 0, 0, false, err
	}
	from, to := max(s.from, 0), min(s.to-1, schemas.DayStart(math.MaxUint16)+86399)
	return schemas.Day(from), schemas.Day(to), from <= to, nil
}

// termCounts adds to counts the tweets of each term of field beginning
// with prefix (in f.Lang if set) over the days first..last, from the
// per-day term counts: a range of each day.
func (e *Engine) termCounts(ctx context.Context, first, last uint16, lang, field, prefix string, counts map[string]int64) error {
	for d := int(first); d <= int(last); d++ {
		p := append(schemas.TermDayPrefix(uint16(d), field), prefix...)
		err := sink.ScanPrefix(ctx, e.R, schemas.TableTermDays, p, func(key, value []byte) error {
			_, _, term, l, ok := schemas.TermDayKey(key)
			if !ok {
				return fmt.Errorf("termdays row %q malformed", key)
			}
			if lang != "" && string(l) != lang {
				return nil
			}
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil {
				return fmt.Errorf("termdays row %q: count %q: %w", key, value, err)
			}
			counts[string(term)] += n
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Top answers "which terms of a field do the most tweets hold" over a
// range (widened to whole UTC days: WholeDays), and "which terms complete
// a prefix" (q.Prefix): each term with its tweets, most first (ties by
// term). It reads the per-day term counts (schemas.TermDayRow), a key
// range a day, so its time grows with the distinct terms of the days, not
// with their tweets.
func (e *Engine) Top(ctx context.Context, f Filter, q TopQuery) ([]TermCount, error) {
	if err := CheckTermDayField(q.Field); err != nil {
		return nil, err
	}
	first, last, ok, err := e.termDays(ctx, f)
	if err != nil || !ok {
		return nil, err
	}
	counts := map[string]int64{}
	if err := e.termCounts(ctx, first, last, f.Lang, q.Field, q.Prefix, counts); err != nil {
		return nil, err
	}
	return topTerms(counts, q.Limit), nil
}

// topTerms orders counts, most tweets first (ties by term), the first
// limit of them if limit > 0.
func topTerms(counts map[string]int64, limit int) []TermCount {
	out := make([]TermCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TermCount{t, n})
	}
	slices.SortFunc(out, func(a, b TermCount) int {
		return cmp.Or(cmp.Compare(b.Tweets, a.Tweets), strings.Compare(a.Term, b.Term))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Trend is a term whose share of the tweets rose against a baseline.
type Trend struct {
	Term string
	// Score is TrendScore of the counts.
	Score float64
	// Tweets and BaselineTweets hold the term in the range and in the
	// baseline; Total and BaselineTotal are all the tweets of each.
	Tweets, BaselineTweets int64
	Total, BaselineTotal   int64
}

// TrendScore is how much a term's share of the tweets rose: the base-2
// logarithm of the ratio of its shares in the range and in the baseline,
// each smoothed by one tweet so that a term absent from the baseline (or
// a baseline without tweets) has a finite score:
//
//	score = log2( ((n + 1) / (N + 1)) / ((b + 1) / (B + 1)) )
//
// with n of N tweets holding the term in the range and b of B in the
// baseline. 1 is a share doubled; a term of 15 tweets in a range the size
// of a baseline without it scores 4; a rare term scores little (1 tweet
// where the baseline has none: 1).
func TrendScore(n, total, b, baseTotal int64) float64 {
	return math.Log2((float64(n+1) / float64(total+1)) / (float64(b+1) / float64(baseTotal+1)))
}

// Baseline returns the default baseline of a range: as long, just
// before it (both widened to whole days).
func Baseline(f Filter) Filter {
	f = WholeDays(f)
	return Filter{From: f.From.Add(-f.To.Sub(f.From)), To: f.From, Lang: f.Lang}
}

// rankTrends makes the trends of the terms of counts against base, with
// positive scores, highest first (ties: more tweets, then by term), the
// first limit if limit > 0.
func rankTrends(counts, base map[string]int64, total, baseTotal int64, limit int) []Trend {
	var out []Trend
	for t, n := range counts {
		tr := Trend{Term: t, Tweets: n, BaselineTweets: base[t], Total: total, BaselineTotal: baseTotal}
		if tr.Score = TrendScore(n, total, tr.BaselineTweets, baseTotal); tr.Score > 0 {
			out = append(out, tr)
		}
	}
	slices.SortFunc(out, func(a, b Trend) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Tweets, a.Tweets), strings.Compare(a.Term, b.Term))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Trending answers "which terms of a field rose most" in f's range
// against the baseline's (both bounded, widened to whole UTC days): the
// terms of the range whose TrendScore is positive, highest first, with
// both counts. Totals are the tweets of each (the frequency table, in
// f.Lang if set).
func (e *Engine) Trending(ctx context.Context, f, baseline Filter, q TopQuery) ([]Trend, error) {
	if err := CheckTermDayField(q.Field); err != nil {
		return nil, err
	}
	if f.From.IsZero() || f.To.IsZero() || baseline.From.IsZero() || baseline.To.IsZero() {
		return nil, errors.New("trending: the range and the baseline need both bounds")
	}
	baseline.Lang = f.Lang
	var counts [2]map[string]int64
	var totals [2]int64
	for i, r := range []Filter{f, baseline} {
		counts[i] = map[string]int64{}
		first, last, ok, err := e.termDays(ctx, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := e.termCounts(ctx, first, last, r.Lang, q.Field, q.Prefix, counts[i]); err != nil {
			return nil, err
		}
		if totals[i], err = e.Count(ctx, WholeDays(r)); err != nil {
			return nil, err
		}
	}
	return rankTrends(counts[0], counts[1], totals[0], totals[1], q.Limit), nil
}

// Top returns the terms as Engine.Top does, from the raw tweets of the
// range (widened to whole days): each decoded, its terms made as the
// index makes them (transforms.TweetTermFields).
func (sc Scanner) Top(ctx context.Context, f Filter, q TopQuery) ([]TermCount, error) {
	counts, _, err := sc.termCounts(ctx, WholeDays(f), q)
	return topTerms(counts, q.Limit), err
}

// termCounts counts the tweets of each term of q's field and prefix, and
// all the tweets, of f's range.
func (sc Scanner) termCounts(ctx context.Context, f Filter, q TopQuery) (map[string]int64, int64, error) {
	counts := map[string]int64{}
	var total int64
	var scratch []transforms.Term
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		total++
		scratch = transforms.TweetTermFields(scratch, t, func(field, term string) {
			if field == q.Field && strings.HasPrefix(term, q.Prefix) {
				counts[term]++
			}
		})
		return nil
	})
	return counts, total, err
}

// Trending returns the trends as Engine.Trending does, from the raw
// tweets of the range and the baseline.
func (sc Scanner) Trending(ctx context.Context, f, baseline Filter, q TopQuery) ([]Trend, error) {
	baseline.Lang = f.Lang
	counts, total, err := sc.termCounts(ctx, WholeDays(f), q)
	if err != nil {
		return nil, err
	}
	base, baseTotal, err := sc.termCounts(ctx, WholeDays(baseline), q)
	if err != nil {
		return nil, err
	}
	return rankTrends(counts, base, total, baseTotal, q.Limit), nil
}
