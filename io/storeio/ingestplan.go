package storeio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// ingestPlan is what the end of a load with a base or with intents
// (retract.go) ingests, saved in its scratch directory (ingestPlanFile)
// while it does: the base's tables, then the end's. Two ingestions, which
// a crash may separate, or one that the intents must not be applied
// over; the plan lets the next opener complete them and clear the
// intents (recoverIngest). Names are of files in the scratch directory.
type ingestPlan struct {
	Base         []string `json:"base"`
	BaseIngested bool     `json:"base_ingested"`
	Tables       []string `json:"tables"`
}

const ingestPlanFile = "INGEST"

// ingest ingests the base's tables, if there is a base, then tables (the
// end's), saving the plan first, so that a crash between the two
// ingestions leaves a store that recoverIngest completes: either way, the
// database gets the whole load or, before the plan is saved, none of it.
//
// Without a log (a bulk load), an ingestion whose tables overlap what the
// memtable holds is not on disk until the memtable is flushed: Pebble
// queues it above the memtable. A load without a base relies on that (its
// one ingestion reaches disk with the memtable, in one flush, at the end
// of FlushOpen). With a base, the memtable is flushed before the plan is
// saved (what the load completes must not reach disk without what the
// memtable holds: the identity rows that lead to its cells, the deletes
// of the geo cells of the versions it retracts), and the base before the
// plan says it is ingested. A load with intents and no base saves the
// plan before its one ingestion: a store opened with intents and no plan
// applies them, which must not happen over the ingested load.
func (l *sortedLoad) ingest(ctx context.Context, tables []string) error {
	if len(l.baseTables) > 0 || l.intents.written.Load() {
		plan := ingestPlan{Base: names(l.baseTables), BaseIngested: l.baseIngested, Tables: names(tables)}
		if len(l.baseTables) > 0 && !l.baseIngested {
			if err := l.db.Flush(); err != nil {
				return err
			}
			if err := savePlan(l.fs, l.dir, plan); err != nil {
				return err
			}
			if err := cutIngest("base"); err != nil {
				return err
			}
			if err := l.db.Ingest(ctx, l.baseTables); err != nil {
				return err
			}
			if err := l.db.Flush(); err != nil { // the base, if it went above a memtable written meanwhile
				return err
			}
			l.baseIngested, plan.BaseIngested = true, true
		}
		// Saved again when Finish runs again after a failure: its tables
		// are written anew.
		if err := savePlan(l.fs, l.dir, plan); err != nil {
			return err
		}
		if err := cutIngest("tables"); err != nil {
			return err
		}
	}
	if len(tables) == 0 {
		return nil
	}
	return l.db.Ingest(ctx, tables)
}

// cutIngest is called by ingest before each of the two ingestions of a
// load with a base ("base", then "tables"); a test makes it fail, to stop
// the end there as an error would. It calls BeforeIngest, if set, with
// the stage.
var cutIngest = func(stage string) error {
	if BeforeIngest != nil {
		BeforeIngest(stage)
	}
	return nil
}

// BeforeIngest, if not nil, is called by the end of a bulk load with a
// base right before each of its two ingestions, with the stage: "base",
// then "tables". It is nil in production. Crash tests
// (TestKilledBoundedRunRunAgain in pipelines/cmd/tweetindex) set it, in
// the process they start, to a function that exits the process at one
// stage, as a crash would there. Set, the end lets the base's merge write
// all its parts rather than cut it short (Finish), so that a base under
// way still has tables to ingest. Set it before the load begins.
var BeforeIngest func(stage string)

// names returns the file names of paths.
func names(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// savePlan writes plan to dir's ingestPlanFile on fs, durably: written
// aside, synced and renamed, the directory synced.
func savePlan(fs vfs.FS, dir string, plan ingestPlan) error {
	data, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ingestPlanFile)
	f, err := fs.Create(path+".tmp", writeCategory)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.Rename(path+".tmp", path)
	}
	if err == nil {
		err = syncDir(fs, dir)
	}
	return err
}

func syncDir(fs vfs.FS, dir string) error {
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readFile returns the contents of the file at path on fs.
func readFile(fs vfs.FS, path string) ([]byte, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// recoverIngest completes the ingestion that the end of a bulk load into
// dir (on fs) was making when its process died (ingestPlan, in the load's scratch
// directory): the base's tables unless they were ingested, then the
// end's, and clears the load's intents; with no plan, it applies them
// (replayIntents) and removes the files the load spilled. It reports whether there was one to complete. A base ingested
// again (a crash after its ingestion, before the plan said so) adds the
// same cells again, above themselves.
func recoverIngest(db *pebble.DB, fs vfs.FS, dir string) (bool, error) {
	scratch := filepath.Join(dir, "bulk-load")
	data, err := readFile(fs, filepath.Join(scratch, ingestPlanFile))
	if errors.Is(err, os.ErrNotExist) {
		// Nothing of the load is in the database: what its intents
		// say is applied, and the files it spilled go (a full disk
		// stays full otherwise).
		if _, err := replayIntents(db); err != nil {
			return false, err
		}
		if _, err := fs.Stat(scratch); err != nil {
			return false, nil // none (or one that cannot be seen: left for the next opener)
		}
		return false, fs.RemoveAll(scratch)
	}
	if err != nil {
		return false, err
	}
	var plan ingestPlan
	if err := json.Unmarshal(data, &plan); err != nil {
		return false, fmt.Errorf("%s: %w", ingestPlanFile, err)
	}
	paths := func(names []string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(scratch, n)
		}
		return out
	}
	// Pebble removes the files of an ingestion once it is applied, and
	// only then: a table of the plan that is gone was ingested (the
	// process ended after the ingestion, before the plan said so).
	ingested := func(names []string) bool {
		for _, n := range names {
			if _, err := fs.Stat(filepath.Join(scratch, n)); errors.Is(err, os.ErrNotExist) {
				return true
			}
		}
		return false
	}
	if !plan.BaseIngested && len(plan.Base) > 0 && !ingested(plan.Base) {
		if err := db.Ingest(context.Background(), paths(plan.Base)); err != nil {
			return false, err
		}
	}
	if len(plan.Tables) > 0 && !ingested(plan.Tables) {
		if err := db.Ingest(context.Background(), paths(plan.Tables)); err != nil {
			return false, err
		}
	}
	if err := clearIntents(db); err != nil { // before the plan goes
		return false, err
	}
	return true, fs.RemoveAll(scratch)
}
