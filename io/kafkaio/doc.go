// Package kafkaio reads tweets from Kafka into a Beam pipeline: a native Go
// splittable DoFn over github.com/segmentio/kafka-go (not Beam's
// cross-language KafkaIO, which needs a Java expansion service).
//
// Read returns a PCollection of []schemas.Record batches, each a run of
// consecutive records of one partition with Origin "kafka:TOPIC/PARTITION"
// and the offset as its line, timestamped with the earliest tweet time in
// it (schemas.EventTime). The graph downstream is the same as for files.
//
// # How it reads
//
// An impulse feeds a DoFn that lists the topic's partitions and resolves
// Config.Start and Config.Stop into offsets for each (ListOffsets by
// position or time, the group's committed offsets by OffsetFetch). Each
// partition becomes one element of the splittable DoFn, with one offset
// range restriction: [start, stop) for a bounded read, [start,
// math.MaxInt64) for an unbounded one, tracked by the SDK's offsetrange
// trackers (the growable one, whose end estimate is the partition's high
// watermark, when unbounded). Runners checkpoint and split these ranges;
// a read that commits offsets only allows splits at the current position.
//
// Every broker call has a context with a deadline and is retried with
// exponential backoff (one policy, retry): fetches and the calls that list
// the partitions and resolve the offsets at startup for up to
// Config.RetryTimeout, so a read started before its broker waits for it
// (a topic the brokers say does not exist fails after about 5 s); offset
// commits for at most 30 s. A failed fetch is retried (counted in
// kafka_reconnects) from the first offset not yet emitted, so no offset is
// skipped or read twice.
//
// # Bounded and unbounded
//
// With Config.Stop (and without Config.Commit) the output is a bounded
// PCollection (what a backfill needs: runners run it as a batch job) and
// each partition is read to its stop offset in one call, unless the read
// is Config.Paced (a run whose workers share its process, on prism, which
// passes a bundle's output on only when the bundle ends): it then reads in
// steps as an unbounded read does, and pauses while the run's backlog is
// full (flow.Backlogged), its output unbounded to Beam but its end the
// same. Without Stop the output is unbounded: each call
// reads for at most Config.CheckpointInterval, then returns
// sdf.ResumeProcessingIn so that the runner commits the output and takes
// the watermark; a poll that finds nothing asks to be resumed after
// Config.PollInterval. A read that commits offsets works the same way,
// and ends at Config.Stop if it is set.
//
// # Watermark
//
// Each partition's restriction carries a watermark estimator whose state
// (the watermark and the time the partition went idle) travels with its
// checkpoints. It follows the tweets read: the newest tweet time seen minus
// Config.AllowedSkew, never beyond the wall clock minus AllowedSkew. A
// partition that has been caught up for Config.IdleTimeout moves its
// watermark with the read's event clock minus AllowedSkew: the newest tweet
// time read from any partition in this worker plus the wall-clock time
// since it was read (on a live stream, the wall clock; before any tweet is
// read, the wall clock). So an idle partition never holds back the
// pipeline's watermark; the first tweet it reads again ends the idle spell
// (records without a tweet time, such as stream control messages, do not).
// A watermark never goes backwards.
//
// Replaying archived tweets through Kafka therefore works: idle partitions
// follow the replayed tweet times, and a pause in the replay moves the
// watermark on only by the length of the pause. But a read that starts with
// no tweets at all falls back to the wall clock after IdleTimeout: start
// the replay's producer before the pipeline (or set IdleTimeout negative),
// or its tweets arrive late.
//
// # Stopping an unbounded read
//
// Cancelling the context of beamx.Run makes prism panic. Instead, an
// unbounded read is drained: name it with Config.Drain and call Drain with
// that name (on SIGINT, say) in the process that runs the SDK worker, which
// on prism is the pipeline's own process. Every partition then stops at
// its next poll or between two batches: it checkpoints once more if it has
// offsets to commit, then gives up the rest of its range (TrySplit(0)),
// moves its watermark to the end of time and returns sdf.StopProcessing,
// and the pipeline completes with every window fired. On a distributed
// runner, the runner's own drain truncates the ranges through
// TruncateRestriction.
//
// # Committing offsets
//
// With Config.Commit, each time a partition's checkpoint residual is
// resumed, the read commits the residual's start offset to Config.Group,
// as a simple consumer (generation -1, no group membership): a runner
// hands out a residual only after it has committed the output of the
// bundle that returned it, so every record before that offset is safely
// downstream. A read that ends (at Stop, or drained) after reading
// records checkpoints once more, to an empty residual if need be, so that
// its last records are committed too. A restart with Start "group"
// resumes exactly there. Delivery is at least once: records read after the
// last commit of a crashed run are read again (the tables' writes are
// idempotent). On prism, "committed by the runner" means held in its
// memory until the sink writes it.
//
// That commits what the runner holds, not what the pipeline has written: a
// crash can lose records whose offsets are committed. With
// Config.CommitAcked the read commits nothing itself; CommitAcked, a
// stage keyed by partition, commits an offset once the pipeline has
// acknowledged every record before it (schemas.Ack: the units of work a
// record needs, and the units done as the sinks make cells durable or
// stages drop tweets). Each record carries the offsets it accounts for
// (schemas.Record.From: the offsets after the previous record, transaction
// markers and compacted offsets included, and Start, where the read
// began), so finished records tile the partition from its start; a read
// that has moved past offsets holding no message at the end of a call
// claims them and emits a gap record for them (schemas.Record.Gap).
//
// This does the job of the SDK's bundle finalization, which kafkaio does
// not use: in Beam Go v2.77, exec.Plan.Finalize replaces the plan's
// finalizer while its DoFns keep the old one, so every bundle that runs on
// a reused plan loses its finalization callbacks.
//
// # Secured brokers
//
// Config.TLS (package secure: CA, client certificate, server name) and
// Config.SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) reach brokers that
// want them. The password is a secure.Secret, a file or an environment
// variable that each process reads when it opens a client: the Config
// serialized into the pipeline holds no password. Check, called before a
// pipeline runs, connects as the read will and reports a wrong setting in
// one line naming it (an untrusted or expired certificate, a refused
// password, a broker that speaks TLS to a plaintext client, ...), where
// the read itself would retry a refused SASL exchange that closes the
// connection (as kfake does) until Config.RetryTimeout.
//
// Counters, in the "tweetindex" namespace: kafka_records_read,
// kafka_bytes_read, kafka_reconnects, kafka_offsets_skipped (offsets the
// broker deleted, by retention, before they were read).
package kafkaio
