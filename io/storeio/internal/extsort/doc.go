// Package extsort is the external sort under the store's bulk load
// (storeio's sortedLoad): cells, as bytes, gathered in a chunk in memory
// (Chunk), sorted there (Chunk.Sort: a radix sort of runs that fit in the
// processor's cache), written as sorted run files of S2-compressed blocks
// (WriteRun, Spiller), and merged, run files and sorted chunks together,
// by a loser tree (Merge), a key range (part) at a time where the caller
// cuts them so (PartitionBounds, OpenRun's bounds, Sorted.Sources).
//
// A cell is a key, a value and whether it is a delete. Of equal keys the
// last write wins: within a chunk the cell added last, across sources the
// one of the higher rank (Ranked). Merge emits each key once, with its
// last write, deletes included: what to do with them is the caller's.
//
// It knows nothing of the store's tables or of Pebble's database: a
// cell's first byte (Chunk.Add's table) is a byte of its key like the
// others. The store decides what to sort, when to spill and merge, and
// writes the merged cells into tables. Run files are written and read
// through the filesystem the caller gives (Pebble's vfs.FS, the store's
// own), so that what fails the store's files fails them too.
package extsort
