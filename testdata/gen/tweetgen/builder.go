package tweetgen

import (
	"math/rand/v2"
)

// mix says what kinds of tweets a builder makes, in per mille.
type mix struct {
	langs                           []weighted
	retweet, extended, reply, quote int
	geoPoint, geoOnlyGeo, geoPlace  int
	// v2 marks tweets written as API v2: long retweeted tweets carry the
	// v2 probe word, and no tweet has only the deprecated geo.
	v2 bool
	// tags are hashtags every tweet's text (or retweeted text) holds.
	tags []string
}

// builder makes tweets, drawing everything from r.
type builder struct {
	r *rand.Rand
	c composer
	// author returns a user who writes in l; anyone returns any user.
	author func(l *language) *user
	anyone func() *user
}

// compose returns a new tweet by u in l at ms with a text following spec.
func (b *builder) compose(ms int64, l *language, tag string, u *user, spec textSpec) *tweet {
	b.c.reset(b.r, l)
	if spec.mention == nil {
		spec.mention = b.anyone
	}
	t := &tweet{id: snowflakeAt(b.r, ms), ms: ms, lang: tag, user: u, source: b.r.IntN(len(sources))}
	t.text = b.c.compose(spec)
	if len(b.c.ents) > 0 {
		t.ents = append([]entity(nil), b.c.ents...)
	}
	t.bounds = append([]int(nil), b.c.bounds...)
	return t
}

// shortSpec returns the spec of an ordinary tweet text.
func (b *builder) shortSpec() textSpec {
	r := b.r
	max := 40 + r.IntN(100)
	return textSpec{minRunes: 8, maxRunes: max, link: r.IntN(5) == 0}
}

// longSpec returns the spec of a text over 140 runes, with probe (if any)
// placed beyond rune 140 so that every truncated form hides it.
func longSpec(probe string) textSpec {
	return textSpec{minRunes: 165, maxRunes: 265, probe: probe, probeAfter: 142}
}

// make returns a tweet created at ms, of a kind drawn by m.
func (b *builder) make(ms int64, m *mix) *tweet {
	r := b.r
	tag := pick(m.langs, r.IntN(1000))
	l := langsByTag[tag]
	u := r.IntN(1000)
	var t *tweet
	switch {
	case u < m.retweet:
		orig := b.original(ms, tag, m)
		t = &tweet{id: snowflakeAt(r, ms), ms: ms, lang: orig.lang, user: b.anyone(), source: r.IntN(len(sources)), rt: orig}
		return t
	case u < m.retweet+m.extended:
		probe := ""
		if l == langEN && !m.v2 {
			probe = probeExtended
		}
		spec := longSpec(probe)
		spec.tags = m.tags
		t = b.compose(ms, l, tag, b.author(l), spec)
	case u < m.retweet+m.extended+m.reply:
		to := &tweet{id: snowflakeAt(r, ms-int64(1000+r.IntN(6*3600_000))), user: b.anyone()}
		spec := b.shortSpec()
		spec.replyTo, spec.tags = to.user, m.tags
		t = b.compose(ms, l, tag, b.author(l), spec)
		t.replyTo = to
	case u < m.retweet+m.extended+m.reply+m.quote && !m.v2:
		qms := ms - int64(60_000+r.IntN(48*3600_000))
		qtag := pick(m.langs, r.IntN(1000))
		ql := langsByTag[qtag]
		spec := b.shortSpec()
		if r.IntN(2) == 0 {
			spec.probe = probeQuote
		}
		q := b.compose(qms, ql, qtag, b.author(ql), spec)
		q.favorites, q.retweets, q.quotes = r.IntN(900), r.IntN(300), 1+r.IntN(40)
		spec = b.shortSpec()
		spec.tags = m.tags
		t = b.compose(ms, l, tag, b.author(l), spec)
		t.quote = q
	default:
		spec := b.shortSpec()
		spec.tags = m.tags
		t = b.compose(ms, l, tag, b.author(l), spec)
	}
	b.locate(t, l, m)
	return t
}

// original returns a tweet for another to retweet, created up to three
// days before ms. Long English ones carry the probe word of their format
// beyond rune 140.
func (b *builder) original(ms int64, tag string, m *mix) *tweet {
	r := b.r
	l := langsByTag[tag]
	oms := ms - int64(30_000+r.IntN(72*3600_000))
	spec := b.shortSpec()
	if r.IntN(10) < 4 {
		probe := ""
		if l == langEN {
			probe = probeExtended
			if m.v2 {
				probe = probeV2RT
			}
		}
		spec = longSpec(probe)
	}
	spec.tags = m.tags
	t := b.compose(oms, l, tag, b.author(l), spec)
	t.retweets = 1 + int(r.ExpFloat64()*400)
	t.favorites = int(r.ExpFloat64() * 1500)
	t.replies = int(r.ExpFloat64() * 40)
	t.quotes = int(r.ExpFloat64() * 10)
	return t
}

// locate gives t a location, by the shares of m.
func (b *builder) locate(t *tweet, l *language, m *mix) {
	r := b.r
	g := r.IntN(1000)
	switch {
	case g < m.geoPoint:
		t.geo, t.place = geoPoint, cityFor(r, l)
		t.lat, t.lon = pointIn(r, t.place)
	case g < m.geoPoint+m.geoOnlyGeo:
		t.geo, t.place = geoOnlyGeo, cityFor(r, l)
		t.lat, t.lon = pointIn(r, t.place)
	case g < m.geoPoint+m.geoOnlyGeo+m.geoPlace:
		t.geo, t.place = geoPlace, cityFor(r, l)
	}
}
