package tweetgen

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Expected is the oracle's account of a generated data set, computed from
// the generator's own model of what it wrote (never by parsing the output).
// testdata/README.md defines every count.
type Expected struct {
	// Command regenerates the data set.
	Command string `json:"command"`
	Seed    uint64 `json:"seed"`
	// Read = Tweets + Duplicates + Skipped + DeadLettered.
	Read int64 `json:"read"`
	// Tweets is the number of distinct tweet ids indexed; Indexed is the
	// same number under the name the index command's summary uses.
	Tweets       int64 `json:"tweets"`
	Indexed      int64 `json:"indexed"`
	Duplicates   int64 `json:"duplicates"`
	Skipped      int64 `json:"skipped"`
	DeadLettered int64 `json:"dead_lettered"`
	// Rows are the distinct rows of each table after a run: raw, geo,
	// frequency and deadletter (the term index is left to Terms).
	Rows map[string]int64 `json:"rows"`
	// Frequency maps "YYYYMMDDhhmm/lang" (UTC minute of created_at) to the
	// number of distinct tweets of that language in that minute.
	Frequency map[string]int64 `json:"frequency"`
	// Terms maps "field/term" to the number of distinct indexed tweets
	// whose field holds the term (the rows of that term and field).
	Terms map[string]int64 `json:"terms"`
	// Files accounts for each input file.
	Files []FileCount `json:"files"`
	// DeadLetters lists every item that must be dead-lettered, with its
	// origin as "file:line" or "archive!member:line".
	DeadLetters []DeadLetter `json:"dead_letters"`
	// Points maps each tweet id with a geo row to its [lat, lon].
	Points map[string][2]float64 `json:"points"`
}

// FileCount accounts for one input file. Tweets counts tweet items,
// duplicate copies included: Read = Tweets + Skipped + DeadLettered.
type FileCount struct {
	Name         string `json:"name"`
	Format       string `json:"format"`
	Read         int64  `json:"read"`
	Tweets       int64  `json:"tweets"`
	Skipped      int64  `json:"skipped"`
	DeadLettered int64  `json:"dead_lettered"`
}

// DeadLetter is an item a reader must dead-letter.
type DeadLetter struct {
	Origin string `json:"origin"`
	Cause  string `json:"cause"`
}

// Dead-letter causes.
const (
	causeBrokenJSON = "broken JSON"
	causeNotJSON    = "not JSON"
	causeUTF8       = "invalid UTF-8"
	causeCreatedAt  = "missing created_at"
	causeIDStr      = "missing id_str"
	causeLatitude   = "impossible coordinates"
	causeTruncated  = "truncated gzip stream"
)

// probe is a term the oracle counts.
type probe struct{ field, term string }

// probes are the terms Expected.Terms reports. Each tests one rule; see
// testdata/README.md.
var probes = []probe{
	{"text", "#apacheflink"}, {"text", "apacheflink"}, {"text", "#apacheaccumulo"}, {"text", "apacheaccumulo"},
	{"text", "about"}, {"text", "and"}, {"text", "tweet"}, {"text", "rt"},
	{"text", probeExtended}, {"text", probeV2RT}, {"text", "東京"}, {"text", "مرحبا"}, {"text", "canción"},
	{"text", probeDesc}, {"text", probeDead}, {"text", probeQuote},
	{"user", "user1"}, {"user", "u1scr"},
}

// tally accumulates the oracle's counts.
type tally struct {
	read, tweets, dups, skipped, dead, geo int64
	freq                                   map[string]int64
	terms                                  map[string]int64
	points                                 map[string][2]float64
	deadLetters                            []DeadLetter
}

func newTally() *tally {
	return &tally{freq: map[string]int64{}, terms: map[string]int64{}, points: map[string][2]float64{}}
}

// indexed adds a distinct tweet the reader indexes.
func (y *tally) indexed(t *tweet) {
	y.tweets++
	var key [32]byte
	k := timeOfMS(t.ms).AppendFormat(key[:0], "200601021504")
	k = append(k, '/')
	k = append(k, t.lang...)
	y.freq[string(k)]++
	if lat, lon, ok := t.point(); ok {
		y.geo++
		y.points[strconv.FormatUint(t.id, 10)] = [2]float64{lat, lon}
	}
	text := y.lowered(t.indexText())
	for _, p := range probes {
		var has bool
		switch p.field {
		case "text":
			has = hasTerm(text, p.term)
		case "user":
			if t.user != nil && !t.noUser {
				has = hasTerm(strings.ToLower(t.user.name), p.term) || strings.ToLower(t.user.screen) == p.term
			}
		}
		if has {
			y.terms[p.field+"/"+p.term]++
		}
	}
}

// lowered returns text lower-cased with its links blanked out, as a term
// index tokenizes it.
func (y *tally) lowered(text string) string {
	return strings.ToLower(stripLinks(text))
}

