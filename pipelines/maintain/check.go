package maintain

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// TableCheck is what Check found in one table.
type TableCheck struct {
	// Rows is the cells the table holds (read by the check).
	Rows int64 `json:"rows"`
	// Missing is the cells the stored tweets call for that the table
	// lacks; Wrong those it holds with another value.
	Missing int64 `json:"missing"`
	Wrong   int64 `json:"wrong"`
	// Orphans is the cells of tweets the raw table does not hold (a
	// frequency cell: a minute and language without a stored tweet; an
	// identity row: pointing at a row key no raw row holds).
	Orphans int64 `json:"orphans"`
	// Versions, of the raw table alone, is the stored tweets that must go
	// because another version of their id is kept (one id, one stored
	// tweet; builds before it could store two versions of an id with
	// different created_at in one run) or because their id's identity row
	// is a tombstone (a deletion that reached only one of those versions).
	Versions int64 `json:"versions,omitempty"`
}

// Problems is the table's missing, wrong, orphaned and extra cells.
func (c TableCheck) Problems() int64 { return c.Missing + c.Wrong + c.Orphans + c.Versions }

// CheckReport is what Check found, and repaired.
type CheckReport struct {
	// Tweets is the stored tweets read (raw rows).
	Tweets int64 `json:"tweets"`
	// Tables is by table name: the tables derived from the stored tweets
	// (raw aside, which is the reference), identity and frequency.
	Tables map[string]TableCheck `json:"tables"`
	// Examples are the first problems found, one line each.
	Examples []string `json:"examples,omitempty"`
	// Repaired is the cells written or deleted by a repair.
	Repaired int64   `json:"repaired"`
	Seconds  float64 `json:"seconds"`
}

// Problems is the number of problems found in every table.
func (r CheckReport) Problems() int64 {
	var n int64
	for _, t := range r.Tables {
		n += t.Problems()
	}
	return n
}

// CheckExamples is how many problems a report describes.
const CheckExamples = 10

// checkBatch is how many cells a repair writes at once.
const checkBatch = 10000

// expected is a cell a stored tweet (id) calls for.
type expected struct {
	cell schemas.Cell
	id   uint64
}

// seekAll finds the cells of want (sorted by table and key) in the store
// with one cursor a table, each seek after the one before: far cheaper
// than a Get each, which sets up an iterator over every level.
func seekAll(ctx context.Context, st *storeio.Store, want []expected, found [][]byte, ok []bool) error {
	for len(want) > 0 {
		table := want[0].cell.Table
		n := 1
		for n < len(want) && want[n].cell.Table == table {
			n++
		}
		cur, err := st.NewCursor(ctx, table, want[0].cell.Key, nil)
		if err != nil {
			return fmt.Errorf("check: reading %s: %w", table.Name(), err)
		}
		for i, e := range want[:n] {
			if !cur.SeekGE(e.cell.Key) || !bytes.Equal(cur.Key(), e.cell.Key) {
				continue
			}
			v, err := cur.Value()
			if err != nil {
				cur.Close()
				return err
			}
			found[i], ok[i] = bytes.Clone(v), true
		}
		if err := cur.Close(); err != nil {
			return err
		}
		want, found, ok = want[n:], found[n:], ok[n:]
	}
	return nil
}

// checkTweets is how many stored tweets' cells Check looks up together,
// checkLookups at a time.
const (
	checkTweets  = 20000
	checkLookups = 32
)

