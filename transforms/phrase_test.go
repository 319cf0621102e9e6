package transforms

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// checkPostings checks that TextPostings finds in s the terms Tokenize
// found (got), each as often as its frequency says, at ascending
// positions.
func checkPostings(t *testing.T, s string, got []Term) {
	t.Helper()
	posts := TextPostings(nil, s)
	count := map[string]uint32{}
	for i, p := range posts {
		if i > 0 && p.Pos < posts[i-1].Pos {
			t.Fatalf("TextPostings(%q): position %d after %d", s, p.Pos, posts[i-1].Pos)
		}
		count[p.Term]++
	}
	for _, term := range got {
		if count[term.Term] != term.Freq {
			t.Fatalf("TextPostings(%q): %q %d times, Tokenize's frequency %d", s, term.Term, count[term.Term], term.Freq)
		}
		delete(count, term.Term)
	}
	for term := range count {
		t.Fatalf("TextPostings(%q): %q, which Tokenize does not give", s, term)
	}
}

// checkCellPositions checks that the text rows of tw's term cells record
// the positions TextPostings finds for each term, once each, ascending,
// and none for a term only the entities name.
func checkCellPositions(t *testing.T, tw *schemas.Tweet) {
	t.Helper()
	want := map[string][]uint32{}
	for _, p := range TextPostings(nil, tw.Text) {
		ps := want[p.Term]
		if len(ps) == 0 || ps[len(ps)-1] != uint32(p.Pos) {
			want[p.Term] = append(ps, uint32(p.Pos))
		}
	}
	cells, _ := TermCells(nil, nil, tw)
	for _, c := range cells {
		r, err := schemas.DecodeTerm(c.Key, c.Value)
		if err != nil {
			t.Fatalf("text %q: cell %q: %v", tw.Text, c.Key, err)
		}
		if r.Field != FieldText {
			if r.Positioned {
				t.Fatalf("text %q: %s row %q records positions", tw.Text, r.Field, r.Term)
			}
			continue
		}
		if !r.Positioned || !slices.Equal(r.Positions, want[r.Term]) {
			t.Fatalf("text %q: row %q records positions %v (%v), TextPostings %v", tw.Text, r.Term, r.Positions, r.Positioned, want[r.Term])
		}
	}
}

// TestTermCellsPositions: the text rows of a tweet with entities record
// the text's positions, and none for a tag only the entities name.
func TestTermCellsPositions(t *testing.T) {
	tw := &schemas.Tweet{Text: "RT climate change is #Climate change, not #weather… #東京タワー 行く",
		Entities: &schemas.Entities{Hashtags: []string{"Climate", "weatherwatch", "東京タワー"}, Mentions: []string{"UN"}}}
	checkCellPositions(t, tw)
	cells, _ := TermCells(nil, nil, tw)
	var only []string
	for _, c := range cells {
		if r, _ := schemas.DecodeTerm(c.Key, c.Value); r.Positioned && len(r.Positions) == 0 {
			only = append(only, r.Term)
		}
	}
	if want := []string{"#weatherwatch", "weatherwatch", "@un", "un"}; !slices.Equal(only, want) {
		t.Errorf("rows at no position: %q, want the entities' own %q", only, want)
	}
	for _, s := range []string{benchEnglish, benchJapanese, "a a a b a", "#abc東abc abc"} {
		checkCellPositions(t, &schemas.Tweet{Text: s})
	}
}

// postings renders postings as "term@pos" words.
func postings(ps []Posting) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s@%d", p.Term, p.Pos)
	}
	return b.String()
}

func TestTextPostings(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Climate change, climate CHANGE!", "climate@0 change@1 climate@2 change@3"},
		// Punctuation, emoji, URLs and entities hold no position.
		{"climate – change 🔥 https://t.co/x &amp; now", "climate@0 change@1 now@2"},
		// A one-letter word holds its position.
		{"climate a change", "climate@0 change@2"},
		// A hashtag's terms share its position.
		{"#Climate change @UN now", "#climate@0 climate@0 change@1 @un@2 un@2 now@3"},
		{"#WONHO’s concert", "#wonho@0 wonho@0 concert@2"},
		{"don't 3.14 1,000 x", "don't@0 3.14@1 1,000@2"},
		// Bigrams, a position each; a tag of them is one word.
		{"東京タワー行く", "東京@0 京タ@1 タワ@2 ワー@3 ー行@4 行く@5"},
		{"#東京タワー 行く", "#東京タワー@0 東京タワー@0 東京@0 京タ@0 タワ@0 ワー@0 行く@1"},
		{"abc東京", "abc@0 東京@1"},
	} {
		if got := postings(TextPostings(nil, c.text)); got != c.want {
			t.Errorf("TextPostings(%q)\n got %s\nwant %s", c.text, got, c.want)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"Climate, change", "climate@0 change@1"},
		{"#Climate change", "#climate@0 change@1"},
		{"a climate a change", "climate@1 change@3"},
		{"#東京タワー 行く", "#東京タワー@0 行く@1"},
		{"!! https://x.y", ""},
	} {
		if got := postings(PhrasePostings(c.q)); got != c.want {
			t.Errorf("PhrasePostings(%q)\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}

func BenchmarkTextPostings(b *testing.B) {
	for _, bc := range []struct{ name, text string }{{"en", benchEnglish}, {"ja", benchJapanese}} {
		b.Run(bc.name, func(b *testing.B) {
			var dst []Posting
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = TextPostings(dst[:0], bc.text)
			}
		})
	}
}