// merge adds the counts of z to y.
func (y *tally) merge(z *tally) {
	y.read += z.read
	y.tweets += z.tweets
	y.dups += z.dups
	y.skipped += z.skipped
	y.dead += z.dead
	y.geo += z.geo
	for k, v := range z.freq {
		y.freq[k] += v
	}
	for k, v := range z.terms {
		y.terms[k] += v
	}
	for k, v := range z.points {
		y.points[k] = v
	}
	y.deadLetters = append(y.deadLetters, z.deadLetters...)
}

// expected returns the Expected of the counts.
func (y *tally) expected(cmd string, seed uint64, files []FileCount) *Expected {
	e := &Expected{
		Command: cmd, Seed: seed,
		Read: y.read, Tweets: y.tweets, Indexed: y.tweets, Duplicates: y.dups, Skipped: y.skipped, DeadLettered: y.dead,
		Rows: map[string]int64{
			"raw": y.tweets, "geo": y.geo, "frequency": int64(len(y.freq)), "deadletter": y.dead,
		},
		Frequency: y.freq, Terms: map[string]int64{}, Files: files, DeadLetters: y.deadLetters, Points: y.points,
	}
	for _, p := range probes {
		e.Terms[p.field+"/"+p.term] = y.terms[p.field+"/"+p.term]
	}
	if e.DeadLetters == nil {
		e.DeadLetters = []DeadLetter{}
	}
	return e
}

// check verifies that the counts reconcile.
func (e *Expected) check() error {
	if e.Read != e.Tweets+e.Duplicates+e.Skipped+e.DeadLettered {
		return fmt.Errorf("read %d != tweets %d + duplicates %d + skipped %d + dead_lettered %d", e.Read, e.Tweets, e.Duplicates, e.Skipped, e.DeadLettered)
	}
	var sum int64
	for _, n := range e.Frequency {
		sum += n
	}
	if sum != e.Tweets {
		return fmt.Errorf("frequency counts sum to %d, want %d tweets", sum, e.Tweets)
	}
	if int64(len(e.Points)) != e.Rows["geo"] {
		return fmt.Errorf("%d points for %d geo rows", len(e.Points), e.Rows["geo"])
	}
	if int64(len(e.DeadLetters)) != e.DeadLettered && len(e.DeadLetters) > 0 {
		return fmt.Errorf("%d dead letters listed, %d counted", len(e.DeadLetters), e.DeadLettered)
	}
	var f FileCount
	for _, fc := range e.Files {
		if fc.Read != fc.Tweets+fc.Skipped+fc.DeadLettered {
			return fmt.Errorf("file %s: read %d != tweets %d + skipped %d + dead_lettered %d", fc.Name, fc.Read, fc.Tweets, fc.Skipped, fc.DeadLettered)
		}
		f.Read += fc.Read
		f.Tweets += fc.Tweets
		f.Skipped += fc.Skipped
		f.DeadLettered += fc.DeadLettered
	}
	if f.Read != e.Read || f.Tweets != e.Tweets+e.Duplicates || f.Skipped != e.Skipped || f.DeadLettered != e.DeadLettered {
		return fmt.Errorf("files sum to %+v; totals read %d, tweet items %d, skipped %d, dead %d", f, e.Read, e.Tweets+e.Duplicates, e.Skipped, e.DeadLettered)
	}
	return nil
}

// stripLinks blanks out links (http://, https://, www. up to the next
// white space or non-ASCII character), which a term index skips.
func stripLinks(s string) string {
	if !strings.Contains(s, "http") && !strings.Contains(s, "www.") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		rest := s[i:]
		if strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "www.") {
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' {
				j++
			}
			b.WriteByte(' ')
			i = j
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// isWordRune reports whether r continues a token: a letter, digit, mark
// or '_'.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// noSpace reports whether r belongs to a script written without spaces,
// which a term index cuts into character bigrams.
func noSpace(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
}

// hasTerm reports whether the lower-cased text s holds term as a term: a
// whole token (or "#tag" / "@name" for a term starting with '#' or '@'),
// or for a term of a script without spaces, a substring (a bigram).
func hasTerm(s, term string) bool {
	first, _ := utf8.DecodeRuneInString(term)
	if noSpace(first) {
		return strings.Contains(s, term)
	}
	for off := 0; ; {
		i := strings.Index(s[off:], term)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(term)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[j:])
		okBefore := i == 0 || !isWordRune(before)
		if first == '#' || first == '@' {
			// The sign must not follow a token ("a#b" is no hashtag).
			okBefore = i == 0 || (!isWordRune(before) && before != '#' && before != '@')
		}
		okAfter := j == len(s) || !isWordRune(after)
		if okBefore && okAfter {
			return true
		}
		off = i + 1
	}
}
