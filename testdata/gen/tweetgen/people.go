package tweetgen

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// user is the author of tweets.
type user struct {
	id                   uint64
	name, screen         string
	location, desc, link string
	lang                 *language
	createdMS            int64
	followers, friends   int
	listed, favourites   int
	statuses             int
	verified, protected  bool
	geoEnabled           bool
	defaultProfile       bool
	imageKey             string // path segment of the profile image
	banner               bool
	color                int // index in profileColors
}

// profileColors are profile link and background colours.
var profileColors = [][2]string{{"1DA1F2", "F5F8FA"}, {"E81C4F", "000000"}, {"19CF86", "C0DEED"}, {"FAB81E", "022330"}, {"981CEB", "1A1B1F"}}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randToken returns n random letters and digits.
func randToken(r *rand.Rand, n int) string {
	var b [32]byte
	for i := 0; i < n; i++ {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b[:n])
}

// newUser returns the k-th user of a population, writing in language l.
// Everything is drawn from r, so the same r state gives the same user.
func newUser(r *rand.Rand, l *language, k int) *user {
	u := &user{lang: l}
	if l == langUND {
		l = langEN
		u.lang = l
	}
	first := l.first[r.IntN(len(l.first))]
	last := l.last[r.IntN(len(l.last))]
	switch r.IntN(4) {
	case 0:
		u.name = first
	case 1:
		u.name = first + " " + last
	case 2:
		if l.spaced {
			u.name = first + " " + last + " " + emojis[r.IntN(len(emojis))]
		} else {
			u.name = last + first
		}
	default:
		u.name = last + " " + first
	}
	h := l.handles[r.IntN(len(l.handles))]
	u.screen = h + "_" + strconv.Itoa(k%100000)
	if r.IntN(3) == 0 {
		u.screen = h + strconv.Itoa(k%1000000)
	}
	if len(u.screen) > 15 {
		u.screen = u.screen[:15]
	}
	u.location = l.locations[r.IntN(len(l.locations))]
	u.desc = description(r, l)
	if r.IntN(4) == 0 {
		u.link = "https://t.co/" + randToken(r, 10)
	}
	// Accounts from 2008 to 2026; those after 2014 have snowflake ids.
	created := time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(18 * 365 * 24 * time.Hour)))).Truncate(time.Second)
	u.createdMS = created.UnixMilli()
	if created.Year() < 2014 {
		u.id = uint64(10_000 + r.Int64N(2_500_000_000))
	} else {
		u.id = snowflakeAt(r, u.createdMS)
	}
	u.followers = int(r.ExpFloat64() * 800)
	u.friends = int(r.ExpFloat64() * 400)
	u.listed = u.followers / 100
	u.favourites = int(r.ExpFloat64() * 5000)
	u.statuses = 1 + int(r.ExpFloat64()*12000)
	u.verified = r.IntN(200) == 0
	u.geoEnabled = r.IntN(3) == 0
	u.defaultProfile = r.IntN(2) == 0
	u.imageKey = strconv.FormatUint(uint64(r.Int64N(1<<60)), 10) + "/" + randToken(r, 8)
	u.banner = r.IntN(2) == 0
	u.color = r.IntN(len(profileColors))
	return u
}

// description returns a profile description in language l. Some English
// ones name the person's trade with the probe word probeDesc, which must
// never be indexed as tweet text.
func description(r *rand.Rand, l *language) string {
	if r.IntN(5) == 0 {
		return ""
	}
	var c composer
	c.reset(r, l)
	c.words(3 + r.IntN(8))
	if l == langEN && r.IntN(4) == 0 {
		c.piece(pieceWord, probeDesc)
	}
	if r.IntN(3) == 0 {
		c.piece(pieceEmoji, emojis[r.IntN(len(emojis))])
	}
	return string(c.buf)
}
