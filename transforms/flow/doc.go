// Package flow is what every stage of a run counts and shares in one
// process, imported by the transforms and by every source and sink: the
// project's Beam counters (Counter, which also counts in this process, and
// the names of the counters a run's summary adds up), the progress of the
// SDK workers of this process (items read, tweets indexed, rows written),
// and the flow control that pauses in-process readers while
// deduplication catches up.
//
// It holds no transform: a source or sink that counts or waits imports this
// package, not package transforms.
package flow
