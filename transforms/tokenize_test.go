package transforms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/tweetindex/tweetindex/schemas"
)

// terms builds an expected term list: "term", freq pairs in order.
func terms(kv ...any) []Term {
	var out []Term
	for i := 0; i < len(kv); i += 2 {
		out = append(out, Term{Term: kv[i].(string), Freq: uint32(kv[i+1].(int))})
	}
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Term
	}{
		{
			// The TermIndex example of the seed data model (the Accumulo schema), in first-occurrence order.
			name: "seed",
			text: "A tweet about #ApacheAccumulo and #ApacheFlink and",
			want: terms("tweet", 1, "about", 1, "#apacheaccumulo", 1, "apacheaccumulo", 1, "and", 2, "#apacheflink", 1, "apacheflink", 1),
		},
		{
			name: "es accents kept",
			text: "La canción del verano: ¡Qué CANCIÓN! #Música",
			want: terms("la", 1, "canción", 2, "del", 1, "verano", 1, "qué", 1, "#música", 1, "música", 1),
		},
		{
			// NFKC composes e + U+0301 into é; "é" alone is one character: dropped.
			name: "combining marks composed",
			text: "cafe\u0301 e\u0301",
			want: terms("caf\u00e9", 1),
		},
		{
			name: "ja bigrams",
			text: "東京オリンピック開催",
			want: terms("東京", 1, "京オ", 1, "オリ", 1, "リン", 1, "ンピ", 1, "ピッ", 1, "ック", 1, "ク開", 1, "開催", 1),
		},
		{
			name: "ja prolonged sound mark",
			text: "ラーメン、ラーメン。",
			want: terms("ラー", 2, "ーメ", 2, "メン", 2),
		},
		{
			name: "ja mixed with Latin and digits",
			text: "iPhone使ってる 2020年",
			want: terms("iphone", 1, "使っ", 1, "って", 1, "てる", 1, "2020", 1, "年", 1),
		},
		{
			name: "ja hashtag",
			text: "#東京 に行く",
			want: terms("#東京", 1, "東京", 1, "に行", 1, "行く", 1),
		},
		{
			name: "zh",
			text: "我爱北京天安门 我 爱",
			want: terms("我爱", 1, "爱北", 1, "北京", 1, "京天", 1, "天安", 1, "安门", 1, "我", 1, "爱", 1),
		},
		{
			// ส ว◌ั ส ด◌ี: marks stay with their letter.
			name: "th clusters",
			text: "สวัสดี",
			want: terms("สวั", 1, "วัส", 1, "สดี", 1),
		},
		{
			name: "ar",
			text: "مرحبا بالعالم مَرْحَبًا #مرحبا",
			want: terms("مرحبا", 2, "بالعالم", 1, "مَرْحَبًا", 1, "#مرحبا", 1),
		},
		{
			name: "ko is spaced",
			text: "안녕하세요 세계 나",
			want: terms("안녕하세요", 1, "세계", 1),
		},
		{
			name: "emoji separate and vanish",
			text: "I ❤️ Go🎉🎉 love❤️ #go 👍🏽ok 1️⃣",
			want: terms("go", 2, "love", 1, "#go", 1, "ok", 1),
		},
		{
			name: "urls skipped",
			text: "see https://t.co/AbC123 and HTTP://x.y/z?q=Hello www.example.com/path (http://a.b/c) end",
			want: terms("see", 1, "and", 1, "end", 1),
		},
		{
			name: "url stops at non-ASCII",
			text: "https://t.co/xyz東京",
			want: terms("東京", 1),
		},
		{
			name: "mentions",
			text: "@Alice_1: hi @bob, mail x@example.com",
			want: terms("@alice_1", 1, "alice_1", 1, "hi", 1, "@bob", 1, "bob", 1, "mail", 1, "example", 1, "com", 1),
		},
		{
			name: "full-width prefixes",
			text: "＃タグ ＠ユーザー",
			want: terms("#タグ", 1, "タグ", 1, "@ユーザー", 1, "ユーザー", 1, "ユー", 1, "ーザ", 1, "ザー", 1),
		},
		{
			name: "hash after a token is no hashtag",
			text: "C# a#bc ##xy",
			want: terms("bc", 1, "#xy", 1, "xy", 1),
		},
		{
			name: "html entities",
			text: "Tom &amp; Jerry &lt;3 &#39;quoted&#39; &#x27;hex&#x27; &unknown;",
			want: terms("tom", 1, "jerry", 1, "quoted", 1, "hex", 1, "unknown", 1),
		},
		{
			name: "one-character tokens dropped",
			text: "a b c 1 2 ab 12",
			want: terms("ab", 1, "12", 1),
		},
		{
			name: "nul and control bytes separate",
			text: "foo\x00bar\tbaz",
			want: terms("foo", 1, "bar", 1, "baz", 1),
		},
		{
			name: "invalid UTF-8 separates",
			text: "foo\xffbar",
			want: terms("foo", 1, "bar", 1),
		},
		{
			name: "long term capped",
			text: strings.Repeat("x", 100) + " " + strings.Repeat("é", 40),
			want: terms(strings.Repeat("x", 64), 1, strings.Repeat("é", 32), 1),
		},
		{
			name: "long hashtag capped",
			text: "#" + strings.Repeat("y", 70),
			want: terms("#"+strings.Repeat("y", 63), 1, strings.Repeat("y", 64), 1),
		},
		{
			name: "turkish dotted capital",
			text: "İstanbul ΣΟΦΙΑ",
			want: terms("istanbul", 1, "σοφια", 1),
		},
		{
			name: "cjk hashtag has its bare form and its bigrams",
			text: "#一眼レフ",
			want: terms("#一眼レフ", 1, "一眼レフ", 1, "一眼", 1, "眼レ", 1, "レフ", 1),
		},
		{
			name: "one-letter hashtag keeps its bare form",
			text: "#K and #é",
			want: terms("#k", 1, "k", 1, "and", 1, "#é", 1, "é", 1),
		},
		{
			name: "apostrophes inside words",
			text: "Don't, it’s rock'n'roll 'quoted' users' l'été",
			want: terms("don't", 1, "it's", 1, "rock'n'roll", 1, "quoted", 1, "users", 1, "l'été", 1),
		},
		{
			name: "decimal and thousands separators",
			text: "3.14 and 1,000 or 2, 3. 10.5.2026",
			want: terms("3.14", 1, "and", 1, "1,000", 1, "or", 1, "10.5.2026", 1),
		},
		{
			name: "nfkc full width and ligatures",
			text: "Ｈｅｌｌｏ ﬁle ＃ｔａｇ",
			want: terms("hello", 1, "file", 1, "#tag", 1, "tag", 1),
		},
		{name: "empty", text: "", want: nil},
		{name: "only separators", text: " !? … 🎉 ", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokenize(nil, tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tokenize(%q)\n got %v\nwant %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		q, field string
		want     []string
	}{
		{"can't", FieldText, []string{"can't"}},
		{"Can’t", FieldText, []string{"can't"}},
		{"東京タワー", FieldText, []string{"東京", "京タ", "タワ", "ワー"}},
		{"กรุงเทพ", FieldText, Terms(Tokenize(nil, "กรุงเทพ"))},
		{"#BigData", FieldText, []string{"#bigdata"}},
		{"#一眼レフ", FieldText, []string{"#一眼レフ"}},
		{"Ｈｅｌｌｏ", FieldText, []string{"hello"}},
		{"big data", FieldText, []string{"big", "data"}},
		{"!?", FieldText, []string{}},
		{"a", FieldText, []string{}},
		{"Alice_1", FieldUser, []string{"alice_1"}},
	}
	for _, tt := range tests {
		got := QueryTerms(tt.q, tt.field)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("QueryTerms(%q, %s) = %q, want %q", tt.q, tt.field, got, tt.want)
		}
		// Every query term is a term the index holds for a text that is the query.
		if tt.field == FieldText {
			indexed := map[string]bool{}
			for _, x := range Tokenize(nil, tt.q) {
				indexed[x.Term] = true
			}
			for _, q := range got {
				if !indexed[q] {
					t.Errorf("QueryTerms(%q) gives %q, which Tokenize(%q) does not index", tt.q, q, tt.q)
				}
			}
		}
	}
}

