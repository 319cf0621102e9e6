package query

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/schemas"
)

// UserShare is one row of a distribution of tweets per user: how many
// users wrote exactly Tweets tweets in the range.
type UserShare struct {
	Tweets int64
	Users  int64
}

// Users answers "how are tweets distributed over users" (question 10):
// it counts the tweets of the range per screen name (case-insensitive, as
// Twitter's handles), from the authors table (schemas.AuthorRow: a key
// range of it is a range of seconds, as of the raw table, and a row is
// the tweet's language and lower-cased screen name), or, in a sink
// indexed before that table existed (AuthorsIndexed false), from the
// stored tweets of the range. The distribution comes in order of Tweets.
func (e *Engine) Users(ctx context.Context, f Filter) ([]UserShare, error) {
	perUser, err := e.tweetsPerUser(ctx, f)
	return distribution(perUser), err
}

// AuthorsIndexed reports whether the sink's authors table holds a row for
// every stored tweet (the metadata row schemas.AuthorsParam, written when
// indexing began into an empty sink), so that Users and TopUsers read it.
// If not (a sink indexed before the table existed), they read every
// stored tweet of their range instead: the same answer, more slowly.
func (e *Engine) AuthorsIndexed(ctx context.Context) (bool, error) {
	e.authorsMu.Lock()
	defer e.authorsMu.Unlock()
	if !e.authorsKnown {
		_, ok, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.AuthorsParam))
		if err != nil {
			return false, fmt.Errorf("reading %s: %w", schemas.AuthorsParam, err)
		}
		e.authorsKnown, e.authorsIndexed = true, ok
	}
	return e.authorsIndexed, nil
}

// tweetsPerUser counts the tweets of each user (lower-cased screen name)
// in the range: from the authors table in one pass (counting is most of
// the cost there, and adding up the counts of parts read at once cost
// more CPU than it saved time), or, without one, from the stored tweets,
// read in up to GOMAXPROCS parts at once (finding the screen name in each
// tweet's JSON is most of the cost) whose counts are then added up.
func (e *Engine) tweetsPerUser(ctx context.Context, f Filter) (map[string]int64, error) {
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return map[string]int64{}, err
	}
	indexed, err := e.AuthorsIndexed(ctx)
	if err != nil {
		return map[string]int64{}, err
	}
	n := runtime.GOMAXPROCS(0)
	if indexed {
		n = 1
	}
	parts := splitSpan(s, n)
	counts := make([]map[string]int64, len(parts))
	g, ctx := errgroup.WithContext(ctx)
	for i, p := range parts {
		counts[i] = map[string]int64{}
		perUser := counts[i]
		g.Go(func() error {
			if indexed {
				return e.authorCounts(ctx, p, perUser)
			}
			pf := f
			pf.From, pf.To = time.Unix(p.from, 0), time.Unix(p.to, 0)
			return e.Tweets(ctx, pf, Page{}, func(h Hit) error {
				name, err := screenName(h)
				perUser[strings.ToLower(name)]++
				return err
			})
		})
	}
	err = g.Wait()
	for _, c := range counts[1:] {
		for u, n := range c {
			counts[0][u] += n
		}
	}
	return counts[0], err
}

// authorCounts adds to perUser the tweets of span s (of its language, if
// it has one) per lower-cased screen name, from the authors table.
func (e *Engine) authorCounts(ctx context.Context, s span, perUser map[string]int64) error {
	return e.R.Scan(ctx, schemas.TableAuthors, rowKeyAt(s.from), rowKeyAt(s.to), func(key, value []byte) error {
		lang, name, ok := schemas.AuthorValue(value)
		if !ok {
			return fmt.Errorf("authors row %x: value %q malformed", key, value)
		}
		if s.lang == "" || string(lang) == s.lang {
			perUser[string(name)]++
		}
		return nil
	})
}

// splitSpan cuts s into at most n parts of whole seconds, in order.
func splitSpan(s span, n int) []span {
	n = int(min(int64(max(n, 1)), s.to-s.from))
	parts := make([]span, 0, n)
	for i := range n {
		p := s
		p.from = s.from + (s.to-s.from)*int64(i)/int64(n)
		p.to = s.from + (s.to-s.from)*int64(i+1)/int64(n)
		parts = append(parts, p)
	}
	return parts
}

// screenName returns the screen name of h's author: found in the stored
// JSON without decoding it where it can be (schemas.StoredScreenName), else
// decoded.
func screenName(h Hit) (string, error) {
	if name, ok := schemas.StoredScreenName(h.JSON); ok {
		return name, nil
	}
	t, err := h.Tweet()
	if err != nil {
		return "", err
	}
	return t.ScreenName, nil
}

// distribution turns tweets per user into users per tweet count.
func distribution(perUser map[string]int64) []UserShare {
	users := map[int64]int64{}
	for _, n := range perUser {
		users[n]++
	}
	out := make([]UserShare, 0, len(users))
	for n, u := range users {
		out = append(out, UserShare{Tweets: n, Users: u})
	}
	slices.SortFunc(out, func(a, b UserShare) int { return int(a.Tweets - b.Tweets) })
	return out
}

// UserCount is a user and the tweets they wrote in a range.
type UserCount struct {
	ScreenName string
	Tweets     int64
}

// TopUsers answers "who tweeted most" with question 10's reading of the
// authors table (or of the raw rows, as Users): the n users (screen names, lower-cased) with the most tweets
// in the range, most first (ties by name), and the distribution of tweets
// per user.
func (e *Engine) TopUsers(ctx context.Context, f Filter, n int) ([]UserCount, []UserShare, error) {
	perUser, err := e.tweetsPerUser(ctx, f)
	return top(perUser, n), distribution(perUser), err
}

// top returns the n users with the most tweets.
func top(perUser map[string]int64, n int) []UserCount {
	out := make([]UserCount, 0, len(perUser))
	for u, c := range perUser {
		out = append(out, UserCount{ScreenName: u, Tweets: c})
	}
	slices.SortFunc(out, func(a, b UserCount) int {
		if a.Tweets != b.Tweets {
			return int(b.Tweets - a.Tweets)
		}
		return strings.Compare(a.ScreenName, b.ScreenName)
	})
	return out[:min(n, len(out))]
}

// TopUsers returns the n users with the most tweets, as Engine.TopUsers.
func (sc Scanner) TopUsers(ctx context.Context, f Filter, n int) ([]UserCount, error) {
	perUser := map[string]int64{}
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		perUser[strings.ToLower(t.ScreenName)]++
		return nil
	})
	return top(perUser, n), err
}

// Langs returns the language tags the frequency table holds for the
// range, sorted: what --lang can name.
func (e *Engine) Langs(ctx context.Context, f Filter) ([]string, error) {
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return nil, err
	}
	seen := map[string]bool{}
	err = e.R.Scan(ctx, schemas.TableFrequency, []byte(schemas.Minute(floorMinute(s.from))), []byte(schemas.Minute(ceilMinute(s.to))), func(key, _ []byte) error {
		if len(key) >= len(schemas.MinuteLayout) {
			seen[string(key[len(schemas.MinuteLayout):])] = true
		}
		return nil
	})
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	slices.Sort(out)
	return out, err
}
