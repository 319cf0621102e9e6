package query

import (
	"bytes"
	"context"
	"fmt"
	"slices"

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

// queryGroups tokenizes the terms of a search as the index was built
// (transforms.QueryTerms): each term becomes the group of tokens a tweet
// must all hold. A term that tokenizes to nothing gives an empty group.
func queryGroups(terms []string, field string) [][]string {
	groups := make([][]string, len(terms))
	for i, t := range terms {
		groups[i] = transforms.QueryTerms(t, field)
	}
	return groups
}

// EmptyTerms returns the terms of a search that tokenize to nothing (a
// single letter, punctuation, a URL): with And they make the answer
// empty, with Or they add nothing.
func EmptyTerms(terms []string, field string) []string {
	var out []string
	for _, t := range terms {
		if len(transforms.QueryTerms(t, field)) == 0 {
			out = append(out, t)
		}
	}
	return out
}

// Term searches walk a range in chunks of whole hours (the term index's
// Cassandra partition): an hour first, then twice as many hours while the
// longest list of row keys of a chunk is under chunkKeys, up to
// maxChunkHours (a day), and half as many when it is over 4 chunkKeys. So
// a rare term over a month takes some 35 reads, not 720, and a frequent
// one holds a few hours of row keys in memory (a burst after a quiet
// spell, at most a day's).
const (
	hourSeconds   = 3600
	chunkKeys     = 4096
	maxChunkHours = 24
)

// termList is the row keys of a term in a field over a chunk of a range,
// sorted, and, when read with positions, the positions each row records:
// pos[2i:2i+2] bounds the positions part of row i's value in buf
// (schemas.AppendTermPositions), pos[2i] is -1 when it records none.
type termList struct {
	keys []schemas.RowKey
	pos  []int
	buf  []byte
	cur  int // seek's cursor
}

// seek moves the list's cursor forward to the first row key at or after
// k, and reports whether it is k. The keys sought must ascend.
func (l *termList) seek(k schemas.RowKey) bool {
	for l.cur < len(l.keys) && compareKeys(l.keys[l.cur], k) < 0 {
		l.cur++
	}
	return l.cur < len(l.keys) && l.keys[l.cur] == k
}

// termChunk returns the row keys of term in field within [from, to), a
// chunk of a range, with the positions the rows record if withPos.
func (e *Engine) termChunk(ctx context.Context, term, field string, from, to int64, withPos bool) (*termList, error) {
	prefix := schemas.TermPrefix(term, field)
	start := append(bytes.Clone(prefix), rowKeyAt(from)...)
	end := append(bytes.Clone(prefix), rowKeyAt(to)...)
	l := &termList{}
	err := e.R.Scan(ctx, schemas.TableTerms, start, end, func(key, value []byte) error {
		if len(key) != len(prefix)+schemas.RowKeyLen {
			return nil // a longer term sharing this one's bytes cannot match the prefix and its 0s; defensive
		}
		l.keys = append(l.keys, schemas.RowKey(key[len(prefix):]))
		if withPos {
			if i := bytes.IndexByte(value, 0); i >= 0 {
				l.pos = append(l.pos, len(l.buf), len(l.buf)+len(value)-i-1)
				l.buf = append(l.buf, value[i+1:]...)
			} else {
				l.pos = append(l.pos, -1, -1)
			}
		}
		return nil
	})
	return l, err
}

// CheckField says what is wrong with field, if it is not a field the term
// index holds (text, user or url).
func CheckField(field string) error {
	if field != transforms.FieldText && field != transforms.FieldUser && field != transforms.FieldURL {
		return fmt.Errorf("field %q: want %s, %s or %s", field, transforms.FieldText, transforms.FieldUser, transforms.FieldURL)
	}
	return nil
}

// Terms answers "which tweets contain these terms" (questions 7 and 8):
// with And, the tweets holding every term; with Or, any. A term is
// tokenized as the index was (transforms.QueryTerms), and a term that
// becomes several tokens (CJK bigrams, "big data") is the And of them.
// Each token's row keys come sorted from the term index some whole hours
// (Cassandra partitions) at a time, and the lists of a chunk are
// intersected or merged in one pass, as Accumulo's intersecting iterator
// does; the tweets go to emit in row key (time) order, at most page.Limit
// of them after page.After. It is Search without phrases.
func (e *Engine) Terms(ctx context.Context, f Filter, terms []string, op Op, field string, page Page, emit func(Hit) error) error {
	return e.Search(ctx, f, Search{Terms: terms, Op: op, Field: field}, page, emit)
}

// CountTerms counts the tweets Terms would retrieve, from the term index
// (with a language, each tweet is read to learn it). A row key recorded as
// a collision (collide.go) is read, and its tweets counted as Terms keeps
// them.
func (e *Engine) CountTerms(ctx context.Context, f Filter, terms []string, op Op, field string) (int64, error) {
	return e.CountSearch(ctx, f, Search{Terms: terms, Op: op, Field: field})
}

// termMatches calls fn, a chunk of s at a time in time order, with the
// sorted row keys of the tweets whose term rows match the items (after
// the row key after, if not nil): those holding every token of every item
// (And) or every token of any item (Or). With phrases, the positions the
// term rows record leave out the tweets whose text does not hold them;
// need holds the row keys whose tweets must still be checked against
// their text (rows without positions, from a store indexed before they
// were kept, and row keys of two tweets), nil when none must.
func (e *Engine) termMatches(ctx context.Context, s span, items []item, op Op, field string, after *schemas.RowKey, fn func(keys []schemas.RowKey, need map[schemas.RowKey]bool) error) error {
	var kept []item
	for _, it := range items {
		if len(it.tokens) == 0 {
			if op == And {
				return nil // a term that is no term: no tweet holds it
			}
			continue
		}
		kept = append(kept, it)
	}
	if len(kept) == 0 {
		return nil
	}
	var groups [][]string // the tokens a tweet must all hold, of any group
	if op == And {        // one group of every token
		var all []string
		for _, it := range kept {
			for _, t := range it.tokens {
				if !slices.Contains(all, t) {
					all = append(all, t)
				}
			}
		}
		groups = [][]string{all}
	} else {
		for _, it := range kept {
			groups = append(groups, it.tokens)
		}
	}
	var ph *phraseFilter
	if checked(kept) {
		coll, err := e.collided(ctx)
		if err != nil {
			return err
		}
		ph = &phraseFilter{items: kept, op: op, coll: coll}
	}
	hours := int64(1)
	for h, next := s.from-floorMod(s.from, hourSeconds), int64(0); h < s.to; h = next {
		next = h + hours*hourSeconds
		from, to := max(h, s.from), min(next, s.to)
		if after != nil && rowKeyTime(after[:]) >= to {
			continue
		}
		keys, need, longest, err := e.termChunkMatches(ctx, groups, field, from, to, ph)
		if err != nil {
			return err
		}
		switch {
		case longest < chunkKeys && hours < maxChunkHours:
			hours *= 2
		case longest > 4*chunkKeys && hours > 1:
			hours /= 2
		}
		if after != nil {
			i, found := slices.BinarySearchFunc(keys, *after, compareKeys)
			if found {
				i++
			}
			keys = keys[i:]
		}
		if len(keys) == 0 {
			continue
		}
		if err := fn(keys, need); err != nil {
			return err
		}
	}
	return nil
}

// termChunkMatches returns the sorted row keys within [from, to) of the
// tweets holding every token of any group, those of them whose tweets
// must be checked against their text (with phrases, ph), and the length
// of the longest list of row keys read.
func (e *Engine) termChunkMatches(ctx context.Context, groups [][]string, field string, from, to int64, ph *phraseFilter) ([]schemas.RowKey, map[schemas.RowKey]bool, int, error) {
	lists := map[string]*termList{}
	longest := 0
	groupKeys := make([][]schemas.RowKey, len(groups))
	for gi, g := range groups {
		keys := make([][]schemas.RowKey, 0, len(g))
		for _, t := range g {
			l, ok := lists[t]
			if !ok {
				var err error
				if l, err = e.termChunk(ctx, t, field, from, to, ph.positioned(t)); err != nil {
					return nil, nil, 0, err
				}
				lists[t], longest = l, max(longest, len(l.keys))
			}
			keys = append(keys, l.keys)
			if len(l.keys) == 0 {
				break // no tweet in the chunk
			}
		}
		switch {
		case len(keys[len(keys)-1]) == 0:
			groupKeys[gi] = nil
		case len(keys) == 1:
			groupKeys[gi] = keys[0]
		default:
			groupKeys[gi] = intersect(keys)
		}
	}
	var keys []schemas.RowKey
	if len(groupKeys) == 1 {
		keys = groupKeys[0]
	} else {
		keys = union(groupKeys)
	}
	if ph == nil || len(keys) == 0 {
		return keys, nil, longest, nil
	}
	keys, need := ph.filter(keys, lists)
	return keys, need, longest, nil
}

// searchMatcher returns whether a tweet holds the items as Search asks
// (tokenized as the index was; a phrase's terms at its positions in the
// text): the check of the tweets of a row key that holds more than one (a
// collision), which the term index cannot tell apart, and of every tweet
// a phrase's terms point at.
func searchMatcher(items []item, op Op, field string) func(*schemas.Tweet) bool {
	var toks []transforms.Term
	var posts []transforms.Posting
	return func(t *schemas.Tweet) bool {
		termed, posted := false, false
		holds := func(it item) bool {
			if it.phrase != nil {
				// Its terms at its positions in the text are among the
				// text's terms: one tokenization, with positions.
				if !posted {
					posts, posted = transforms.TextPostings(posts[:0], t.Text), true
				}
				return it.phrase.in(posts)
			}
			if !termed {
				toks, termed = transforms.FieldTerms(toks[:0], t, field), true
			}
			for _, w := range it.tokens {
				if !slices.ContainsFunc(toks, func(x transforms.Term) bool { return x.Term == w }) {
					return false
				}
			}
			return true
		}
		found := false
		for _, it := range items {
			switch {
			case len(it.tokens) == 0:
				if op == And {
					return false
				}
			case holds(it):
				found = true
			case op == And:
				return false
			}
		}
		return found
	}
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