func TestUserTerms(t *testing.T) {
	tests := []struct {
		name, user, screen string
		want               []Term
	}{
		{"seed", "user1", "u1scr", terms("user1", 1, "u1scr", 1)},
		{"accents and case", "Ana María", "AnaM", terms("ana", 1, "maría", 1, "anam", 1)},
		{"one-character handle kept", "Xavier", "x", terms("xavier", 1, "x", 1)},
		{"same name and handle", "bob", "Bob", terms("bob", 2)},
		{"emoji and hashtags in name", "Jo 🌈 #Pride", "jo_2020", terms("jo", 1, "#pride", 1, "pride", 1, "jo_2020", 1)},
		{"ja name", "山田太郎", "yamada", terms("山田", 1, "田太", 1, "太郎", 1, "yamada", 1)},
		{"empty", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := UserTerms(nil, tt.user, tt.screen)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("UserTerms(%q, %q)\n got %v\nwant %v", tt.user, tt.screen, got, tt.want)
			}
		})
	}
}

// TestTokenizeAppends checks that terms already in dst are kept and not
// merged with the new ones.
func TestTokenizeAppends(t *testing.T) {
	dst := []Term{{Term: "and", Freq: 5}}
	got := Tokenize(dst, "and and or")
	want := terms("and", 5, "and", 2, "or", 1)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestTokenizeManyTerms covers merging past the linear search limit.
func TestTokenizeManyTerms(t *testing.T) {
	var sb strings.Builder
	want := map[string]uint32{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		w := fmt.Sprintf("w%d", r.IntN(400))
		want[w]++
		sb.WriteString(w)
		sb.WriteByte(' ')
	}
	got := Tokenize(nil, sb.String())
	if len(got) != len(want) {
		t.Fatalf("got %d distinct terms, want %d", len(got), len(want))
	}
	seen := map[string]bool{}
	for _, term := range got {
		if seen[term.Term] {
			t.Fatalf("term %q emitted twice", term.Term)
		}
		seen[term.Term] = true
		if term.Freq != want[term.Term] {
			t.Errorf("freq(%q) = %d, want %d", term.Term, term.Freq, want[term.Term])
		}
	}
}

// TestTokenizeInvariants checks, on random mixed-script text, what every
// term must satisfy whatever the input.
func TestTokenizeInvariants(t *testing.T) {
	alphabet := []rune("aZé\u0301 #@_.:/&;0\x00\xffhttps:/www.東京オリンピックสวัสดีمرحبا안녕🎉\ufe0fİ＃")
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 5000; n++ {
		rs := make([]rune, r.IntN(200))
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkInvariants(t, string(rs))
	}
}

// TestHasCase checks, for every rune, that lower-casing only needs to look
// at the runes hasCase admits.
func TestHasCase(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !hasCase(r) && unicode.ToLower(r) != r {
			t.Fatalf("hasCase(%U) = false, but it lower-cases to %U", r, unicode.ToLower(r))
		}
	}
}

