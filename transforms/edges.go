package transforms

import (
	"slices"
	"strings"

	"github.com/tweetindex/tweetindex/schemas"
)

// MaxEdgeHashtags is how many of a tweet's hashtags (distinct, in the
// order the term index finds them) make hashtag edges: n hashtags make
// n(n-1)/2 edges, so a tweet of 80 hashtags would make 3,160.
const MaxEdgeHashtags = 20

// edgeMaker makes TweetEdges cells (DerivedTables), its scratch slices
// (edges, terms, tags) reused from tweet to tweet.
type edgeMaker struct {
	edges []TweetEdge
	terms []Term
	tags  []string
}

func (m *edgeMaker) Cells(dst []schemas.Cell, t *schemas.Tweet) []schemas.Cell {
	if !schemas.ValidDay(t.CreatedAt) {
		return dst
	}
	m.edges, m.terms, m.tags = appendTweetEdges(m.edges[:0], m.terms, m.tags, t)
	for _, e := range m.edges {
		dst = append(dst, schemas.EdgeRow{Type: e.Type, Source: e.Source, Target: e.Target, Key: t.RowKey, ID: t.ID}.Cell())
	}
	return dst
}

// TweetEdge is one edge of a tweet.
type TweetEdge struct {
	Type           schemas.EdgeType
	Source, Target string
}

// TweetEdges returns the edges of t, as the edge table holds them:
//
//   - retweet: a tweet whose text is a retweet's ("RT @name: ...", as the
//     decoder writes it; an old-style manual retweet too), author -> name;
//   - quote: author -> the quoted tweet's author (Tweet.QuotedAuthor);
//   - reply: author -> the user replied to (Tweet.ReplyTo);
//   - mention: author -> each user the tweet mentions, but none for a
//     retweet, whose mentions are its retweeted author's;
//   - hashtag: each pair of the tweet's hashtags (the first
//     MaxEdgeHashtags), the smaller first.
//
// Mentions and hashtags are those Twitter's entities name when the tweet
// carries entities (their terms as the term index has them, EntityTerms),
// else those the term index finds in the text (its @ and # terms,
// Tokenize): not the text's when it has entities, which name what
// Twitter found in it (tokenizing the text again for the few it may
// leave out would cost a tenth of a run's CPU).
//
// Users are lower-cased screen names (Twitter's are case-insensitive), the
// author's from Tweet.ScreenName; a tweet with no author's name (a personal
// archive's) has hashtag edges only. A name that cannot be a node
// (schemas.ValidEdgeNode) makes no edge. Each edge comes once.
func TweetEdges(t *schemas.Tweet) []TweetEdge {
	edges, _, _ := appendTweetEdges(nil, nil, nil, t)
	return edges
}

// appendTweetEdges appends the edges of t to dst, using terms and tags
// as scratch, and returns all three for reuse.
func appendTweetEdges(dst []TweetEdge, terms []Term, tags []string, t *schemas.Tweet) ([]TweetEdge, []Term, []string) {
	n := len(dst)
	add := func(typ schemas.EdgeType, src, target string) {
		if !schemas.ValidEdgeNode(src) || !schemas.ValidEdgeNode(target) {
			return
		}
		e := TweetEdge{typ, src, target}
		if !slices.Contains(dst[n:], e) {
			dst = append(dst, e)
		}
	}
	author := strings.ToLower(t.ScreenName)
	retweeted := schemas.RetweetedName(t.Text)
	if retweeted != "" {
		add(schemas.EdgeRetweet, author, strings.ToLower(retweeted))
	}
	if t.QuotedAuthor != "" {
		add(schemas.EdgeQuote, author, strings.ToLower(t.QuotedAuthor))
	}
	if t.ReplyTo != "" {
		add(schemas.EdgeReply, author, strings.ToLower(t.ReplyTo))
	}
	switch {
	case t.Entities != nil:
		terms = EntityTerms(terms[:0], t.Entities)
	case strings.ContainsAny(t.Text, "#@＃＠"):
		terms = Tokenize(terms[:0], t.Text)
	default:
		return dst, terms, tags
	}
	tags = tags[:0]
	for _, term := range terms {
		switch {
		case strings.HasPrefix(term.Term, "@") && retweeted == "":
			add(schemas.EdgeMention, author, term.Term[1:])
		case strings.HasPrefix(term.Term, "#") && len(tags) < MaxEdgeHashtags:
			tags = append(tags, term.Term[1:])
		}
	}
	for i, a := range tags {
		for _, b := range tags[i+1:] {
			if a > b {
				add(schemas.EdgeHashtag, b, a)
			} else {
				add(schemas.EdgeHashtag, a, b)
			}
		}
	}
	return dst, terms, tags
}
