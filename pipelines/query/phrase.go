package query

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Phrases. The term index's text rows record where the tweet holds the
// term (schemas.TermRow.Positions, the indexing tokenizer's positions:
// transforms.TextPostings): a phrase ("climate change") is the tweets
// holding every term of the phrase, found as an And of them is, whose
// rows put the phrase's terms at the phrase's positions, in order
// (phraseFilter), without reading the tweets it leaves out. A row key
// holding two tweets (a collision), whose rows may be either's, and one
// whose rows record no positions (a store indexed before they were
// kept) is kept, and its tweets are read and their text tokenized again
// with positions by the indexing tokenizer to tell (searchMatcher).
// docs/queries.md says what a position is; docs/performance.md what
// positions cost and save.

// Search is a question about terms and phrases (questions 7 and 8): the
// tweets holding every term and phrase (Op And) or any (Or) in Field. A
// term is as Terms takes it. A phrase is tokenized as a term is
// (transforms.PhrasePostings), and a tweet holds it when the text's terms
// at the phrase's positions are the phrase's (transforms.TextPostings); a
// phrase of one word is that word as a term. Phrases are of the text
// field only.
type Search struct {
	Terms   []string
	Phrases []string
	Op      Op
	Field   string
}

// item is a term or a phrase of a search: the index terms a tweet must
// all hold for the term index to name it, and for a phrase of two words or
// more, the phrase its text must hold.
type item struct {
	tokens []string
	phrase *phrase
}

// phrase is a phrase of two words or more, tokenized: its terms and their
// offsets from the first term's position.
type phrase struct {
	terms []string
	offs  []int
}

// PhraseWords returns how many words the phrase q holds as the indexing
// tokenizer reads it (0: none, and no tweet holds it; 1: it is that word
// as a term).
func PhraseWords(q string) int {
	n, last := 0, -1
	for _, x := range transforms.PhrasePostings(q) {
		if x.Pos != last {
			n, last = n+1, x.Pos
		}
	}
	return n
}

// items tokenizes the terms and phrases of q.
func (q Search) items() ([]item, error) {
	if len(q.Terms)+len(q.Phrases) == 0 {
		return nil, errors.New("no terms")
	}
	if err := CheckField(q.Field); err != nil {
		return nil, err
	}
	if len(q.Phrases) > 0 && q.Field != transforms.FieldText {
		return nil, fmt.Errorf("field %q: a phrase is of the text field", q.Field)
	}
	items := make([]item, 0, len(q.Terms)+len(q.Phrases))
	for _, t := range q.Terms {
		items = append(items, item{tokens: transforms.QueryTerms(t, q.Field)})
	}
	for _, p := range q.Phrases {
		items = append(items, phraseItem(p))
	}
	return items, nil
}

// phraseItem tokenizes the phrase p: its distinct terms, and the phrase
// to check unless it is of one word.
func phraseItem(p string) item {
	ps := transforms.PhrasePostings(p)
	var it item
	for _, x := range ps {
		if !slices.Contains(it.tokens, x.Term) {
			it.tokens = append(it.tokens, x.Term)
		}
	}
	if len(ps) < 2 {
		return it
	}
	ph := &phrase{}
	for _, x := range ps {
		ph.terms = append(ph.terms, x.Term)
		ph.offs = append(ph.offs, x.Pos-ps[0].Pos)
	}
	it.phrase = ph
	return it
}

// in reports whether posts (a text's, transforms.TextPostings) hold the
// phrase: its first term at some position p, and each other term at p
// plus its offset.
func (ph *phrase) in(posts []transforms.Posting) bool {
	for i, a := range posts {
		if a.Term != ph.terms[0] {
			continue
		}
		all := true
		for k := 1; k < len(ph.terms) && all; k++ {
			all = postedAt(posts[i:], ph.terms[k], a.Pos+ph.offs[k])
		}
		if all {
			return true
		}
	}
	return false
}

// postedAt reports whether posts (ascending positions) hold term at pos.
func postedAt(posts []transforms.Posting, term string, pos int) bool {
	for _, x := range posts {
		if x.Pos > pos {
			return false
		}
		if x.Pos == pos && x.Term == term {
			return true
		}
	}
	return false
}

