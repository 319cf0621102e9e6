package transforms

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/tweetindex/tweetindex/schemas"
)

// This file is the tokenizer of the term index. It is plain Go with no Beam
// dependency, so that a reader of the index can tokenize a query exactly as
// the index was built.

// TokenizerVersion is the version of this file's rules. Bump it, and say
// what changed in TokenizerChange, whenever a change here (or in
// TermCells) changes which term rows a tweet gets: a term added, dropped
// or written otherwise. A change that gives every tweet the same rows (a
// faster scan, a refactoring) keeps the version.
//
// Index runs record it in the sink's metadata (schemas.TokenizerParam)
// and refuse to add tweets to a sink indexed with another version unless
// told to mix them (pipelines.Config.MixTokenizers); questions about terms
// on a sink that mixes versions say which tweets they can miss.
const TokenizerVersion = 2

// TokenizerChange says what the term rows of tweets indexed with version
// have that those of the version before lack ("" if it is not known: a
// version newer than this build's). Version 1 is told against the rules of
// the builds before versions were recorded (tokenizer version 0, for the
// tweets of a sink indexed by them).
func TokenizerChange(version int) string {
	switch version {
	case 1:
		return "words with an apostrophe (don't) and numbers with a decimal separator (3.14, 1,000) whole, NFKC forms (Ｈｅｌｌｏ as hello), the bare form of one-letter and CJK hashtags (#K as k)"
	case 2:
		return "hashtags, mentions and cashtags as Twitter's entities name them (a possessive hashtag under its bare tag: #WONHO’s as #wonho and wonho), cashtags ($aapl), the hosts of linked URLs (field url: nytimes.com)"
	}
	return ""
}

// MaxTermLen caps a term's length in bytes; longer terms are cut on a rune
// boundary.
const MaxTermLen = 64

// Term is a term and how often it occurs in one field of one tweet.
type Term struct {
	Term string
	Freq uint32
}

// Tokenize appends the terms of text (lower-cased, Unicode-aware) to dst in
// first-occurrence order, merged with frequencies. Only the terms it
// appends are merged; those already in dst are left alone.
//
// The rules:
//
//   - Text is first put in Unicode normalization form NFKC (full-width
//     "Ｈｅｌｌｏ" becomes "Hello", "ﬁ" becomes "fi", "e" + combining acute
//     becomes "é"), the typographic apostrophe U+2019 becomes "'", and then
//     it is lower-cased rune by rune with unicode.ToLower, as
//     strings.ToLower does; accents and other marks are kept ("canción"
//     stays "canción").
//   - A token is a run of letters, digits, '_' and marks (a mark continues a
//     token, never starts one; emoji variation selectors are not marks
//     here), and an apostrophe between two letters ("don't", "it's") or a
//     '.' or ',' between two digits ("3.14", "1,000") continues it.
//     Everything else separates tokens: punctuation, symbols, emoji.
//   - '#' or '@' directly before a token, and not directly after one, makes
//     a hashtag or a mention: "#tag", the bare tag "tag" whole (also when it
//     is one letter, and also in a script without spaces, where the tag's
//     bigrams follow too), and the tag's own terms are emitted; likewise
//     "@name" and "name". As Twitter delimits them (twitter-text), a
//     hashtag or mention is a run of letters, digits, '_' and marks only:
//     it ends at an apostrophe (straight or typographic) and at any other
//     punctuation ("#WONHO’s" is "#wonho" and "wonho"), and a hashtag
//     holds a letter ("#16" is the word "16").
//   - '$' before one to six ASCII letters (then maybe '.' or '_' and one
//     or two letters) followed by no token character makes a cashtag:
//     "$aapl" and "aapl" ("$AAPL"; "$100" is the word "100").
//   - URLs (http://, https://, www.) are skipped up to the next white space
//     or non-ASCII character, and so are the HTML entities the Twitter APIs
//     put in text (&amp; &lt; &gt; &quot; &apos; &nbsp; &#NN; &#xNN;).
//   - In scripts written with spaces, a token of one character is dropped.
//   - Scripts written without spaces (Han, Hiragana, Katakana, Bopomofo,
//     Thai, Lao, Khmer, Myanmar) are indexed as overlapping bigrams of
//     characters (a character being a letter and its marks); a run of one
//     character is that character. Hangul is written with spaces and gives
//     ordinary tokens.
//   - No term holds a 0x00 byte, and none is longer than MaxTermLen bytes.
//
// The terms are substrings of one lower-cased copy of text: a call
// allocates that copy (nothing when text has no upper-case letter) and
// whatever dst needs to grow, and nothing else for the usual tweet. The
// terms keep that copy (or text) alive while they are in use.
func Tokenize(dst []Term, text string) []Term {
	t := tokenizer{dst: dst, base: len(dst), cls: classTable()}
	t.text(Normalize(text))
	return t.dst
}