// Check reads every stored tweet of r's raw table and holds the other
// tables to it, as a run would have written them from those tweets: each
// tweet's cells of the tables derived from it (identity, authors, terms,
// geo, edges; transforms.RawCells and DeriveTweet) must be there with
// their values, every cell of those tables must belong to a stored tweet
// (schemas.TableSpec.TweetKey), every identity row that names a row key
// must name a stored tweet, the frequency table must hold, for each
// minute and language, the number of stored tweets, and the per-day edge
// weights, in a sink that keeps them, the number of each edge's cells on
// each day (checkedgedays.go). With write set, it
// repairs what it finds: writes the missing and wrong cells and the
// right counts, and deletes the orphans (it then reports what it found,
// and Repaired), then, in a sink that keeps per-day term counts,
// recounts those of the days whose tweets' raw, authors or term cells it
// wrote or deleted (termdays.go: the counts are not held to the tweets,
// only recounted). A row key holding two tweets (a collision) shares its
// term and geo cells, whose values are the kept tweet's: their values are
// not compared.
//
// It reads the raw table once and every other table once (Lookup of each
// cell a tweet calls for; a ScanAll of each table), keeping the stored
// row keys in memory (12 bytes each) and the counts of each minute.
func Check(ctx context.Context, r sink.Reader, write func(context.Context, []schemas.Cell) error) (CheckReport, error) {
	started := time.Now()
	rep := CheckReport{Tables: map[string]TableCheck{}}
	tables := map[schemas.Table]*TableCheck{}
	tc := func(t schemas.Table) *TableCheck {
		if tables[t] == nil {
			tables[t] = &TableCheck{}
		}
		return tables[t]
	}
	var fix []schemas.Cell
	flush := func(force bool) error {
		if write == nil || len(fix) == 0 || !force && len(fix) < checkBatch {
			return nil
		}
		if err := write(ctx, fix); err != nil {
			return fmt.Errorf("check: repairing: %w", err)
		}
		rep.Repaired += int64(len(fix))
		fix = fix[:0]
		return nil
	}
	// The per-day edge weights, held to the edge cells (checkedgedays.go),
	// in a sink that keeps them.
	var edgeDays *edgeDayCheck
	if _, kept, err := r.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgeDaysParam)); err != nil {
		return rep, fmt.Errorf("check: reading %s: %w", schemas.EdgeDaysParam, err)
	} else if kept {
		edgeDays = newEdgeDayCheck()
	}
	// The per-day term counts, in a sink that keeps them, are recounted
	// after a repair for the days of the tweets it adds or removes, or
	// whose term or authors cells it writes (termdays.go); they are not
	// held to the tweets.
	var termDays map[uint16]bool
	if _, kept, err := r.Lookup(ctx, schemas.TableMeta, []byte(schemas.TermDaysParam)); err != nil {
		return rep, fmt.Errorf("check: reading %s: %w", schemas.TermDaysParam, err)
	} else if kept && write != nil {
		termDays = map[uint16]bool{}
	}
	problem := func(table schemas.Table, what func(*TableCheck), fixed schemas.Cell, format string, args ...any) {
		what(tc(table))
		if edgeDays != nil {
			edgeDays.repair(fixed)
		}
		if termDays != nil {
			if d, ok := termDayOf(fixed); ok {
				termDays[d] = true
			}
		}
		if len(rep.Examples) < CheckExamples {
			rep.Examples = append(rep.Examples, table.Name()+": "+fmt.Sprintf(format, args...))
		}
		if write != nil {
			fix = append(fix, fixed)
		}
	}
	missing := func(t *TableCheck) { t.Missing++ }
	wrong := func(t *TableCheck) { t.Wrong++ }
	orphan := func(t *TableCheck) { t.Orphans++ }

	// The stored tweets, and the cells each calls for.
	var keys []schemas.RowKey
	counts := map[string]int64{} // frequency key -> stored tweets
	type shared struct {
		cell schemas.Cell
		id   uint64
	}
	var wrongShared []shared // values that differ, of cells keyed by row key alone: judged once collisions are known
	var d schemas.Decoder
	var out schemas.Decoded
	markers := map[string]bool{}
	var misses []identityMiss // identity cells not as the tweet read calls for
	// The cells the tweets call for, looked up checkLookups at a time
	// once checkTweets tweets have called for theirs (a Cassandra lookup
	// is a round trip).
	var pending []expected
	lookupAll := func() error {
		// In key order, each of checkLookups readers a run of neighbouring
		// keys: a store reads each block once for the many keys it holds.
		slices.SortFunc(pending, func(a, b expected) int {
			if a.cell.Table != b.cell.Table {
				return int(a.cell.Table) - int(b.cell.Table)
			}
			return bytes.Compare(a.cell.Key, b.cell.Key)
		})
		found := make([][]byte, len(pending))
		ok := make([]bool, len(pending))
		g, gctx := errgroup.WithContext(ctx)
		per := (len(pending) + checkLookups - 1) / checkLookups
		for lo := 0; lo < len(pending); lo += per {
			g.Go(func() error {
				hi := min(lo+per, len(pending))
				if st, isStore := r.(*storeio.Store); isStore {
					return seekAll(gctx, st, pending[lo:hi], found[lo:hi], ok[lo:hi])
				}
				for i := lo; i < hi; i++ {
					c := pending[i].cell
					v, o, err := r.Lookup(gctx, c.Table, c.Key)
					if err != nil {
						return fmt.Errorf("check: reading %s: %w", c.Table.Name(), err)
					}
					found[i], ok[i] = v, o
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i, e := range pending {
			c := e.cell
			switch {
			case c.Table == schemas.TableIdentity && (!ok[i] || !bytes.Equal(found[i], c.Value)):
				// Judged once every version of the id is known (versions).
				misses = append(misses, identityMiss{id: e.id, key: schemas.RowKey(c.Value), found: found[i], ok: ok[i]})
			case !ok[i]:
				problem(c.Table, missing, c, "no cell %x of tweet %d", c.Key, e.id)
			case bytes.Equal(found[i], c.Value):
			case c.Table.Spec().Earlier != nil && c.Table.Spec().Earlier(found[i], c.Value):
				// As an earlier build wrote it, and read as well.
			case c.Table.Spec().Shared:
				wrongShared = append(wrongShared, shared{c, e.id})
			default:
				problem(c.Table, wrong, c, "cell %x of tweet %d holds %q, want %q", c.Key, e.id, found[i], c.Value)
			}
		}
		pending = pending[:0]
		return flush(false)
	}
	var cells []schemas.Cell
	err := r.ScanAll(ctx, schemas.TableRaw, func(key, value []byte) error {
		row, err := schemas.DecodeRaw(key, value)
		if err != nil {
			return fmt.Errorf("check: raw row %x: %w", key, err)
		}
		out.Reset()
		d.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: value}, &out)
		if len(out.Tweets) != 1 {
			return fmt.Errorf("check: raw row %x does not decode to one tweet", key)
		}
		t := &out.Tweets[0]
		t.RowKey = row.Key
		rep.Tweets++
		keys = append(keys, row.Key)
		counts[string(schemas.FrequencyRow{Minute: schemas.Minute(t.CreatedAt), Lang: t.Lang}.Cell().Key)]++
		cells = transforms.RawCells(cells[:0], out.Tweets[:1])
		cells = transforms.DeriveTweet(cells, t)
		for _, c := range cells {
			if c.Table == schemas.TableRaw {
				continue
			}
			if c.Table == schemas.TableMeta { // a geo day marker
				if markers[string(c.Key)] {
					continue
				}
				markers[string(c.Key)] = true
			}
			// The decoder's tweet is reused: the cells keep their own bytes.
			c.Key, c.Value = bytes.Clone(c.Key), bytes.Clone(c.Value)
			pending = append(pending, expected{c, t.ID})
		}
		if rep.Tweets%checkTweets == 0 {
			return lookupAll()
		}
		return nil
	})
	if err == nil {
		err = lookupAll()
	}
	if err != nil {
		return rep, err
	}
	byKey := func(a, b schemas.RowKey) int { return bytes.Compare(a[:], b[:]) }
	slices.SortFunc(keys, byKey)
	// stored says whether a tweet is stored under k, and collided whether
	// two are (keys holds a row key once for each of its tweets).
	holds := func(k schemas.RowKey) bool {
		_, found := slices.BinarySearchFunc(keys, k, byKey)
		return found
	}
	collided := func(k schemas.RowKey) bool {
		i, found := slices.BinarySearchFunc(keys, k, byKey)
		return found && i+1 < len(keys) && keys[i+1] == k
	}
	hasRaw := func(id uint64, k schemas.RowKey) (bool, error) {
		_, ok, err := r.Lookup(ctx, schemas.TableRaw, schemas.RawRow{Key: k, ID: id}.Cell().Key)
		if err != nil {
			return false, fmt.Errorf("check: reading tweet %d under %s: %w", id, k, err)
		}
		return ok, nil
	}
	gone, err := versionsToRemove(misses, hasRaw)
	if err != nil {
		return rep, err
	}
	for _, m := range gone.identity {
		what := wrong
		if !m.ok {
			what = missing
		}
		problem(schemas.TableIdentity, what, schemas.IdentityRow{ID: m.id, Key: m.key}.Cell(), "tweet %d: its identity row does not name its stored tweet under %s", m.id, m.key)
	}
	for _, v := range gone.versions {
		// A version that goes: its raw row, and its minute's count. Its
		// other cells are orphans once no tweet is stored under its row
		// key (found below); if another is, those not shared go with it.
		raw := schemas.RawRow{Key: v.key, ID: v.id}.Cell()
		data, ok, err := r.Lookup(ctx, schemas.TableRaw, raw.Key)
		if err != nil {
			return rep, fmt.Errorf("check: reading tweet %d under %s: %w", v.id, v.key, err)
		}
		if !ok {
			continue
		}
		out.Reset()
		d.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: data}, &out)
		if len(out.Tweets) != 1 {
			return rep, fmt.Errorf("check: tweet %d under %s does not decode to one tweet", v.id, v.key)
		}
		t := &out.Tweets[0]
		t.RowKey = v.key
		freq := string(schemas.FrequencyRow{Minute: schemas.Minute(t.CreatedAt), Lang: t.Lang}.Cell().Key)
		if counts[freq]--; counts[freq] == 0 {
			delete(counts, freq)
		}
		if i, found := slices.BinarySearchFunc(keys, v.key, byKey); found {
			keys = slices.Delete(keys, i, i+1)
		}
		problem(schemas.TableRaw, func(t *TableCheck) { t.Versions++ }, schemas.Cell{Table: schemas.TableRaw, Key: raw.Key, Delete: true}, "%s", v.why)
		if !holds(v.key) {
			continue
		}
		cells = transforms.DeriveTweet(append(cells[:0], transforms.AuthorCell(t)), t)
		for _, c := range cells {
			if spec := c.Table.Spec(); spec.Derived && !spec.Shared {
				del := schemas.Cell{Table: c.Table, Key: bytes.Clone(c.Key), Delete: true}
				if edgeDays != nil {
					edgeDays.repair(del)
				}
				if write != nil {
					fix = append(fix, del)
				}
			}
		}
	}
	for _, s := range wrongShared {
		k, _ := s.cell.Table.Spec().TweetKey(s.cell.Key)
		if !collided(k) {
			problem(s.cell.Table, wrong, s.cell, "cell %x of tweet %d holds another value", s.cell.Key, s.id)
		}
	}

	// Every cell of the derived tables belongs to a stored tweet.
	for _, spec := range schemas.Registry() {
		if !spec.Derived || spec.Table == schemas.TableRaw {
			continue
		}
		err := r.ScanAll(ctx, spec.Table, func(key, _ []byte) error {
			tc(spec.Table).Rows++
			if spec.Table == schemas.TableEdges && edgeDays != nil {
				edgeDays.edgeCell(key)
			}
			if k, ok := spec.TweetKey(key); !ok || !holds(k) {
				problem(spec.Table, orphan, schemas.Cell{Table: spec.Table, Key: bytes.Clone(key), Delete: true}, "cell %x belongs to no stored tweet", key)
			}
			return flush(false)
		})
		if err != nil {
			return rep, fmt.Errorf("check: reading %s: %w", spec.Name, err)
		}
	}

	// Identity rows that name a row key name a stored tweet.
	err = r.ScanAll(ctx, schemas.TableIdentity, func(key, value []byte) error {
		tc(schemas.TableIdentity).Rows++
		row, err := schemas.DecodeIdentity(key, value)
		if err != nil {
			return fmt.Errorf("check: identity row %x: %w", key, err)
		}
		if !row.Deleted && !holds(row.Key) {
			problem(schemas.TableIdentity, orphan, schemas.Cell{Table: schemas.TableIdentity, Key: bytes.Clone(key), Delete: true}, "tweet %d names row key %s, which holds no stored tweet", row.ID, row.Key)
		}
		return flush(false)
	})
	if err != nil {
		return rep, fmt.Errorf("check: reading identity: %w", err)
	}

	// Each minute and language counts its stored tweets.
	seen := map[string]bool{}
	err = r.ScanAll(ctx, schemas.TableFrequency, func(key, value []byte) error {
		tc(schemas.TableFrequency).Rows++
		row, err := schemas.DecodeFrequency(key, value)
		if err != nil {
			return fmt.Errorf("check: frequency row %q: %w", key, err)
		}
		seen[string(key)] = true
		want, ok := counts[string(key)]
		switch {
		case !ok:
			problem(schemas.TableFrequency, orphan, schemas.Cell{Table: schemas.TableFrequency, Key: bytes.Clone(key), Delete: true}, "%s %s counts %d tweets, but none is stored", row.Minute, row.Lang, row.Count)
		case row.Count != want:
			right := schemas.FrequencyRow{Minute: row.Minute, Lang: row.Lang, Count: want}.Cell()
			problem(schemas.TableFrequency, wrong, right, "%s %s counts %d tweets, %d are stored", row.Minute, row.Lang, row.Count, want)
		}
		return flush(false)
	})
	if err != nil {
		return rep, fmt.Errorf("check: reading frequency: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if !seen[k] {
			row, _ := schemas.DecodeFrequency([]byte(k), []byte("1"))
			right := schemas.FrequencyRow{Minute: row.Minute, Lang: row.Lang, Count: counts[k]}.Cell()
			problem(schemas.TableFrequency, missing, right, "%s %s: no count of its %d stored tweets", row.Minute, row.Lang, counts[k])
		}
	}
	if err := flush(true); err != nil {
		return rep, err
	}
	if edgeDays != nil {
		// After the repair of the edge cells, written above; when only
		// reporting, as that repair would leave them.
		kinds := map[string]func(*TableCheck){"missing": missing, "wrong": wrong, "orphan": orphan}
		rows, err := edgeDays.check(ctx, r, write == nil, func(kind string, fixed schemas.Cell, format string, args ...any) error {
			problem(schemas.TableEdgeDays, kinds[kind], fixed, format, args...)
			return flush(false)
		})
		tc(schemas.TableEdgeDays).Rows = rows
		if err != nil {
			return rep, err
		}
		if err := flush(true); err != nil {
			return rep, err
		}
	}
	if len(termDays) > 0 {
		var marks []schemas.Cell
		for _, d := range slices.Sorted(maps.Keys(termDays)) {
			marks = append(marks, schemas.MetaRow{Name: schemas.TermDayMark(d)}.Cell())
		}
		if err := write(ctx, marks); err != nil {
			return rep, fmt.Errorf("check: repairing: %w", err)
		}
		if _, _, err := recountTermDays(ctx, repairSink{r, write}); err != nil {
			return rep, fmt.Errorf("check: repairing: %w", err)
		}
	}
	for t, c := range tables {
		rep.Tables[t.Name()] = *c
	}
	rep.Seconds = time.Since(started).Seconds()
	return rep, nil
}

