package transforms

// Positions of terms, for phrase questions. The term index holds no
// positions: a phrase question finds the tweets holding every term of the
// phrase in the index, then tokenizes each one's text again, with
// positions, and keeps those holding the phrase's terms at the phrase's
// positions. The positions come from the very tokenizer the index uses
// (the same scan adds the same terms), so a phrase asks for exactly what
// the index holds, in the order the text holds it.
//
// A position is the index of a word in the text, counted as the
// tokenizer reads it:
//
//   - Every token is a word: a run of letters, digits, '_' and marks, with
//     its apostrophes between letters ("don't") and '.' or ',' between
//     digits ("3.14"). A token of one character, which the index drops,
//     still holds its position: "climate a change" is not "climate
//     change", as PostgreSQL keeps the place of a stop word.
//   - What separates tokens holds no position: white space, punctuation,
//     symbols, emoji, URLs and HTML entities ("climate, change",
//     "climate – change" and "climate 🔥 change" hold "climate change").
//   - A hashtag, mention or cashtag is one word: "#tag", its bare form
//     "tag" and the tag's own terms share its position ("#climate change"
//     holds both "#climate change" and "climate change").
//   - In a script written without spaces each character bigram is a word
//     ("東京タワー" is 東京, 京タ, タワ, ワー at four positions in a row),
//     and so is each run of a spaced script within a token.
//
// Hashtags, mentions and cashtags that only a tweet's entities name (not
// its text) are in the index but at no position: no phrase of more than
// one word finds them.

// Posting is a term of a text at its position: the index of its word
// among the text's words.
type Posting struct {
	Term string
	Pos  int
}

// TextPostings appends to dst the terms Tokenize finds in text, each time
// it finds one, at its position, in the text's order (positions ascend;
// the terms of a hashtag share one). The terms are those of Tokenize,
// merged or not: the set of terms TextPostings gives is the set Tokenize
// gives.
func TextPostings(dst []Posting, text string) []Posting {
	t := tokenizer{cls: classTable(), seq: &dst}
	t.text(Normalize(text))
	return dst
}

// PhrasePostings returns the terms of the phrase q at their positions,
// tokenized as QueryTerms tokenizes a term question (a hashtag or mention
// stands for itself alone): one term a position, the first word at
// position 0 unless q starts with a one-letter word. Nil when q holds no
// term.
func PhrasePostings(q string) []Posting {
	var dst []Posting
	t := tokenizer{cls: classTable(), query: true, seq: &dst}
	t.text(Normalize(q))
	return dst
}

// next moves to the next word's position, unless the terms of a tag are
// being added (they share the tag's position).
func (t *tokenizer) next() {
	if !t.hold {
		t.pos++
	}
}
