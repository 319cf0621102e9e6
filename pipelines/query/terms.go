package query

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Op combines the terms of a search.
type Op int

// The ways terms combine.
const (
	And Op = iota // tweets with every term
	Or            // tweets with any term
)

// normalizeTerm turns a term as a person types it into the term as the
// index holds it: lower case, as the tokenizer leaves every term.
func normalizeTerm(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// hourSeconds is the chunk term searches walk a range in: the term index's
// Cassandra partition.
const hourSeconds = 3600

// termChunk calls fn with the sorted row keys of term in field within
// [from, to), a chunk of a range.
func (e *Engine) termChunk(ctx context.Context, term, field string, from, to int64, fn func(schemas.RowKey) error) error {
	prefix := schemas.TermPrefix(term, field)
	start := append(bytes.Clone(prefix), rowKeyAt(from)...)
	end := append(bytes.Clone(prefix), rowKeyAt(to)...)
	return e.R.Scan(ctx, schemas.TableTerms, start, end, func(key, _ []byte) error {
		if len(key) != len(prefix)+schemas.RowKeyLen {
			return nil // a longer term sharing this one's bytes cannot match the prefix and its 0s; defensive
		}
		var k schemas.RowKey
		copy(k[:], key[len(prefix):])
		return fn(k)
	})
}

// termKeys calls fn with the row keys, in order, of the tweets that hold
// term in field in f's range and language.
func (e *Engine) termKeys(ctx context.Context, f Filter, term, field string, fn func(schemas.RowKey) error) error {
	if err := checkField(field); err != nil {
		return err
	}
	s, err := e.resolve(ctx, f)
	if err != nil {
		return err
	}
	lang := e.langFilter(s.lang)
	for h := s.from - floorMod(s.from, hourSeconds); h < s.to; h += hourSeconds {
		err := e.termChunk(ctx, term, field, max(h, s.from), min(h+hourSeconds, s.to), func(k schemas.RowKey) error {
			ok, err := lang(ctx, k)
			if err != nil || !ok {
				return err
			}
			return fn(k)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func checkField(field string) error {
	if field != transforms.FieldText && field != transforms.FieldUser {
		return fmt.Errorf("field %q: want %s or %s", field, transforms.FieldText, transforms.FieldUser)
	}
	return nil
}

// Terms answers "which tweets contain these terms" (questions 7 and 8):
// with And, the tweets holding every term; with Or, any. Each term's row
// keys come sorted from the term index one hour (one Cassandra partition)
// at a time, and the lists of an hour are intersected or merged in one
// pass, as Accumulo's intersecting iterator does; the tweets go to emit in
// row key (time) order, at most page.Limit of them after page.After.
func (e *Engine) Terms(ctx context.Context, f Filter, terms []string, op Op, field string, page Page, emit func(Hit) error) error {
	if len(terms) == 0 {
		return fmt.Errorf("no terms")
	}
	if err := checkField(field); err != nil {
		return err
	}
	s, err := e.resolve(ctx, f)
	if err != nil {
		return err
	}
	terms = slices.Clone(terms)
	for i := range terms {
		terms[i] = normalizeTerm(terms[i])
	}
	out := page.emitter(e, s.lang, emit)
	lists := make([][]schemas.RowKey, len(terms))
	for h := s.from - floorMod(s.from, hourSeconds); h < s.to; h += hourSeconds {
		from, to := max(h, s.from), min(h+hourSeconds, s.to)
		if page.After != nil && rowKeyTime(page.After[:]) >= to {
			continue
		}
		for i, t := range terms {
			lists[i] = lists[i][:0]
			err := e.termChunk(ctx, t, field, from, to, func(k schemas.RowKey) error {
				lists[i] = append(lists[i], k)
				return nil
			})
			if err != nil {
				return err
			}
			if op == And && len(lists[i]) == 0 {
				break // nothing this hour
			}
		}
		var keys []schemas.RowKey
		if op == And {
			keys = intersect(lists)
		} else {
			keys = union(lists)
		}
		if err := out.keys(ctx, keys); err != nil {
			return out.end(err)
		}
	}
	return nil
}

// intersect returns the keys in every sorted list, in order.
func intersect(lists [][]schemas.RowKey) []schemas.RowKey {
	pos := make([]int, len(lists))
	var out []schemas.RowKey
	for {
		// The largest head is the candidate; advance the others to it.
		var cand schemas.RowKey
		for i, l := range lists {
			if pos[i] >= len(l) {
				return out
			}
			if i == 0 || bytes.Compare(l[pos[i]][:], cand[:]) > 0 {
				cand = l[pos[i]]
			}
		}
		all := true
		for i, l := range lists {
			for pos[i] < len(l) && bytes.Compare(l[pos[i]][:], cand[:]) < 0 {
				pos[i]++
			}
			if pos[i] >= len(l) {
				return out
			}
			if l[pos[i]] != cand {
				all = false
			}
		}
		if all {
			out = append(out, cand)
			for i := range pos {
				pos[i]++
			}
		}
	}
}

// union returns the keys in any sorted list, in order, once each.
func union(lists [][]schemas.RowKey) []schemas.RowKey {
	pos := make([]int, len(lists))
	var out []schemas.RowKey
	for {
		best := -1
		for i, l := range lists {
			if pos[i] < len(l) && (best < 0 || bytes.Compare(l[pos[i]][:], lists[best][pos[best]][:]) < 0) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		k := lists[best][pos[best]]
		if n := len(out); n == 0 || out[n-1] != k {
			out = append(out, k)
		}
		pos[best]++
	}
}