// phraseFilter judges the row keys a search with phrases finds in the
// term index by the positions the text rows of the phrases' terms record
// (schemas.TermRow.Positions): a row key whose rows record them is kept
// or left out on them, without reading its tweet; one whose rows record
// none (a store indexed before positions were kept) or that holds two
// tweets (a collision: its rows may be either's) is kept, for its tweets
// to be checked against their text.
type phraseFilter struct {
	items []item
	op    Op
	coll  collisionSet
	ps    [][]uint32 // scratch: a phrase's terms' positions
}

// positioned reports whether the rows of the token t are read with their
// positions: it is a term of a phrase. False for a nil filter (no phrase).
func (f *phraseFilter) positioned(t string) bool {
	if f == nil {
		return false
	}
	for _, it := range f.items {
		if it.phrase != nil && slices.Contains(it.phrase.terms, t) {
			return true
		}
	}
	return false
}

// A verdict is what the term rows say of an item and a row key.
type verdict int8

const (
	no      verdict = iota // its tweet does not hold the item
	yes                    // it does
	unknown                // its tweet must be read to tell
)

// filter returns the keys (sorted) that may hold the search, in order, and
// those of them whose tweets must be checked against their text (nil if
// none). lists holds the term rows of the chunk keys come from, by token;
// filter moves their cursors (termList.seek).
func (f *phraseFilter) filter(keys []schemas.RowKey, lists map[string]*termList) ([]schemas.RowKey, map[schemas.RowKey]bool) {
	out := make([]schemas.RowKey, 0, len(keys))
	var need map[schemas.RowKey]bool
	for _, k := range keys {
		v := yes
		if f.op == Or {
			v = no
		}
		for _, it := range f.items {
			x := f.holds(it, k, lists)
			if f.op == And && x == no || f.op == Or && x == yes {
				v = x
				break
			}
			if x == unknown {
				v = unknown
			}
		}
		switch v {
		case unknown:
			if need == nil {
				need = map[schemas.RowKey]bool{}
			}
			need[k] = true
			fallthrough
		case yes:
			out = append(out, k)
		}
	}
	return out, need
}

// holds returns whether the tweet of row key k holds the item it: every
// token of it in lists at k, and for a phrase, its terms at its positions.
func (f *phraseFilter) holds(it item, k schemas.RowKey, lists map[string]*termList) verdict {
	for _, t := range it.tokens {
		l := lists[t]
		if l == nil || !l.seek(k) {
			return no // not read (its group had no tweet in the chunk), or not there
		}
	}
	if it.phrase == nil {
		return yes
	}
	if f.coll[k] {
		return unknown
	}
	for len(f.ps) < len(it.phrase.terms) {
		f.ps = append(f.ps, nil)
	}
	for j, t := range it.phrase.terms {
		l := lists[t]
		l.seek(k)
		i := l.cur
		if l.pos[2*i] < 0 {
			return unknown // a row written before positions were kept
		}
		ps, err := schemas.DecodeTermPositions(f.ps[j][:0], l.buf[l.pos[2*i]:l.pos[2*i+1]])
		if err != nil {
			return unknown // unreadable positions: the text decides
		}
		f.ps[j] = ps
	}
	if it.phrase.at(f.ps) {
		return yes
	}
	return no
}

// at reports whether the positions of the phrase's terms (ps[j]: those of
// terms[j], ascending) hold it: its first term at some position p, and
// each other term at p plus its offset. It is in on a text's postings.
func (ph *phrase) at(ps [][]uint32) bool {
	for _, p := range ps[0] {
		all := true
		for j := 1; j < len(ph.terms) && all; j++ {
			_, all = slices.BinarySearch(ps[j], p+uint32(ph.offs[j]))
		}
		if all {
			return true
		}
	}
	return false
}

// checked reports whether a search's tweets are judged on their terms'
// positions (it has a phrase of two words or more).
func checked(items []item) bool {
	return slices.ContainsFunc(items, func(it item) bool { return it.phrase != nil })
}

