package tweetgen

import (
	"math/rand/v2"
	"unicode"
	"unicode/utf8"
)

// Piece kinds of a composed text.
const (
	pieceWord byte = iota + 1
	pieceStop
	pieceEmoji
	pieceTag     // hashtag entity
	pieceMention // user mention entity
	pieceURL     // link entity
)

// entity is a hashtag, user mention or link of a text, with its offsets in
// runes (Twitter counts code points).
type entity struct {
	kind       byte // pieceTag, pieceMention or pieceURL
	text       string
	start, end int
	user       *user  // mentions
	expanded   string // links
	display    string // links
}

// composer builds tweet texts piece by piece in a reused buffer.
type composer struct {
	r      *rand.Rand
	l      *language
	buf    []byte
	runes  int
	ents   []entity
	bounds []int // rune offsets where a piece ends: safe cut points
	last   byte  // kind of the last piece
	start  bool  // at the start of a sentence
}

func (c *composer) reset(r *rand.Rand, l *language) {
	c.r, c.l = r, l
	c.buf = c.buf[:0]
	c.runes = 0
	c.ents = c.ents[:0]
	c.bounds = c.bounds[:0]
	c.last = 0
	c.start = true
}

// latin reports whether the language capitalizes sentences.
func (l *language) latin() bool {
	switch l.tag {
	case "en", "es", "pt", "in", "fr", "tl", "de", "it", "tr":
		return true
	}
	return false
}

// piece appends one piece of kind k, with the separator it needs.
func (c *composer) piece(k byte, s string) {
	if c.runes > 0 && k != pieceStop {
		sep := c.l.spaced || c.last != pieceWord || k != pieceWord
		if c.last == pieceStop && !c.l.spaced && k == pieceWord {
			sep = false
		}
		if sep {
			c.buf = append(c.buf, ' ')
			c.runes++
		}
	}
	if k == pieceWord && c.start && c.l.latin() {
		r, size := utf8.DecodeRuneInString(s)
		c.buf = utf8.AppendRune(c.buf, unicode.ToUpper(r))
		c.buf = append(c.buf, s[size:]...)
	} else {
		c.buf = append(c.buf, s...)
	}
	c.runes += utf8.RuneCountInString(s)
	c.bounds = append(c.bounds, c.runes)
	c.last = k
	switch k {
	case pieceStop:
		c.start = true
	case pieceWord:
		c.start = false
	}
}

// entityPiece appends a hashtag, mention or link and records its entity.
func (c *composer) entityPiece(e entity) {
	var s string
	switch e.kind {
	case pieceTag:
		s = "#" + e.text
	case pieceMention:
		s = "@" + e.text
	default:
		s = e.text
	}
	c.piece(e.kind, s) // adds the separator first
	n := utf8.RuneCountInString(s)
	e.start, e.end = c.runes-n, c.runes
	c.ents = append(c.ents, e)
}

// words appends n words (with the odd sentence end).
func (c *composer) words(n int) {
	l := c.l
	if len(l.words) == 0 {
		for i := 0; i < n; i++ {
			c.piece(pieceEmoji, emojis[c.r.IntN(len(emojis))])
		}
		return
	}
	for i := 0; i < n; i++ {
		c.piece(pieceWord, l.words[c.r.IntN(len(l.words))])
		if c.r.IntN(8) == 0 && i < n-1 {
			c.piece(pieceStop, l.stops[c.r.IntN(len(l.stops))])
		}
	}
}

// link returns a t.co link entity to some site.
func link(r *rand.Rand) entity {
	site := linkSites[r.IntN(len(linkSites))]
	path := randToken(r, 6+r.IntN(10))
	disp := site + "/" + path
	if len(disp) > 26 {
		disp = disp[:25] + "…"
	}
	return entity{kind: pieceURL, text: "https://t.co/" + randToken(r, 10), expanded: "https://" + site + "/" + path, display: disp}
}

// textSpec says what text to compose.
type textSpec struct {
	minRunes, maxRunes int
	replyTo            *user        // starts with "@screen " when set
	mention            func() *user // users to mention
	probe              string       // a word placed once, at rune probeAfter or later
	probeAfter         int
	tags               []string // hashtags to include
	link               bool     // end with a link
}

// compose returns a text in c.l following spec; c.ents and c.bounds
// describe it until the next reset.
func (c *composer) compose(spec textSpec) string {
	r, l := c.r, c.l
	if spec.replyTo != nil {
		c.entityPiece(entity{kind: pieceMention, text: spec.replyTo.screen, user: spec.replyTo})
	}
	for _, t := range spec.tags {
		if c.runes > 0 && r.IntN(2) == 0 {
			c.words(1 + r.IntN(4))
		}
		c.entityPiece(entity{kind: pieceTag, text: t})
	}
	target := spec.minRunes
	if spec.maxRunes > spec.minRunes {
		target += r.IntN(spec.maxRunes - spec.minRunes + 1)
	}
	probed := spec.probe == ""
	for c.runes < target {
		if !probed && c.runes >= spec.probeAfter {
			c.piece(pieceWord, spec.probe)
			probed = true
			continue
		}
		u := r.IntN(100)
		if l == langUND {
			switch {
			case u < 15 && spec.mention != nil:
				m := spec.mention()
				c.entityPiece(entity{kind: pieceMention, text: m.screen, user: m})
			default:
				c.piece(pieceEmoji, emojis[r.IntN(len(emojis))])
			}
			continue
		}
		switch {
		case u < 84:
			c.piece(pieceWord, l.words[r.IntN(len(l.words))])
		case u < 88 && len(l.tags) > 0:
			c.entityPiece(entity{kind: pieceTag, text: l.tags[r.IntN(len(l.tags))]})
		case u < 91 && spec.mention != nil:
			m := spec.mention()
			c.entityPiece(entity{kind: pieceMention, text: m.screen, user: m})
		case u < 95:
			c.piece(pieceEmoji, emojis[r.IntN(len(emojis))])
		default:
			if c.last == pieceWord {
				c.piece(pieceStop, l.stops[r.IntN(len(l.stops))])
			}
		}
	}
	if !probed {
		c.piece(pieceWord, spec.probe)
	}
	if spec.link {
		c.entityPiece(link(r))
	}
	return string(c.buf)
}

// runeOffset returns the byte offset of rune n of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// runeLen returns the number of runes of s.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