// TokenizeEntities is Tokenize for a text whose hashtags, mentions and
// cashtags Twitter's entities name, e (schemas.Entities): the terms of
// each, as Tokenize gives them for "#tag", "@name" or "$sym" (the tag,
// its bare form and its own terms), are the text's too, and a term both
// give keeps the larger frequency. So every tag the entities name is
// found under its terms ("#WONHO’s" with the entity WONHO is #wonho and
// wonho, which Tokenize finds in the text too), and the text's own
// hashtags, mentions and cashtags stay, when entities leave some out (a
// truncated text, an archive's retweet).
func TokenizeEntities(dst []Term, text string, e *schemas.Entities) []Term {
	return textTerms(dst, nil, text, e)
}

// textTerms appends the terms of text to dst, with those of the entities
// e if not nil (TokenizeEntities), and records their positions in at if
// it is not nil (TweetTermsAt).
func textTerms(dst []Term, at *[]TermAt, text string, e *schemas.Entities) []Term {
	t := tokenizer{dst: dst, base: len(dst), cls: classTable(), at: at}
	t.text(Normalize(text))
	if e != nil {
		for _, x := range EntityTerms(nil, e) {
			t.raise(x.Term, x.Freq)
		}
	}
	return t.dst
}

// EntityTerms appends to dst the terms of the hashtags, mentions and
// cashtags that e names, as Tokenize gives them for "#tag", "@name" and
// "$sym", merged with frequencies: what TokenizeEntities adds to a
// text's terms.
func EntityTerms(dst []Term, e *schemas.Entities) []Term {
	ents := tokenizer{dst: dst, base: len(dst), cls: classTable()}
	for _, list := range [...]struct {
		p    string
		tags []string
	}{{"#", e.Hashtags}, {"@", e.Mentions}, {"$", e.Cashtags}} {
		for _, tag := range list.tags {
			ents.text(Normalize(list.p + tag))
		}
	}
	return ents.dst
}

// TweetTerms appends the terms of the text of tw (field FieldText) to dst:
// TokenizeEntities when it carries entities, Tokenize when not.
func TweetTerms(dst []Term, tw *schemas.Tweet) []Term {
	return textTerms(dst, nil, tw.Text, tw.Entities)
}

// TermAt is a position of a term TweetTermsAt found: Term is the term's
// index among the terms it appended, Pos the position (TextPostings).
type TermAt struct {
	Term, Pos int
}

// TweetTermsAt is TweetTerms, which it appends to dst, with the positions
// at which the text holds each term, appended to at in the text's order:
// the postings TextPostings gives, with each term named by its index
// among the terms appended to dst. A term that only the entities name is
// at no position.
func TweetTermsAt(dst []Term, at []TermAt, tw *schemas.Tweet) ([]Term, []TermAt) {
	dst = textTerms(dst, &at, tw.Text, tw.Entities)
	return dst, at
}

// FieldTerms appends the terms of tw in field (FieldText, FieldUser,
// FieldURL) to dst, as the term index holds them.
func FieldTerms(dst []Term, tw *schemas.Tweet, field string) []Term {
	switch field {
	case FieldUser:
		return UserTerms(dst, tw.UserName, tw.ScreenName)
	case FieldURL:
		if tw.Entities == nil {
			return dst
		}
		return URLTerms(dst, tw.Entities.URLs)
	}
	return TweetTerms(dst, tw)
}

// URLTerms appends the terms of the links urls (field FieldURL) to dst,
// merged with frequencies: the host of each (URLHost), when it has one.
func URLTerms(dst []Term, urls []string) []Term {
	t := tokenizer{dst: dst, base: len(dst), cls: classTable()}
	for _, u := range urls {
		if h := URLHost(u); h != "" {
			t.add(h)
		}
	}
	return t.dst
}

