package query

import (
	"context"
	"slices"
	"strings"
)

// UserShare is one row of a distribution of tweets per user: how many
// users wrote exactly Tweets tweets in the range.
type UserShare struct {
	Tweets int64
	Users  int64
}

// Users answers "how are tweets distributed over users" (question 10).
// No index is keyed by author, so it reads the raw rows of the range
// (an index by time: the range is a key range of the raw table) and
// counts tweets per screen name (case-insensitive, as Twitter's handles).
// The distribution comes in order of Tweets.
func (e *Engine) Users(ctx context.Context, f Filter) ([]UserShare, error) {
	perUser := map[string]int64{}
	err := e.Tweets(ctx, f, Page{}, func(h Hit) error {
		perUser[strings.ToLower(h.Tweet.ScreenName)]++
		return nil
	})
	return distribution(perUser), err
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
