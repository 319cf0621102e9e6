package transforms

import "github.com/tweetindex/tweetindex/schemas"

// The TweetAuthors table (schemas.AuthorRow): one cell beside each raw
// cell, keyed alike, holding the tweet's language and its author's
// lower-cased screen name. RawFn writes it with the raw cell and deletes
// it with the raw cell (a version replaced, a tweet deleted or forgotten),
// so the two tables hold the same keys; pipelines' rebuild of a dead
// stream's minutes writes it again from the raw rows.

// AuthorCells appends the TweetAuthors cell of each of tweets to dst.
func AuthorCells(dst []schemas.Cell, tweets []schemas.Tweet) []schemas.Cell {
	for i := range tweets {
		dst = append(dst, AuthorCell(&tweets[i]))
	}
	return dst
}

// AuthorCell returns the TweetAuthors cell of t (its RowKey set).
func AuthorCell(t *schemas.Tweet) schemas.Cell {
	return schemas.AuthorRow{Key: t.RowKey, ID: t.ID, Lang: t.Lang, ScreenName: t.ScreenName}.Cell()
}

// authorDelete returns the cell that deletes the TweetAuthors cell of t.
func authorDelete(t *schemas.Tweet) schemas.Cell {
	return deleteOf(schemas.AuthorRow{Key: t.RowKey, ID: t.ID}.Cell())
}
