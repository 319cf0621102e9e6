// Package hooks holds what tests of other packages (through package
// storeiotest) may change in the embedded store of their process:
//
//   - the filesystem the store reads and writes every one of its files
//     through: Pebble's (vfs.FS) and the bulk load's own (its run files,
//     the tables it writes for Pebble to ingest, its ingestion plan). It
//     is the operating system's; tests put a wrapper in its place,
//     Pebble's vfs/errorfs, to fail a chosen operation as a full or
//     failing disk would (FS, Set);
//   - the size of the bulk load's chunks, so that a test's small input
//     spills and merges run files as a large one does (ChunkBytes).
package hooks

import (
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
)

var current atomic.Pointer[vfs.FS]

func init() { Set(vfs.Default) }

// FS returns the filesystem stores are opened on now. A store keeps the
// one it was opened on until it is closed.
func FS() vfs.FS { return *current.Load() }

// Set makes fs the filesystem stores are opened on from now on, and
// returns the one it replaces.
func Set(fs vfs.FS) (old vfs.FS) {
	if p := current.Swap(&fs); p != nil {
		return *p
	}
	return nil
}

// ChunkBytes, when not 0, is the size in bytes of the chunks of the bulk
// loads that begin from now on (storeio's sortedChunkBytes otherwise).
var ChunkBytes atomic.Int64