// termDayOf returns the day whose per-day term counts a repaired cell
// changes: that of the tweet of a raw, authors or term cell.
func termDayOf(c schemas.Cell) (uint16, bool) {
	var k schemas.RowKey
	switch {
	case len(c.Key) < schemas.RowKeyLen:
		return 0, false
	case c.Table == schemas.TableRaw || c.Table == schemas.TableAuthors:
		copy(k[:], c.Key)
	case c.Table == schemas.TableTerms:
		copy(k[:], c.Key[len(c.Key)-schemas.RowKeyLen:])
	default:
		return 0, false
	}
	if !schemas.ValidDay(k.Seconds()) {
		return 0, false
	}
	return schemas.Day(k.Seconds()), true
}

// storedVersion is a stored tweet: its id and row key.
type storedVersion struct {
	id  uint64
	key schemas.RowKey
}

// identityMiss is a stored tweet (id, under row key key) whose identity
// row the table lacks (!ok) or holds naming something else (found).
type identityMiss struct {
	id    uint64
	key   schemas.RowKey
	found []byte
	ok    bool
}

// staleVersion is a stored tweet that must go, and why.
type staleVersion struct {
	storedVersion
	why string
}

// removals is what versionsToRemove finds: the identity rows to write
// (each naming the version kept) and the stored versions to remove.
type removals struct {
	identity []identityMiss
	versions []staleVersion
}