// URLHost returns the host of the URL u, lower-cased, without a port, a
// trailing dot or a leading "www." ("https://www.NYTimes.com:443/x" is
// nytimes.com), or "" if u names none. A term question of field FieldURL
// asks for it, so that "nytimes.com" or a whole link finds the tweets
// linking to the site.
func URLHost(u string) string {
	u = strings.TrimSpace(u)
	if i := strings.Index(u, "://"); i >= 0 && i < 16 {
		u = u[i+3:]
	} else {
		u = strings.TrimPrefix(u, "//")
	}
	if i := strings.IndexAny(u, "/?#\\"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:] // user info
	}
	if strings.HasPrefix(u, "[") { // an IPv6 address
		if i := strings.IndexByte(u, ']'); i > 0 {
			return strings.ToLower(u[:i+1])
		}
		return ""
	}
	if i := strings.LastIndexByte(u, ':'); i >= 0 {
		u = u[:i]
	}
	h := strings.TrimSuffix(Normalize(u), ".")
	h = strings.TrimPrefix(h, "www.")
	if h == "" || strings.ContainsAny(h, " \t\n\x00") {
		return ""
	}
	return capTerm(h)
}

// QueryTerms returns the terms a search for q must find, all of them: q
// tokenized as Tokenize (field FieldText) or UserTerms (FieldUser) tokenize
// what they index, so that "can't", "東京タワー" (its bigrams) or "Ｈｅｌｌｏ"
// find what the index holds. A hashtag or mention stands for itself
// alone: "#tag" gives "#tag", not also "tag" and the tag's bigrams, which
// every tweet holding "#tag" holds too. Nil when q holds no term (only
// punctuation, a URL, a single letter).
func QueryTerms(q, field string) []string {
	t := tokenizer{cls: classTable(), query: true}
	switch field {
	case FieldURL:
		if h := URLHost(q); h != "" {
			return []string{h}
		}
		return nil
	case FieldUser:
		t.user("", q)
	default:
		t.text(Normalize(q))
	}
	return Terms(t.dst)
}

// Normalize returns text as the tokenizer reads it: NFKC, U+2019 as an
// apostrophe, lower case. It returns text itself, allocating nothing,
// when that changes nothing (most tweets in most languages).
//
// The checks skip the text's ASCII prefix: ASCII is in NFKC, holds no
// U+2019, and NFKC never reaches back past an ASCII byte, whose only
// composition is with what follows it (e and U+0301 are é). So NFKC of
// text is the prefix but its last byte, then NFKC of the rest. In the bench
// tweets a quarter of the texts, half the display names and every screen
// name are all ASCII, and most others begin with some.
func Normalize(text string) string {
	i := asciiPrefix(text)
	if i == len(text) {
		return lower(text)
	}
	from := max(i-1, 0)
	// String returns its argument itself when it is in NFKC, after one
	// scan (checking first, then normalizing, scanned it twice).
	if rest := norm.NFKC.String(text[from:]); rest != text[from:] {
		text = text[:from] + rest
	}
	if strings.Contains(text[from:], "\u2019") {
		text = strings.ReplaceAll(text, "\u2019", "'")
	}
	return lower(text)
}