// TestLower checks lower against strings.ToLower on valid UTF-8, and that
// it does not copy what needs no change.
func TestLower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC", "Ünïcödé ÀÉÎ", "İSTANBUL", "ΣΟΦΙΑ", "東京 TOKYO", "ＡＢＣ", "𐐀𐐁", "Ⱥ", "K", "ß ẞ"} {
		if got, want := lower(s), strings.ToLower(s); got != want {
			t.Errorf("lower(%q) = %q, want %q", s, got, want)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 2000; n++ {
		rs := make([]rune, r.IntN(40))
		for i := range rs {
			rs[i] = rune(r.IntN(0x20000))
		}
		s := strings.ToValidUTF8(string(rs), "")
		if got, want := lower(s), strings.ToLower(s); got != want {
			t.Fatalf("lower(%q) = %q, want %q", s, got, want)
		}
	}
	// ASCII-heavy text goes eight bytes at a time: every ASCII byte at every
	// offset, with non-ASCII runes among them.
	var ascii []byte
	for c := 0; c < utf8.RuneSelf; c++ {
		ascii = append(ascii, byte(c))
	}
	for n := 0; n < 3000; n++ {
		var sb strings.Builder
		for k := r.IntN(60); k > 0; k-- {
			if r.IntN(20) == 0 {
				sb.WriteRune([]rune("ÉßẞȺ東İ")[r.IntN(6)])
			} else {
				sb.WriteByte(ascii[r.IntN(len(ascii))])
			}
		}
		s := sb.String()
		if got, want := lower(s), strings.ToLower(s); got != want {
			t.Fatalf("lower(%q) = %q, want %q", s, got, want)
		}
	}
	if s := "already lower 東京"; unsafe.StringData(lower(s)) != unsafe.StringData(s) {
		t.Error("lower copied a string that needs no change")
	}
}