// Search answers a question about terms and phrases (questions 7 and 8,
// Terms with phrases): the tweets holding q's terms and phrases, in row key
// (time) order, at most page.Limit of them after page.After. The term
// index gives the tweets holding every term of each term or phrase, some
// hours at a time (Terms); with a phrase, those whose terms' positions
// hold it, and those it cannot tell, whose tweets are checked against
// their text before they are emitted (phraseFilter).
func (e *Engine) Search(ctx context.Context, f Filter, q Search, page Page, emit func(Hit) error) error {
	items, err := q.items()
	if err != nil {
		return err
	}
	s, err := e.resolve(ctx, f)
	if err != nil {
		return err
	}
	out := page.emitter(e, s.lang, emit)
	out.match = searchMatcher(items, q.Op, q.Field)
	return out.end(e.termMatches(ctx, s, items, q.Op, q.Field, page.After, func(keys []schemas.RowKey, need map[schemas.RowKey]bool) error {
		out.need = need
		return out.keys(ctx, keys)
	}))
}

// CountSearch counts the tweets Search would retrieve, from the term
// index (with a language, or a phrase the positions cannot judge, each
// tweet is read to check it). A
// row key recorded as a collision (collide.go) is read, and its tweets
// counted as Search keeps them.
func (e *Engine) CountSearch(ctx context.Context, f Filter, q Search) (int64, error) {
	items, err := q.items()
	if err != nil {
		return 0, err
	}
	s, err := e.resolve(ctx, f)
	if err != nil {
		return 0, err
	}
	coll, err := e.collided(ctx)
	if err != nil {
		return 0, err
	}
	match := searchMatcher(items, q.Op, q.Field)
	var n int64
	var read []schemas.RowKey
	err = e.termMatches(ctx, s, items, q.Op, q.Field, nil, func(keys []schemas.RowKey, need map[schemas.RowKey]bool) error {
		if s.lang != "" {
			c, err := e.countAnswering(ctx, keys, match, need, s.lang)
			n += c
			return err
		}
		read = read[:0]
		for _, k := range keys {
			if coll[k] || need[k] {
				read = append(read, k)
			} else {
				n++
			}
		}
		c, err := e.countAnswering(ctx, read, match, need, "")
		n += c
		return err
	})
	return n, err
}

// Search returns the row keys, in order, of the tweets holding the terms
// and phrases of q, every one (And) or any (Or), found by reading every
// tweet: a term holds as Scanner.Terms says; a phrase of one word is that
// word as a term; a longer phrase holds when the text, tokenized with
// positions, has each of its terms at its position relative to the first
// (checked here position by position, apart from the engine's check).
func (sc Scanner) Search(ctx context.Context, f Filter, q Search) ([]schemas.RowKey, error) {
	if _, err := q.items(); err != nil {
		return nil, err
	}
	groups := queryGroups(q.Terms, q.Field)
	phrases := make([][]transforms.Posting, len(q.Phrases))
	for i, p := range q.Phrases {
		phrases[i] = transforms.PhrasePostings(p)
	}
	var scratch []transforms.Term
	var posts []transforms.Posting
	var keys []schemas.RowKey
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		n := 0
		for _, g := range groups {
			if len(g) > 0 && hasTerms(t, g, q.Field, &scratch) {
				n++
			}
		}
		posts = posts[:0]
		for _, ph := range phrases {
			var ok bool
			switch {
			case len(ph) == 0:
			case len(ph) == 1:
				ok = hasTerms(t, []string{ph[0].Term}, q.Field, &scratch)
			default:
				if len(posts) == 0 {
					posts = transforms.TextPostings(posts, t.Text)
				}
				ok = holdsPhrase(posts, ph)
			}
			if ok {
				n++
			}
		}
		if (q.Op == And && n == len(groups)+len(phrases)) || (q.Op == Or && n > 0) {
			keys = append(keys, t.RowKey)
		}
		return nil
	})
	sortKeys(keys)
	return keys, err
}

// holdsPhrase reports whether a text's postings hold the phrase ph's
// terms at its positions, shifted: the scan's check, by a map of the
// text's positions to their terms.
func holdsPhrase(posts, ph []transforms.Posting) bool {
	at := map[int][]string{}
	for _, x := range posts {
		at[x.Pos] = append(at[x.Pos], x.Term)
	}
	for start := range at {
		shift := start - ph[0].Pos
		ok := true
		for _, w := range ph {
			if !slices.Contains(at[w.Pos+shift], w.Term) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
