package maintain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Forgetting a list of tweet ids (tweetindex forget) is a delete applied
// outside a pipeline, through the pipeline's own code: the ids go, as the
// Deletes of a transforms.TweetBatch, through transforms.Identifier over
// the sink's identity table (which reads back each stored version and
// leaves a tombstone), and the batch it returns through the RawFn and the
// derived tables' cells (transforms.DeriveBatch) that a run uses, which give the cells to delete (raw, authors,
// term and geo rows of the stored version), the tombstones and the marks of the
// minutes to recount. The marked minutes are then recounted from the raw
// table, as after a run. So a forgotten id is exactly a deleted one: its
// rows go, and a later run over older files does not bring it back.

// ForgetSummary is what forget did.
type ForgetSummary struct {
	// Read counts the lines that named a tweet id; Distinct the ids among
	// them.
	Read     int `json:"read"`
	Distinct int `json:"distinct"`
	// Forgotten counts the ids whose stored tweet was removed (its raw,
	// term and geo rows).
	Forgotten int `json:"forgotten"`
	// AlreadyAbsent counts the ids the tables did not hold: deleted
	// before (AlreadyDeleted of them, whose tombstone was there) or never
	// stored (a tombstone is written for them, so that a later run does
	// not store them).
	AlreadyAbsent  int `json:"already_absent"`
	AlreadyDeleted int `json:"already_deleted"`
	// NotDeletes counts compliance events whose action is not a delete
	// (scrub_geo, protect, ...): not applied.
	NotDeletes int `json:"not_deletes"`
	// BadLines counts the lines that are neither an id, nor a JSON object
	// with one, nor blank.
	BadLines int `json:"bad_lines"`
	// RowsDeleted counts the cells deleted (raw, authors, terms, geo).
	RowsDeleted int `json:"rows_deleted"`
	// Recounted counts the minutes whose frequency cells were recounted.
	Recounted int     `json:"recounted"`
	Seconds   float64 `json:"seconds"`
}

// BadLine is a line of an id list that names no tweet id.
type BadLine struct {
	Line   int
	Reason string
}

// IDList is a list of tweet ids read by ReadIDList.
type IDList struct {
	// IDs are the ids, in the order read (repeats included).
	IDs []uint64
	// NotDeletes counts compliance events whose action is not "delete".
	NotDeletes int
	// Bad are the lines that name no id.
	Bad []BadLine
}

// ReadIDList reads a list of tweet ids, one a line: a decimal id, or a
// JSON object with "id_str" or "id" (a string or an integer): a twarc2
// compliance-job result line ({"id":"...","action":"delete",...}), a v2
// tweet, a v1.1 tweet, or a v1.1 delete notice ({"delete":{"status":
// {"id_str":...}}}). An object whose "action" is not "delete" (scrub_geo,
// protect, ...) is counted in NotDeletes, not listed. Blank lines are
// skipped.
func ReadIDList(r io.Reader) (IDList, error) {
	var out IDList
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		id, skip, err := parseIDLine(line)
		switch {
		case err != nil:
			out.Bad = append(out.Bad, BadLine{Line: n, Reason: err.Error()})
		case skip:
			out.NotDeletes++
		default:
			out.IDs = append(out.IDs, id)
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading the ids: %w", err)
	}
	return out, nil
}

// parseIDLine returns the tweet id a line names, or skip for a compliance
// event that is not a delete.
func parseIDLine(line []byte) (id uint64, skip bool, err error) {
	if line[0] != '{' {
		id, err := strconv.ParseUint(string(line), 10, 64)
		if err != nil || id == 0 {
			return 0, false, fmt.Errorf("not a tweet id: %.40q", line)
		}
		return id, false, nil
	}
	var obj struct {
		ID     json.RawMessage `json:"id"`
		IDStr  string          `json:"id_str"`
		Action *string         `json:"action"`
		Delete *struct {
			Status struct {
				IDStr string `json:"id_str"`
			} `json:"status"`
		} `json:"delete"`
	}
	if err := json.Unmarshal(line, &obj); err != nil {
		return 0, false, fmt.Errorf("broken JSON: %w", err)
	}
	if obj.Action != nil && *obj.Action != "delete" {
		return 0, true, nil
	}
	s := obj.IDStr
	switch {
	case obj.Delete != nil && obj.Delete.Status.IDStr != "":
		s = obj.Delete.Status.IDStr
	case s == "" && len(obj.ID) > 0:
		s = string(bytes.Trim(obj.ID, `"`)) // "123" (v2, twarc2) or 123
	}
	if s == "" {
		return 0, false, errors.New(`no "id_str" or "id"`)
	}
	id, err = strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, false, fmt.Errorf("id %.40q is not a tweet id", s)
	}
	return id, false, nil
}