// TestNormalize checks Normalize against NFKC of the whole text, U+2019
// replaced and lower-cased: the ASCII prefix it skips must not change the
// answer, whatever follows the prefix (a combining mark that composes with
// its last byte, a compatibility character, U+2019) and wherever the
// prefix ends against its eight-byte steps.
func TestNormalize(t *testing.T) {
	want := func(s string) string {
		return strings.ToLower(strings.ReplaceAll(norm.NFKC.String(s), "\u2019", "'"))
	}
	for _, s := range []string{
		"", "abc", "ABC Def", "e\u0301", "Cafe\u0301 bar", "A\u030a", "x\ufb01y", "ABC\u2019s",
		"\u2019", "ＡＢＣ", "\u0301abc", "a\u0308\u0301", "a\u1100\u1161", "abcdefgh\u0301",
		"abcdefg\u0301", "abcdefghi\u0301", "1/2 \u00bd", "tokyo 東京 ｶﾀｶﾅ", "İstanbul", "\u00a0x",
	} {
		if got := Normalize(s); got != want(s) {
			t.Errorf("Normalize(%q) = %q, want %q", s, got, want(s))
		}
	}
	ascii := "aZ 09#@_.:/&;\x00~"
	other := []rune("\u0301\u0308\u030a\u2019\ufb01ＡéÉ東ｶﾞ\u00bd\u00a0\u1161İ🎉\ufe0f")
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := r.IntN(20); k > 0; k-- {
			sb.WriteByte(ascii[r.IntN(len(ascii))])
		}
		for k := r.IntN(6); k > 0; k-- {
			if r.IntN(3) == 0 {
				sb.WriteByte(ascii[r.IntN(len(ascii))])
			} else {
				sb.WriteRune(other[r.IntN(len(other))])
			}
		}
		if s := sb.String(); Normalize(s) != want(s) {
			t.Fatalf("Normalize(%q) = %q, want %q", s, Normalize(s), want(s))
		}
	}
	if s := "already normal, lower 東京"; unsafe.StringData(Normalize(s)) != unsafe.StringData(s) {
		t.Error("Normalize copied a string that needs no change")
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"A tweet about #ApacheAccumulo and", "東京 ภาษาไทย @x https://t.co/a", "\x00\xff#", strings.Repeat("é", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkInvariants(t, s) })
}

