package kafkaio

import (
	"math"
	"sort"
	"sync"
	"time"
)

// PartitionStatus is where the reads of one partition in this process
// stand: for a submitter whose SDK workers run in process to show the lag
// and the watermark while the run goes (a metrics endpoint).
type PartitionStatus struct {
	Topic     string
	Partition int
	// Next is the next offset to read; HighWatermark the partition's end
	// at the last fetch: the lag is HighWatermark - Next.
	Next, HighWatermark int64
	// Watermark is the partition's event-time watermark (zero for a
	// bounded read, which has none).
	Watermark time.Time
	// Updated is when the status was last noted.
	Updated time.Time
}

var (
	partitionsMu sync.Mutex
	partitions   = map[[2]any]PartitionStatus{}
	plans        = map[string]readPlan{} // by topic: what its last read resolved
)

// readPlan is the partitions a read of a topic resolved (listPartitionsFn),
// and when.
type readPlan struct {
	parts []partitionRead
	at    time.Time
}

// notePlan records the partitions a read of topic resolved, and forgets
// where earlier reads of it stood.
func notePlan(topic string, parts []partitionRead) {
	partitionsMu.Lock()
	defer partitionsMu.Unlock()
	plans[topic] = readPlan{parts: parts, at: time.Now()}
	for k := range partitions {
		if k[0] == topic {
			delete(partitions, k)
		}
	}
}

// ReadProgress returns how far the bounded read of topic in this process
// is, in offsets: read of total, over the partitions it resolved, each
// from its start to its end offset. ok is false until the read resolves
// its partitions in this process at or after since, and when the end of
// one is not known (no stop, or a stop time not reached yet).
func ReadProgress(topic string, since time.Time) (read, total int64, ok bool) {
	partitionsMu.Lock()
	defer partitionsMu.Unlock()
	plan, ok := plans[topic]
	if !ok || plan.at.Before(since) {
		return 0, 0, false
	}
	for _, p := range plan.parts {
		if p.End == math.MaxInt64 {
			return 0, 0, false
		}
		next := p.Start
		if st, ok := partitions[[2]any{topic, p.Partition}]; ok {
			next = min(max(st.Next, p.Start), p.End)
		}
		read += next - p.Start
		total += p.End - p.Start
	}
	return read, total, true
}

// notePosition records where the read of s stands after a fetch.
func notePosition(s *readState) {
	st := PartitionStatus{Topic: s.p.Topic, Partition: s.p.Partition, Next: s.next, HighWatermark: s.hwm, Updated: time.Now()}
	if s.we != nil {
		st.Watermark = s.we.CurrentWatermark()
	}
	partitionsMu.Lock()
	partitions[[2]any{st.Topic, st.Partition}] = st
	partitionsMu.Unlock()
}

// LocalPartitions returns the status of every partition this process has
// read, by topic and partition.
func LocalPartitions() []PartitionStatus {
	partitionsMu.Lock()
	out := make([]PartitionStatus, 0, len(partitions))
	for _, st := range partitions {
		out = append(out, st)
	}
	partitionsMu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