// asciiPrefix returns the length of the ASCII bytes s begins with.
func asciiPrefix(s string) int {
	i := 0
	for i+8 <= len(s) && load64(s[i:])&0x8080808080808080 == 0 {
		i += 8
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// UserTerms appends the terms of a user's display name and screen name
// (field "user") to dst, merged with frequencies: the display name is
// tokenized as by Tokenize, the screen name is one term (lower-cased,
// whatever its length) when it is a single token, as Twitter's handles
// are, and is tokenized otherwise.
func UserTerms(dst []Term, name, screenName string) []Term {
	t := tokenizer{dst: dst, base: len(dst), cls: classTable()}
	t.user(name, screenName)
	return t.dst
}

// user tokenizes a display name and a screen name.
func (t *tokenizer) user(name, screenName string) {
	t.text(Normalize(name))
	sn := Normalize(strings.TrimSpace(screenName))
	if t.isSingleToken(sn) {
		t.add(sn)
	} else {
		t.text(sn)
	}
}

// tokenizer appends terms to dst, merging them with the terms of dst[base:]
// through an open-addressing hash table of their indexes (a map once there
// are many).
type tokenizer struct {
	dst   []Term
	base  int
	cls   *[classTableSize]uint8
	slots [slotCount]uint16 // 1 + index in dst[base:], by hash; 0 is empty
	index map[string]int    // term -> index in dst, past slotCount/2 terms
	query bool              // QueryTerms: a hashtag or mention gives only itself
	skip  string            // word: the bare tag already added, not to be added again
	seq   *[]Posting        // if not nil, every term added, at its position, unmerged (phrase.go)
	at    *[]TermAt         // if not nil, the positions of the merged terms (TweetTermsAt)
	pos   int               // the position of the next word
	hold  bool              // word: the terms of a tag share its one position
}

const slotCount = 256 // a power of two

// termHash is a cheap hash of a term for the slot table: its length and
// its first and last eight bytes, mixed.
func termHash(s string) uint64 {
	var h uint64
	if len(s) >= 8 {
		h = load64(s) ^ bits.RotateLeft64(load64(s[len(s)-8:]), 29)
	} else {
		for i := 0; i < len(s); i++ {
			h = h<<8 | uint64(s[i])
		}
	}
	h ^= uint64(len(s))
	h *= 0x9E3779B97F4A7C15
	return h >> 32
}

// load64 returns the first eight bytes of s, little-endian.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// add records one occurrence of term, at the position of the current word.
func (t *tokenizer) add(term string) {
	term = capTerm(term)
	if t.seq != nil {
		*t.seq = append(*t.seq, Posting{Term: term, Pos: t.pos})
		return // positions only: no merging
	}
	k := t.merge(term)
	if t.at != nil {
		*t.at = append(*t.at, TermAt{Term: k - t.base, Pos: t.pos})
	}
}

// merge records one occurrence of term (capped) in dst[base:] and
// returns its index in dst.
func (t *tokenizer) merge(term string) int {
	if t.index != nil {
		if k, ok := t.index[term]; ok {
			t.dst[k].Freq++
			return k
		}
		t.index[term] = len(t.dst)
		t.dst = append(t.dst, Term{Term: term, Freq: 1})
		return len(t.dst) - 1
	}
	for p := termHash(term) & (slotCount - 1); ; p = (p + 1) & (slotCount - 1) {
		e := t.slots[p]
		if e == 0 {
			t.slots[p] = uint16(len(t.dst) - t.base + 1)
			t.dst = append(t.dst, Term{Term: term, Freq: 1})
			if len(t.dst)-t.base > slotCount/2 {
				t.index = make(map[string]int, slotCount)
				for k := t.base; k < len(t.dst); k++ {
					t.index[t.dst[k].Term] = k
				}
			}
			return len(t.dst) - 1
		}
		if k := t.base + int(e) - 1; t.dst[k].Term == term {
			t.dst[k].Freq++
			return k
		}
	}
}

// raise records term (capped) with at least freq occurrences: a term
// already in dst[base:] keeps the larger of its frequency and freq.
func (t *tokenizer) raise(term string, freq uint32) {
	term = capTerm(term)
	k, ok := -1, false
	if t.index != nil {
		k, ok = t.index[term]
	} else {
		for p := termHash(term) & (slotCount - 1); t.slots[p] != 0; p = (p + 1) & (slotCount - 1) {
			if i := t.base + int(t.slots[p]) - 1; t.dst[i].Term == term {
				k, ok = i, true
				break
			}
		}
	}
	if !ok {
		k = t.merge(term) // appended, at no position
		t.dst[k].Freq = freq
		return
	}
	t.dst[k].Freq = max(t.dst[k].Freq, freq)
}

// Rune classes.
const (
	cWord    = 1 << iota // a letter, digit or '_': starts and continues a token
	cMark                // a mark (not a variation selector): continues a token
	cNoSpace             // of a script written without spaces between words
)

// class returns the class bits of r.
func (t *tokenizer) class(r rune) uint8 {
	if r < classTableSize {
		return t.cls[r]
	}
	return classOf(r)
}

// classTableSize is the number of runes (the Basic Multilingual Plane)
// whose class is looked up in a table rather than computed.
const classTableSize = 0x10000

// classTable returns the classes of the BMP, computed on first use.
var classTable = sync.OnceValue(func() *[classTableSize]uint8 {
	t := new([classTableSize]uint8)
	for r := range t {
		t[r] = classOf(rune(r))
	}
	return t
})

// classOf computes the class bits of r.
func classOf(r rune) uint8 {
	var c uint8
	switch {
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
		c = cWord
	case unicode.IsMark(r) && !isVariationSelector(r):
		c = cMark
	default:
		return 0
	}
	if isNoSpace(r) {
		c |= cNoSpace
	}
	return c
}

// isVariationSelector reports whether r selects a glyph variant (the text
// or emoji form of a symbol) rather than marking a letter.
func isVariationSelector(r rune) bool {
	return (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF) || (r >= 0x180B && r <= 0x180D) || r == 0x180F
}

// decode returns the rune at s[i] and its length, and its class.
func (t *tokenizer) decode(s string, i int) (rune, int, uint8) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, t.cls[c]
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return r, n, t.class(r)
}

// text tokenizes the lower-cased string s.
func (t *tokenizer) text(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		size, cl := 1, t.cls[c]
		if c >= utf8.RuneSelf {
			_, size, cl = t.decode(s, i)
		}
		if cl&cWord == 0 {
			if c == '&' {
				if n := entityLen(s[i:]); n > 0 {
					i += n
					continue
				}
			}
			i += size
			continue
		}
		if (c == 'h' || c == 'w') && isURL(s[i:]) {
			i = skipURL(s, i)
			continue
		}
		if p, _ := t.prefixBefore(s, i); p != 0 {
			if j, ascii, ok := t.tagEnd(s, i, p); ok {
				t.word(s, i, j, ascii, p)
				i = j
				continue
			}
		}
		j, ascii := i+size, c < utf8.RuneSelf
		for j < len(s) {
			if b := s[j]; b < utf8.RuneSelf {
				if t.cls[b]&cWord == 0 {
					if n := t.joiner(s, j); n > 0 {
						j += n
						continue
					}
					break
				}
				j++
				continue
			}
			_, n, cl := t.decode(s, j)
			if cl&(cWord|cMark) == 0 {
				break
			}
			ascii = false
			j += n
		}
		t.word(s, i, j, ascii, 0)
		i = j
	}
}

