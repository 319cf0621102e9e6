package query

import (
	"context"
	"fmt"
	"slices"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// TokenizerVersions says which tokenizer versions wrote a sink's term rows
// (its metadata row schemas.TokenizerParam), against the version that
// tokenizes this build's questions: a term question can miss a tweet whose
// term rows another version wrote, when they lack a term the question asks
// for.
type TokenizerVersions struct {
	// Recorded is false for a sink without the row: indexed before
	// versions were recorded (by one build or several, not known), or
	// holding no tweet.
	Recorded bool
	// Stored are the versions whose term rows the sink holds, ascending
	// (schemas.TokenizerUnrecorded for tweets indexed before versions
	// were recorded); empty if not Recorded.
	Stored []int
	// Question is the version that tokenizes this build's questions
	// (transforms.TokenizerVersion).
	Question int
}

// Mixed reports whether the sink holds term rows of more than one version.
func (t TokenizerVersions) Mixed() bool { return len(t.Stored) > 1 }

// Others returns the stored versions other than the question's: those
// whose tweets a term question can miss. None for a sink without the row,
// whose version is not known.
func (t TokenizerVersions) Others() []int {
	var out []int
	for _, v := range t.Stored {
		if v != t.Question {
			out = append(out, v)
		}
	}
	return out
}

// Lacks returns what the term rows of tweets indexed with version v may
// lack that the question's version gives, a change per version after v
// (transforms.TokenizerChange); nil when v is the question's version or a
// later one, whose changes this build does not know.
func (t TokenizerVersions) Lacks(v int) []string {
	var out []string
	for w := v + 1; w <= t.Question; w++ {
		if c := transforms.TokenizerChange(w); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// TokenizerVersions reads which tokenizer versions wrote the sink's term
// rows (read once).
func (e *Engine) TokenizerVersions(ctx context.Context) (TokenizerVersions, error) {
	e.tokenizerMu.Lock()
	defer e.tokenizerMu.Unlock()
	if e.tokenizer != nil {
		return *e.tokenizer, nil
	}
	t := TokenizerVersions{Question: transforms.TokenizerVersion}
	b, ok, err := e.R.Lookup(ctx, schemas.TableMeta, []byte(schemas.TokenizerParam))
	if err != nil {
		return t, fmt.Errorf("reading %s: %w", schemas.TokenizerParam, err)
	}
	if ok {
		v, err := schemas.ParseTokenizerValue(b)
		if err != nil {
			return t, err
		}
		t.Recorded, t.Stored = true, slices.Clip(v.All())
	}
	e.tokenizer = &t
	return t, nil
}
