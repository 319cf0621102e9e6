// Package maintain holds what is done to a sink's tables outside an
// index run's graph, on the embedded store or Cassandra alike (io/sink):
//
//   - Forget deletes tweets by id as a compliance delete in a run does
//     (forget.go);
//   - Check verifies every table derived from the stored tweets against
//     them, and the edge weights against the edge cells, and repairs what
//     differs (check.go, checkedgedays.go);
//   - RecountMarked, AdoptCounting and ClearCounting keep the frequency
//     table's counts absolute after deletions and dead streams
//     (recount.go), RecountMarked also the per-day term counts and edge
//     weights of the days marked (termdays.go, termdayindex.go,
//     edgedays.go), and
//     ApplyScrubGeo applies scrub_geo notices
//     (scrubgeo.go): both run at the end of every run (job.Run);
//   - DumpRows and ReadFrequency read tables out for dump and watch.
//
// It knows the tables through the registry (schemas.Tables,
// transforms.DerivedTables), never by a list of its own.
package maintain