func checkInvariants(t *testing.T, s string) {
	t.Helper()
	got := Tokenize(nil, s)
	seen := map[string]bool{}
	for _, term := range got {
		switch {
		case term.Term == "":
			t.Fatalf("Tokenize(%q): empty term", s)
		case strings.IndexByte(term.Term, 0) >= 0:
			t.Fatalf("Tokenize(%q): term %q holds 0x00", s, term.Term)
		case len(term.Term) > MaxTermLen:
			t.Fatalf("Tokenize(%q): term %q longer than %d bytes", s, term.Term, MaxTermLen)
		case !utf8.ValidString(term.Term):
			t.Fatalf("Tokenize(%q): term %q is not UTF-8", s, term.Term)
		case strings.ToLower(term.Term) != term.Term:
			t.Fatalf("Tokenize(%q): term %q is not lower-case", s, term.Term)
		case seen[term.Term]:
			t.Fatalf("Tokenize(%q): term %q emitted twice", s, term.Term)
		case term.Freq == 0:
			t.Fatalf("Tokenize(%q): term %q with frequency 0", s, term.Term)
		}
		seen[term.Term] = true
	}
	checkPostings(t, s, got)
	checkCellPositions(t, &schemas.Tweet{Text: s})
}

const (
	benchEnglish = "Just watched the #ApacheFlink keynote with @dataeng_sam: streaming joins at scale, " +
		"exactly-once sinks &amp; a live demo. Slides here https://t.co/Xy12AbCdEf — can't wait for v2.0! #BigData"
	benchJapanese = "今日は東京で開催されたカンファレンスに参加しました。ストリーム処理の最新事例がとても面白かったです！" +
		"#データ基盤 @tanaka_dev さんの発表資料はこちら https://t.co/AbCdEf1234"
)

func BenchmarkTokenize(b *testing.B) {
	for _, bc := range []struct{ name, text string }{{"en", benchEnglish}, {"ja", benchJapanese}} {
		b.Run(bc.name, func(b *testing.B) {
			var dst []Term
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = Tokenize(dst[:0], bc.text)
			}
		})
	}
}

func BenchmarkNormalize(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"en", benchEnglish}, {"ja", benchJapanese}, {"ascii", strings.ReplaceAll(benchEnglish, "—", "-")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				Normalize(bc.text)
			}
		})
	}
}

func ExampleTokenize() {
	for _, term := range Tokenize(nil, "A tweet about #ApacheAccumulo and #ApacheFlink and") {
		fmt.Println(term.Term, term.Freq)
	}
	// Output:
	// tweet 1
	// about 1
	// #apacheaccumulo 1
	// apacheaccumulo 1
	// and 2
	// #apacheflink 1
	// apacheflink 1
}

func ExampleUserTerms() {
	fmt.Println(UserTerms(nil, "user1", "u1scr"))
	// Output: [{user1 1} {u1scr 1}]
}