// versionsToRemove judges the stored tweets whose identity rows do not
// name them (misses), with every stored version of their ids: those of
// the misses, and the one the identity row names if the raw table holds
// it (hasRaw; an id stored twice always misses, since its identity row
// names one version at most):
//
//   - an id whose identity row is a tombstone is deleted: each of its
//     stored versions goes (a deletion that reached one version of two);
//   - an id stored under more than one row key keeps one version, the
//     one its identity row names, or else the one of the smallest row
//     key (the rule of a run that reads two versions), and its identity
//     row must name it;
//   - any other id's identity row must name its one stored version.
//
// It keeps nothing of the tweets whose identity rows are right.
func versionsToRemove(misses []identityMiss, hasRaw func(id uint64, k schemas.RowKey) (bool, error)) (removals, error) {
	var r removals
	slices.SortFunc(misses, func(a, b identityMiss) int {
		if a.id != b.id {
			return cmp.Compare(a.id, b.id)
		}
		return bytes.Compare(a.key[:], b.key[:])
	})
	for i := 0; i < len(misses); {
		m := misses[i]
		var versions []schemas.RowKey
		for ; i < len(misses) && misses[i].id == m.id; i++ {
			versions = append(versions, misses[i].key)
		}
		versions = slices.Compact(versions)
		var named *schemas.IdentityRow
		if m.ok {
			row, err := schemas.DecodeIdentity(schemas.IdentityKey(m.id), m.found)
			if err != nil {
				return r, fmt.Errorf("check: identity row of tweet %d: %w", m.id, err)
			}
			named = &row
		}
		if named != nil && named.Deleted {
			for _, k := range versions {
				r.versions = append(r.versions, staleVersion{storedVersion{m.id, k}, fmt.Sprintf("tweet %d is deleted (its identity row is a tombstone) but stored under %s", m.id, k)})
			}
			continue
		}
		keep := versions[0]
		if named != nil {
			held, err := hasRaw(m.id, named.Key)
			if err != nil {
				return r, err
			}
			if held {
				keep = named.Key
				versions = append(versions, keep)
			}
		}
		if named == nil || named.Key != keep {
			r.identity = append(r.identity, identityMiss{id: m.id, key: keep, found: m.found, ok: m.ok})
		}
		for _, k := range versions {
			if k != keep {
				r.versions = append(r.versions, staleVersion{storedVersion{m.id, k}, fmt.Sprintf("tweet %d is stored under %s and %s: the version under %s is kept", m.id, keep, k, keep)})
			}
		}
	}
	return r, nil
}