// tagEnd returns the end of the hashtag, mention or cashtag whose prefix
// p ('#', '@' or '$') comes before s[i], a token character, as Twitter's
// own rules (twitter-text) delimit it, whether it is all ASCII, and
// whether there is one: a hashtag or a mention is a run of letters,
// digits, '_' and marks, which ends at an apostrophe, straight or
// typographic, and at any other punctuation (#WONHO’s is #wonho), and a
// hashtag holds a letter (#16 is none); a cashtag is one to six ASCII
// letters, then maybe '.' or '_' and one or two more ($aapl, $brk.a),
// followed by no token character.
func (t *tokenizer) tagEnd(s string, i int, p rune) (j int, ascii, ok bool) {
	if p == '$' {
		j = i
		for j < len(s) && j-i < 7 && 'a' <= s[j] && s[j] <= 'z' {
			j++
		}
		if n := j - i; n == 0 || n > 6 {
			return 0, false, false
		}
		if j+1 < len(s) && (s[j] == '.' || s[j] == '_') && 'a' <= s[j+1] && s[j+1] <= 'z' {
			k := j + 1
			for k < len(s) && k-j <= 3 && 'a' <= s[k] && s[k] <= 'z' {
				k++
			}
			if k-j <= 3 {
				j = k
			}
		}
		if j < len(s) {
			if _, _, cl := t.decode(s, j); cl&(cWord|cMark) != 0 {
				return 0, false, false
			}
		}
		return j, true, true
	}
	j, ascii = i, true
	letter := false
	for j < len(s) {
		r, n, cl := t.decode(s, j)
		if cl&(cWord|cMark) == 0 {
			break
		}
		if r >= utf8.RuneSelf {
			ascii = false
		}
		letter = letter || cl&cMark != 0 || r != '_' && !('0' <= r && r <= '9') && !unicode.IsDigit(r)
		j += n
	}
	return j, ascii, p != '#' || letter
}

// joiner returns 1 if the ASCII byte s[j], which follows a token
// character, continues the token: an apostrophe between two letters, or a
// '.' or ',' between two digits.
func (t *tokenizer) joiner(s string, j int) int {
	c := s[j]
	if (c != '\'' && c != '.' && c != ',') || j+1 >= len(s) {
		return 0
	}
	before, _ := utf8.DecodeLastRuneInString(s[:j])
	after, _ := utf8.DecodeRuneInString(s[j+1:])
	if c == '\'' {
		if unicode.IsLetter(before) && unicode.IsLetter(after) && t.class(after)&cNoSpace == 0 {
			return 1
		}
		return 0
	}
	if '0' <= before && before <= '9' && '0' <= after && after <= '9' {
		return 1
	}
	return 0
}