// TestTwitterHashtagRules: without entities, hashtags, mentions and
// cashtags are delimited as Twitter's own rules (twitter-text) do: a
// hashtag or mention ends at an apostrophe, straight or typographic, and
// at other punctuation; a hashtag holds a letter; a cashtag is '$' and one
// to six letters. Words keep their rules (don't stays one term).
func TestTwitterHashtagRules(t *testing.T) {
	for _, c := range []struct {
		text string
		want []Term
	}{
		{"#WONHO’s comeback", terms("#wonho", 1, "wonho", 1, "comeback", 1)},
		{"#BLACKPINK's tour", terms("#blackpink", 1, "blackpink", 1, "tour", 1)},
		{"don't #stop.now", terms("don't", 1, "#stop", 1, "stop", 1, "now", 1)},
		{"@user's reply", terms("@user", 1, "user", 1, "reply", 1)},
		{"on the #16 bus", terms("on", 1, "the", 1, "16", 1, "bus", 1)},
		{"#1hashtag #_ok", terms("#1hashtag", 1, "1hashtag", 1, "#_ok", 1, "_ok", 1)},
		{"$AAPL up, $BRK.A flat, $100 paid", terms("$aapl", 1, "aapl", 1, "up", 1, "$brk.a", 1, "brk.a", 1, "flat", 1, "100", 1, "paid", 1)},
		{"$TOOLONG and a$b", terms("toolong", 1, "and", 1)},
		{"#2.0 release", terms("2.0", 1, "release", 1)},
	} {
		if got := Tokenize(nil, c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Tokenize(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if got := QueryTerms("#WONHO’s", FieldText); !reflect.DeepEqual(got, []string{"#wonho"}) {
		t.Errorf("QueryTerms(#WONHO’s) = %q, want [#wonho]", got)
	}
	if got := QueryTerms("$AAPL", FieldText); !reflect.DeepEqual(got, []string{"$aapl"}) {
		t.Errorf("QueryTerms($AAPL) = %q, want [$aapl]", got)
	}
}

// TestTokenizeEntities: every hashtag, mention and cashtag a tweet's
// entities name is indexed, with the terms of its text (which keep theirs
// when the entities leave some out); a term both give is counted once per
// occurrence, not twice.
func TestTokenizeEntities(t *testing.T) {
	e := &schemas.Entities{Hashtags: []string{"WONHO", "一眼レフ", "Cut"}, Mentions: []string{"Some_One"}, Cashtags: []string{"AAPL"}}
	got := TokenizeEntities(nil, "#WONHO’s day with @Some_One #一眼レフ $AAPL #notanentity #cu…", e)
	want := terms("#wonho", 1, "wonho", 1, "day", 1, "with", 1, "@some_one", 1, "some_one", 1,
		"#一眼レフ", 1, "一眼レフ", 1, "一眼", 1, "眼レ", 1, "レフ", 1, "$aapl", 1, "aapl", 1, "#notanentity", 1, "notanentity", 1,
		"#cu", 1, "cu", 1, "#cut", 1, "cut", 1)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TokenizeEntities = %v\nwant %v", got, want)
	}
	tw := &schemas.Tweet{Text: "#A #A", Entities: &schemas.Entities{Hashtags: []string{"A", "A"}}}
	if got := TweetTerms(nil, tw); !reflect.DeepEqual(got, terms("#a", 2, "a", 2)) {
		t.Errorf("TweetTerms of two #A entities = %v, want #a and a twice", got)
	}
	tw = &schemas.Tweet{Text: "#WONHO’s and #WONHO", Entities: &schemas.Entities{Hashtags: []string{"WONHO", "WONHO", "WONHO"}}}
	if got := TweetTerms(nil, tw); !reflect.DeepEqual(got, terms("#wonho", 3, "wonho", 3, "and", 1)) {
		t.Errorf("TweetTerms with three WONHO entities and two in the text = %v, want the larger count", got)
	}
}

// TestURLHost: the url field holds links' hosts, as a question asks for
// them.
func TestURLHost(t *testing.T) {
	for u, want := range map[string]string{
		"https://www.NYTimes.com/2020/01/01/x.html": "nytimes.com",
		"http://user@edition.cnn.com:8080/?q=1":     "edition.cnn.com",
		"nytimes.com":                               "nytimes.com",
		"https://bit.ly/abc#frag":                   "bit.ly",
		"https://example.org.":                      "example.org",
		"":                                          "",
		"https:///nothing":                          "",
	} {
		if got := URLHost(u); got != want {
			t.Errorf("URLHost(%q) = %q, want %q", u, got, want)
		}
	}
	if got := URLTerms(nil, []string{"https://www.nytimes.com/a", "https://nytimes.com/b", "https://t.co/x"}); !reflect.DeepEqual(got, terms("nytimes.com", 2, "t.co", 1)) {
		t.Errorf("URLTerms = %v", got)
	}
	if got := QueryTerms("https://www.nytimes.com/", FieldURL); !reflect.DeepEqual(got, []string{"nytimes.com"}) {
		t.Errorf("QueryTerms(url) = %q", got)
	}
}
