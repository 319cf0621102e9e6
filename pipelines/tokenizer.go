package pipelines

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Tokenizer versions. The term rows of a tweet are what the tokenizer of
// the build that indexed it made of it (transforms.TokenizerVersion), and a
// question about terms is tokenized by the build that asks it: when a sink
// holds term rows of another version, a question can miss the tweets whose
// rows lack a term it asks for. The sink's metadata row
// schemas.TokenizerParam names the versions its term rows were written
// with; Run writes it when indexing begins into an empty sink, and refuses
// to add tweets to a sink indexed with another version (or before versions
// were recorded) unless Config.MixTokenizers says to, in which case the
// row records every version the sink then holds, so that questions know
// (query.Engine.TokenizerVersions).

// TokenizerMixError is Run's refusal to add tweets to a sink whose term
// rows were written with another tokenizer version, before anything runs.
type TokenizerMixError struct {
	// Sink names the sink: "store DIR" or "keyspace K".
	Sink string
	// Stored are the versions the sink holds, ascending
	// (schemas.TokenizerUnrecorded for tweets indexed before versions
	// were recorded).
	Stored []int
	// Version is this build's (transforms.TokenizerVersion).
	Version int
}

func (e *TokenizerMixError) Error() string {
	held, differ := "tweets indexed with tokenizer "+TokenizerVersionsText(e.Stored), "differ"
	if slices.Equal(e.Stored, []int{schemas.TokenizerUnrecorded}) {
		held, differ = "tweets indexed before tokenizer versions were recorded (no "+schemas.TokenizerParam+" row)", "may differ"
	}
	return fmt.Sprintf("%s holds %s, and this build's tokenizer is version %d, whose term rows %s: index into a fresh store or keyspace, or pass --mix-tokenizers to add to it anyway (term questions then say which tweets they can miss)",
		e.Sink, held, e.Version, differ)
}

// TokenizerVersionsText names tokenizer versions: "version 2", "versions
// 1 and 2", "versions 0 (before versions were recorded) and 1" (the
// refusal's message and the questions' note).
func TokenizerVersionsText(vs []int) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = strconv.Itoa(v)
		if v == schemas.TokenizerUnrecorded {
			names[i] += " (before versions were recorded)"
		}
	}
	if len(names) == 1 {
		return "version " + names[0]
	}
	return "versions " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// sinkName names cfg's sink in messages.
func sinkName(cfg Config) string {
	if cfg.Cassandra != nil {
		return "keyspace " + cfg.Cassandra.WithDefaults().Keyspace
	}
	return "store " + cfg.Store
}

// tokenizerParam returns the cell of schemas.TokenizerParam to write with
// the run's first record, if any, or the run's refusal (a
// *TokenizerMixError). A sink that holds no tweet (fresh: no identity row)
// and no term row gets this build's version, whatever its row said (the
// rows it named are gone, or never were). Any other sink keeps its row if
// the row names this build's version; else the run is refused, unless
// cfg.MixTokenizers, when the row gains this version.
func tokenizerParam(ctx context.Context, cfg Config, s sink.Reader, fresh bool) ([]schemas.Cell, error) {
	current := transforms.TokenizerVersion
	if fresh {
		empty, err := tableEmpty(ctx, s, schemas.TableTerms)
		if err != nil {
			return nil, err
		}
		if empty {
			return []schemas.Cell{schemas.TokenizerValue{Version: current}.Cell()}, nil
		}
	}
	stored := schemas.TokenizerValue{Version: schemas.TokenizerUnrecorded}
	b, ok, err := s.Lookup(ctx, schemas.TableMeta, []byte(schemas.TokenizerParam))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", schemas.TokenizerParam, err)
	}
	if ok {
		if stored, err = schemas.ParseTokenizerValue(b); err != nil {
			return nil, err
		}
	}
	if slices.Contains(stored.All(), current) {
		return nil, nil
	}
	if !cfg.MixTokenizers {
		return nil, &TokenizerMixError{Sink: sinkName(cfg), Stored: stored.All(), Version: current}
	}
	return []schemas.Cell{stored.With(current).Cell()}, nil
}

// tableEmpty reports whether table holds no cell.
func tableEmpty(ctx context.Context, r sink.Reader, table schemas.Table) (bool, error) {
	empty := true
	err := r.ScanAll(ctx, table, func(_, _ []byte) error {
		empty = false
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return false, fmt.Errorf("reading the %s table: %w", table.Name(), err)
	}
	return empty, nil
}