// word emits the terms of the token s[i:j]: the hashtag, mention or
// cashtag it makes with p ('#', '@', '$'; 0: none) and its bare form, and
// its own terms.
func (t *tokenizer) word(s string, i, j int, ascii bool, p rune) {
	if p != 0 {
		t.add(string(p) + s[i:j])
		if t.query {
			t.pos++
			return // the tweets with "#tag" are the tweets with it and its parts
		}
		t.add(s[i:j])
		t.skip, t.hold = s[i:j], true
		defer func() { t.skip, t.hold = "", false; t.pos++ }()
	}
	if ascii {
		if j-i > 1 && s[i:j] != t.skip {
			t.add(s[i:j])
		}
		t.next()
		return
	}
	for k := i; k < j; {
		if _, _, cl := t.decode(s, k); cl&(cNoSpace|cMark) == cNoSpace {
			k = t.bigrams(s, k, j)
			continue
		}
		// A run of a spaced script (with its marks), up to the next
		// character of a script without spaces.
		start, chars := k, 0
		for k < j {
			_, size, cl := t.decode(s, k)
			if cl&(cNoSpace|cMark) == cNoSpace {
				break
			}
			if cl&cMark == 0 {
				chars++
			}
			k += size
		}
		if chars > 1 && s[start:k] != t.skip {
			t.add(s[start:k])
		}
		if chars > 0 {
			t.next() // a dropped one-letter word holds its position
		}
	}
}

// bigrams emits the overlapping character bigrams of the run of a script
// without spaces starting at s[i] and ending at or before j, and returns
// where the run ends. A character is a rune and the marks after it.
func (t *tokenizer) bigrams(s string, i, j int) int {
	n, a, b := 0, 0, 0 // characters seen, starts of the last two
	k := i
	for k < j {
		_, size, cl := t.decode(s, k)
		if cl&cMark != 0 {
			k += size
			continue
		}
		if cl&cNoSpace == 0 {
			break
		}
		switch n {
		case 0:
			a = k
		case 1:
			b = k
		default:
			t.add(s[a:k])
			t.next()
			a, b = b, k
		}
		n++
		k += size
	}
	if n > 0 && s[a:k] != t.skip {
		t.add(s[a:k])
	}
	if n > 0 {
		t.next()
	}
	return k
}

// prefixBefore returns '#', '@' or '$' and its length in bytes if s[:i]
// ends in one of them (or their full-width forms, which NFKC has already
// folded) that does not itself follow a token character.
func (t *tokenizer) prefixBefore(s string, i int) (rune, int) {
	if i == 0 || (s[i-1] < utf8.RuneSelf && s[i-1] != '#' && s[i-1] != '@' && s[i-1] != '$') {
		return 0, 0
	}
	r, n := utf8.DecodeLastRuneInString(s[:i])
	switch r {
	case '#', '@', '$':
	case '＃':
		r = '#'
	case '＠':
		r = '@'
	default:
		return 0, 0
	}
	if i > n {
		if before, _ := utf8.DecodeLastRuneInString(s[:i-n]); t.class(before)&(cWord|cMark) != 0 {
			return 0, 0
		}
	}
	return r, n
}

// isNoSpace reports whether r belongs to a script written without spaces
// between words, which is indexed by character bigrams.
func isNoSpace(r rune) bool {
	switch {
	case r < 0x0E00:
		return false
	case r <= 0x0EFF: // Thai, Lao
		return true
	case r < 0x1000:
		return false
	case r <= 0x109F: // Myanmar
		return true
	case r >= 0x1780 && r <= 0x17FF, r >= 0x19E0 && r <= 0x19FF: // Khmer
		return true
	case r < 0x2E80:
		return false
	case r <= 0x312F: // CJK radicals, CJK symbols (々, 〆), Hiragana, Katakana (ー), Bopomofo
		return true
	case r >= 0x31A0 && r <= 0x31FF: // Bopomofo extended, CJK strokes, Katakana extensions
		return true
	case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF: // Han
		return true
	case r >= 0xA9E0 && r <= 0xA9FF, r >= 0xAA60 && r <= 0xAA7F: // Myanmar extensions
		return true
	case r >= 0xF900 && r <= 0xFAFF: // Han compatibility
		return true
	case r >= 0xFF66 && r <= 0xFF9F: // half-width Katakana
		return true
	case r >= 0x1B000 && r <= 0x1B16F: // Kana supplement and extensions
		return true
	case r >= 0x20000 && r <= 0x3FFFF: // Han extensions
		return true
	}
	return false
}