// forgetBatch is how many ids forget looks up and deletes at a time.
const forgetBatch = 512

// Forget deletes the tweets of ids from the tables of the sink s (the
// embedded store or Cassandra) as a compliance delete in a run does: each stored
// tweet's raw row and its rows in every table derived from it
// (transforms.DerivedTables) are deleted, a tombstone is left for every id (so that a later run over older files does not store it
// again), and the frequency cells of the minutes touched are recounted
// from the raw table. The forget is recorded in the metadata table under
// schemas.ForgetPrefix. Forgetting the same ids again changes nothing.
func Forget(ctx context.Context, s *sink.Sink, list IDList) (ForgetSummary, error) {
	started := time.Now()
	sum := ForgetSummary{Read: len(list.IDs), NotDeletes: list.NotDeletes, BadLines: len(list.Bad)}
	ids := slices.Compact(slices.Sorted(slices.Values(list.IDs)))
	sum.Distinct = len(ids)
	// The stored versions' term and geo rows, then their raw rows, are
	// deleted by Identify itself, each durable before the next
	// (transforms.Identifier.Write).
	x := transforms.Identifier{Sink: s.Identities(), Write: s.Write}
	var raw transforms.RawFn
	for len(ids) > 0 {
		chunk := ids[:min(forgetBatch, len(ids))]
		ids = ids[len(chunk):]
		x.StartBundle()
		out, err := x.Identify(ctx, transforms.TweetBatch{Deletes: chunk})
		if err != nil {
			return sum, fmt.Errorf("forget: %w", err)
		}
		// The cells a run writes for these deletes, in two writes: the
		// stored versions' rows (and the marks of their minutes) first,
		// the tombstones after, so that a forget that dies between them
		// finds the ids without a tombstone when run again, and deletes
		// what is left.
		var rows, tombstones []schemas.Cell
		collect := func(cells []schemas.Cell) {
			for _, c := range cells {
				switch {
				case c.Table == schemas.TableIdentity:
					tombstones = append(tombstones, c)
				case c.Delete:
					sum.RowsDeleted++
					rows = append(rows, c)
				default:
					rows = append(rows, c)
				}
			}
		}
		raw.ProcessElement(out, collect)
		collect(transforms.DeriveBatch(nil, &out))
		if len(rows) > 0 {
			if err := s.Write(ctx, rows); err != nil {
				return sum, fmt.Errorf("forget: deleting rows: %w", err)
			}
		}
		if len(tombstones) > 0 {
			if err := s.Write(ctx, tombstones); err != nil {
				return sum, fmt.Errorf("forget: writing tombstones: %w", err)
			}
		}
		sum.Forgotten += len(out.Retracted)
		sum.AlreadyDeleted += len(chunk) - len(out.Deletes)
		sum.AlreadyAbsent += len(chunk) - len(out.Retracted)
	}
	var err error
	if sum.Recounted, err = RecountMarked(ctx, s); err != nil {
		return sum, fmt.Errorf("forget: %w", err)
	}
	sum.Seconds = time.Since(started).Seconds()
	rec, _ := json.Marshal(sum)
	err = s.Write(ctx, []schemas.Cell{schemas.MetaRow{Name: schemas.ForgetPrefix + started.UTC().Format(time.RFC3339Nano), Value: rec}.Cell()})
	if err != nil {
		return sum, fmt.Errorf("forget: recording it in the metadata table: %w", err)
	}
	return sum, nil
}
