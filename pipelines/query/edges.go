package query

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
// most first (ties by source, then target). A day of one kind is a key
// range of the edge table (schemas.EdgeRow) and of the per-day edge
// weights (schemas.EdgeDayRow): the days the range holds whole are read
// from the weights, a row per distinct edge of the day, and the partial
// first and last days from the edge cells, a cell per tweet and edge,
// filtered to the second by each cell's row key. A whole day marked for a
// recount of its weights (schemas.EdgeDayMark: a stream writing it, until
// it stops; a run that died before its recount) is read from its edge
// cells too. A sink indexed before the weights existed (no
// schemas.EdgeDaysParam) is read from the edge cells alone: the same
// answer, in a time that grows with the tweets (EdgeWeightsIndexed). The
// edge table holds no language: f.Lang must be empty.
func (e *Engine) Edges(ctx context.Context, f Filter, q EdgeQuery) ([]Edge, error) {
	if f.Lang != "" {
		return nil, errors.New("edges: the edge table holds no language; ask without --lang")
	}
	if _, ok, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgesParam)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", schemas.EdgesParam, err)
	} else if !ok {
		return nil, ErrEdgesNotIndexed
	}
	weights, err := e.EdgeWeightsIndexed(ctx)
	if err != nil {
		return nil, err
	}
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return nil, err
	}
	first, last := max(s.from, 0), min(s.to-1, schemas.DayStart(1<<16-1)+86399)
	counts := map[string]int64{}
	node := []byte(strings.ToLower(q.Node))
	keep := func(src, dst []byte) bool {
		return len(node) == 0 || bytes.Equal(src, node) || bytes.Equal(dst, node)
	}
	for day := schemas.Day(first); first <= last && day <= schemas.Day(last); day++ {
		start := schemas.EdgePrefix(q.Type, day)
		end := append(slices.Clip(start), 0xff) // no name begins with 0xff (UTF-8)
		whole := schemas.DayStart(day) >= s.from && schemas.DayStart(day)+86400 <= s.to
		fromWeights := whole && weights
		if fromWeights {
			// A day marked for a recount (a stream's, until it stops; a
			// run's that died before its recount) has edge cells its
			// weights do not count yet.
			_, marked, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgeDayMark(day)))
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", schemas.EdgeDayMark(day), err)
			}
			fromWeights = !marked
		}
		var err error
		if fromWeights {
			err = e.R.Scan(ctx, schemas.TableEdgeDays, start, end, func(key, value []byte) error {
				src, dst, ok := schemas.EdgeDayNodes(key)
				if !ok {
					return fmt.Errorf("edgedays row %q malformed", key)
				}
				if !keep(src, dst) {
					return nil
				}
				n, err := strconv.ParseInt(string(value), 10, 64)
				if err != nil {
					return fmt.Errorf("edgedays row %q: count %q: %w", key, value, err)
				}
				counts[string(key[schemas.EdgePrefixLen:])] += n
				return nil
			})
		} else {
			err = e.R.Scan(ctx, schemas.TableEdges, start, end, func(key, _ []byte) error {
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
				if !keep(src, dst) {
					return nil
				}
				counts[string(key[schemas.EdgePrefixLen:schemas.EdgePrefixLen+len(src)+1+len(dst)])]++
				return nil
			})
		}
		if err != nil {
			return nil, err
		}
		if day == 1<<16-1 {
			break
		}
	}
	return topEdges(counts, q.Top), nil
}

// EdgeWeightsIndexed reports whether the sink keeps the per-day edge
// weights of every day of its edge table (the metadata row
// schemas.EdgeDaysParam, written when indexing began into an empty sink),
// so that Edges reads them for whole days. If not (a sink indexed before
// they existed), Edges reads the edge cells of every day instead: the
// same answer, more slowly.
func (e *Engine) EdgeWeightsIndexed(ctx context.Context) (bool, error) {
	e.edgeWeightsMu.Lock()
	defer e.edgeWeightsMu.Unlock()
	if !e.edgeWeightsKnown {
		_, ok, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgeDaysParam))
		if err != nil {
			return false, fmt.Errorf("reading %s: %w", schemas.EdgeDaysParam, err)
		}
		e.edgeWeightsKnown, e.edgeWeightsIndexed = true, ok
	}
	return e.edgeWeightsIndexed, nil
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