// isSingleToken reports whether s is one token of a spaced script.
func (t *tokenizer) isSingleToken(s string) bool {
	for i := 0; i < len(s); {
		_, n, cl := t.decode(s, i)
		if cl&cNoSpace != 0 || (i == 0 && cl&cWord == 0) || cl&(cWord|cMark) == 0 {
			return false
		}
		i += n
	}
	return s != ""
}

// isURL reports whether s starts with a URL scheme or "www.".
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "www.")
}

// skipURL returns the end of the URL starting at s[i]: the next white space
// or non-ASCII character.
func skipURL(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			return i
		}
		i++
	}
	return i
}

// entityLen returns the length of the HTML entity at the start of s ("&amp;",
// "&#39;", ...), or 0 if there is none.
func entityLen(s string) int {
	for _, e := range [...]string{"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&nbsp;"} {
		if strings.HasPrefix(s, e) {
			return len(e)
		}
	}
	if !strings.HasPrefix(s, "&#") {
		return 0
	}
	i, hex := 2, false
	if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
		i, hex = 3, true
	}
	start := i
	for i < len(s) && i-start < 8 {
		c := s[i]
		if (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
			i++
			continue
		}
		break
	}
	if i > start && i < len(s) && s[i] == ';' {
		return i + 1
	}
	return 0
}

// capTerm cuts term to at most MaxTermLen bytes on a rune boundary.
func capTerm(term string) string {
	if len(term) <= MaxTermLen {
		return term
	}
	n := MaxTermLen
	for n > 0 && !utf8.RuneStart(term[n]) {
		n--
	}
	return term[:n]
}

// lower returns s lower-cased rune by rune with unicode.ToLower, like
// strings.ToLower, except that invalid UTF-8 bytes are kept as they are
// (they separate tokens either way). It returns s itself, allocating
// nothing, when no rune changes.
func lower(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				return lowerFrom(s, i)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if hasCase(r) && unicode.ToLower(r) != r {
			return lowerFrom(s, i)
		}
		i += n
	}
	return s
}

// lowerFrom lower-cases s, whose first i bytes are already lower-case.
func lowerFrom(s string, i int) string {
	b := make([]byte, len(s)+utf8.UTFMax)
	w := copy(b, s[:i])
	for i < len(s) {
		// Eight ASCII bytes at a time.
		for i+8 <= len(s) && w+8 <= len(b) {
			x := load64(s[i:])
			if x&0x8080808080808080 != 0 {
				break
			}
			const ones = 0x0101010101010101
			upper := (x + (0x80-'A')*ones) &^ (x + (0x80-'Z'-1)*ones) & (0x80 * ones)
			binary.LittleEndian.PutUint64(b[w:], x|upper>>2)
			i += 8
			w += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b[w] = c + upperDelta[c]
			w++
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !hasCase(r) {
			w += copy(b[w:], s[i:i+n])
		} else {
			if len(b)-w < utf8.UTFMax+len(s)-i {
				// A lower-case rune may be longer than its upper case (Ⱥ).
				b = append(b[:w], make([]byte, len(s)-i+utf8.UTFMax)...)
				b = b[:cap(b)]
			}
			w += utf8.EncodeRune(b[w:], unicode.ToLower(r))
		}
		i += n
	}
	// b is never written again: the string may share its bytes.
	return unsafe.String(unsafe.SliceData(b), w)
}

// upperDelta maps an ASCII byte to what lower-casing adds to it.
var upperDelta = func() (t [utf8.RuneSelf]byte) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 'a' - 'A'
	}
	return t
}()

// hasCase reports whether r lies in a block that holds upper-case letters
// (unicode.ToLower is the identity outside them; the tests check every
// rune).
func hasCase(r rune) bool {
	return r < 0x0557 || (r >= 0x10A0 && r < 0x2D00) || (r >= 0xA640 && r < 0xA800) ||
		(r >= 0xFF21 && r <= 0xFF3A) || r >= 0x10400
}

// Terms returns the terms of ts, in order.
func Terms(ts []Term) []string {
	out := make([]string, len(ts))
	for i, x := range ts {
		out[i] = x.Term
	}
	return out
}
