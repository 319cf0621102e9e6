package query

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Edge is one edge of a network over a range: its source and target
// (lower-cased screen names, or hashtags without '#') and the tweets
// that make it, its weight.
type Edge struct {
	Source, Target string
	Tweets         int64
}

// EdgeQuery asks for the edges of one kind.
type EdgeQuery struct {
	// Type is the kind of edge.
	Type schemas.EdgeType
	// Node, if set, keeps only the edges whose source or target it is
	// (lower-cased here, as the edge table holds names).
	Node string
	// Top, if above 0, keeps the Top edges of the most tweets.
	Top int
}

// ErrEdgesNotIndexed is Edges's error for a sink indexed before the edge
// table existed: its edges would miss those of the tweets stored before.
var ErrEdgesNotIndexed = errors.New("this store was indexed before the edge table existed (no " + schemas.EdgesParam + "): index its tweets into a new store to ask about edges")

// Edges answers "who retweets, quotes, replies to, mentions whom" and
// "which hashtags go together" over a range: the edges of kind q.Type of
// the tweets of f's range, each with the number of tweets that make it,
// most first (ties by source, then target). It reads the edge table
// (schemas.EdgeRow): a day of one kind is a key range, so it reads the
// days of the range, the first and last filtered to the second by each
// cell's row key. The edge table holds no language: f.Lang must be
// empty.
func (e *Engine) Edges(ctx context.Context, f Filter, q EdgeQuery) ([]Edge, error) {
	if f.Lang != "" {
		return nil, errors.New("edges: the edge table holds no language; ask without --lang")
	}
	if _, ok, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgesParam)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", schemas.EdgesParam, err)
	} else if !ok {
		return nil, ErrEdgesNotIndexed
	}
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return nil, err
	}
	first, last := max(s.from, 0), min(s.to-1, schemas.DayStart(1<<16-1)+86399)
	counts := map[string]int64{}
	node := []byte(strings.ToLower(q.Node))
	for day := schemas.Day(first); first <= last && day <= schemas.Day(last); day++ {
		start := schemas.EdgePrefix(q.Type, day)
		end := append(slices.Clip(start), 0xff) // no name begins with 0xff (UTF-8)
		whole := schemas.DayStart(day) >= s.from && schemas.DayStart(day)+86400 <= s.to
		err := e.R.Scan(ctx, schemas.TableEdges, start, end, func(key, _ []byte) error {
			src, dst, _, ok := schemas.EdgeNodes(key)
			if !ok {
				return fmt.Errorf("edges row %q malformed", key)
			}
			if !whole {
				k, _ := schemas.EdgeTweetKey(key)
				if sec := k.Seconds(); sec < s.from || sec >= s.to {
					return nil
				}
			}
			if len(node) > 0 && !bytes.Equal(src, node) && !bytes.Equal(dst, node) {
				return nil
			}
			counts[string(key[schemas.EdgePrefixLen:schemas.EdgePrefixLen+len(src)+1+len(dst)])]++
			return nil
		})
		if err != nil {
			return nil, err
		}
		if day == 1<<16-1 {
			break
		}
	}
	return topEdges(counts, q.Top), nil
}

// topEdges turns counts keyed by source, NUL, target into edges, most
// tweets first, the first top of them if top > 0.
func topEdges(counts map[string]int64, top int) []Edge {
	out := make([]Edge, 0, len(counts))
	for k, n := range counts {
		src, dst, _ := strings.Cut(k, "\x00")
		out = append(out, Edge{Source: src, Target: dst, Tweets: n})
	}
	slices.SortFunc(out, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(b.Tweets, a.Tweets), strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target))
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out
}

// Edges returns the edges as Engine.Edges does, from the raw tweets of the
// range: each decoded, its edges made as the index makes them
// (transforms.TweetEdges).
func (sc Scanner) Edges(ctx context.Context, f Filter, q EdgeQuery) ([]Edge, error) {
	counts := map[string]int64{}
	node := strings.ToLower(q.Node)
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		for _, edge := range transforms.TweetEdges(t) {
			if edge.Type == q.Type && (node == "" || edge.Source == node || edge.Target == node) {
				counts[edge.Source+"\x00"+edge.Target]++
			}
		}
		return nil
	})
	return topEdges(counts, q.Top), err
}
