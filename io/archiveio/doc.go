// Package archiveio reads archived tweet files and yields their records.
//
// It handles files, containers, compression and record boundaries, and
// nothing else: it does not parse tweets. Each schemas.Record it yields is one
// line of a JSON lines file, or one whole JSON document (an API response
// page, a JSON array of tweets, a personal archive's tweets.js), tagged with
// its origin (file, archive member and line) so that a dead letter can point
// at the exact input that produced it.
//
// Supported inputs, detected by their magic bytes (the file name is only a
// fallback for a damaged header):
//
//   - plain text: JSON lines, or one JSON document
//   - gzip (including multi-member streams made by concatenation), bzip2
//     (including multi-stream files) and zstd
//   - tar and zip archives whose members are any of the above, recursively
//     (the Internet Archive "Twitter Stream Grab" layout: a tar of
//     per-minute .json.bz2 or .json.gz files); .tar.gz and .tgz work too
//
// Record boundaries: a stream is JSON lines (one record per line, numbered
// from 1, blank lines included so that counts reconcile with line numbers)
// unless it is one JSON document, which is one record at line 1. A stream
// that starts with "window." (a personal archive's tweets.js) is a
// document. A stream whose first bytes can begin one JSON value spread over
// several lines (or one array) is read whole, up to
// Options.MaxDocumentBytes, and is a document only if it is exactly one
// JSON value; so a JSON lines file whose first lines are broken (or hold a
// NUL, or random bytes) keeps every good line, each bad line one record. A
// stream cut short (a read failure, or too long) stays one faulted document
// only if it is the beginning of one value none of whose lines is a JSON
// object by itself.
//
// Damage is reported in band: a truncated or corrupt compressed stream ends
// that stream with a record whose Fault says what went wrong ("truncated
// gzip stream: unexpected EOF"), after every complete line read before it;
// the partial last line, if any, is that record's Data. A corrupt archive
// member faults that member only. A failure of an archive itself (a damaged
// tar header, a zip without its central directory) is a faulted record at
// line 0 of the archive. A line longer than Options.MaxRecordBytes is a
// faulted record holding its first KiB. Only a file that cannot be opened at
// all is an error.
//
// Archive members that are not data are skipped: directories, links, hidden
// files (such as macOS's "._name") and zip's "__MACOSX/" folder.
//
// The package has two layers: Expand and ReadFile are plain Go, and Read
// wraps them in a Beam transform in the style of Beam's textio.
package archiveio
