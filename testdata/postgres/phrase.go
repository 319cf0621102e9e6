package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Phrases in PostgreSQL, by the project's tokenizer. PostgreSQL's own
// parser reads a text otherwise (phraseto_tsquery('simple', '#climate
// don''t') is 'climate' <-> 'don' <-> 't'), so both sides of a phrase
// question are built from transforms' tokens: each tweet's tsvector is
// the text's terms at their positions (TextPostings, 'term':position,
// the positions counted from 1; a hashtag's terms share one), and the
// question is the tsquery phraseto_tsquery would make of the same tokens
// (PhrasePostings): 'climate' <-> 'change', with <N> across a one-letter
// word, which holds its position as a stop word does in PostgreSQL.

// lexeme quotes a term as a tsvector or tsquery literal does.
func lexeme(term string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(term, `\`, `\\`), "'", "''") + "'"
}

// tsvectorText renders postings as a tsvector literal: 'term':pos ...
func tsvectorText(posts []transforms.Posting) string {
	var b strings.Builder
	for i, p := range posts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(lexeme(p.Term))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(min(p.Pos+1, 16383))) // PostgreSQL's largest position
	}
	return b.String()
}

// tsqueryText renders the phrase q as a tsquery literal of the project's
// tokens ('climate' <-> 'change'), or "" if q holds no term.
func tsqueryText(q string) string {
	var b strings.Builder
	ps := transforms.PhrasePostings(q)
	for i, p := range ps {
		if i > 0 {
			if d := p.Pos - ps[i-1].Pos; d == 1 {
				b.WriteString(" <-> ")
			} else {
				fmt.Fprintf(&b, " <%d> ", d)
			}
		}
		b.WriteString(lexeme(p.Term))
	}
	return b.String()
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pickPhrase returns a phrase of two words of the bench's hour: the bench
// term and the word after it in the first tweet of the hour that holds
// it so.
func pickPhrase(ctx context.Context, e *query.Engine, b query.BenchSetup) (string, error) {
	var phrase string
	var posts []transforms.Posting
	err := e.Terms(ctx, b.Hour, []string{b.Term}, query.And, "text", query.Page{}, func(h query.Hit) error {
		t, err := h.Tweet()
		if err != nil || phrase != "" {
			return err
		}
		posts = transforms.TextPostings(posts[:0], t.Text)
		for i, p := range posts {
			for _, q := range posts[i+1:] {
				if p.Term == b.Term && q.Pos == p.Pos+1 {
					phrase = p.Term + " " + q.Term
					return nil
				}
			}
		}
		return nil
	})
	if err == nil && phrase == "" {
		err = fmt.Errorf("no tweet of the hour holds %q and a word after it", b.Term)
	}
	return phrase, err
}

// phraseQuestion is the phrase question of the bench: question 12.
func phraseQuestion(b query.BenchSetup, phrase string) question {
	tsq := sqlString(tsqueryText(phrase)) + "::tsquery"
	q := question{number: 12, text: fmt.Sprintf("tweets with the phrase %q (all)", phrase),
		timed:  "select id, json from tweets where words @@ " + tsq + " order by created_at",
		answer: "select id from tweets where words @@ " + tsq + " order by id",
		retrieve: func(ctx context.Context, e *query.Engine, emit func(query.Hit) error) error {
			return e.Search(ctx, b.All, query.Search{Phrases: []string{phrase}, Op: query.And, Field: "text"}, query.Page{}, emit)
		}}
	q.index = func(ctx context.Context, e *query.Engine) (string, error) {
		return ids(func(emit func(query.Hit) error) error { return q.retrieve(ctx, e, emit) })
	}
	return q
}

// loadWords copies the id and the tsvector of every tweet of e into a
// table of its own (no PostGIS needed): what the phrase test asks.
func (p pg) loadWords(ctx context.Context, e *query.Engine, table string) (int64, error) {
	if err := p.exec(ctx, "drop table if exists "+table+"; create table "+table+" (id bigint primary key, words tsvector not null);"); err != nil {
		return 0, err
	}
	var posts []transforms.Posting
	return p.copyIn(ctx, table, e, func(line []byte, _ query.Hit, t *schemas.Tweet) []byte {
		posts = transforms.TextPostings(posts[:0], t.Text)
		line = strconv.AppendUint(line, t.ID, 10)
		line = append(line, '\t')
		return copyText(line, tsvectorText(posts))
	})
}
