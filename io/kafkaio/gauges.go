package kafkaio

import (
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
)

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
