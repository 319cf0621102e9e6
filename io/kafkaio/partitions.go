package kafkaio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/segmentio/kafka-go"
)

// partitionRead is one partition's share of a read: the element of the
// reading SDF. Its initial restriction is [Start, End).
type partitionRead struct {
	Topic     string
	Partition int
	// Start is the first offset to read.
	Start int64
	// End is the offset the read stops before; math.MaxInt64 when the read
	// is unbounded or ends at a time not yet reached (StopTime).
	End int64
	// StopTime, when not zero, is a Unix time in milliseconds: the read ends
	// before the first record whose timestamp is at or after it.
	StopTime int64
}

// source is the record origin's source name, "kafka:TOPIC/PARTITION".
func (p partitionRead) source() string { return fmt.Sprintf("kafka:%s/%d", p.Topic, p.Partition) }

// listPartitionsFn lists the topic's partitions and resolves the offsets
// each one is read between. It runs once, on the pipeline's impulse.
type listPartitionsFn struct {
	Config Config
}

// ProcessElement emits one partitionRead per partition of the topic.
func (f *listPartitionsFn) ProcessElement(ctx context.Context, _ []byte, emit func(partitionRead)) error {
	cfg := f.Config.withDefaults()
	client, err := newClient(cfg)
	if err != nil {
		return err
	}
	defer closeClient(client)
	// These calls wait for the brokers as every call of the read does (a
	// stream started before its broker waits for it, up to
	// Config.RetryTimeout), and a drain stops the wait: the read then ends
	// having read nothing, as a drained stream does.
	dctx, cancel := untilDrained(ctx, cfg.Drain)
	defer cancel()
	start := time.Now()
	parts, err := resolvePartitions(dctx, client, cfg, start)
	if err != nil {
		if errors.Is(context.Cause(dctx), errDrained) {
			if waited := time.Since(start); waited >= time.Second {
				brokers := strings.Join(cfg.Brokers, ",")
				printWait("kafka drained while waiting", []any{"source", "kafka:" + cfg.Topic, "waited_seconds", roundWait(waited).Seconds(),
					"brokers", brokers, "call", "listing partitions and offsets"},
					"kafkaio: kafka:%s: drained while waiting %v for the Kafka broker %s (listing partitions and offsets); stopped waiting, nothing read",
					cfg.Topic, roundWait(waited), brokers)
			}
			return nil
		}
		return err
	}
	notePlan(cfg.Topic, parts)
	for _, p := range parts {
		log.Infof(ctx, "kafkaio: %s reads offsets [%d, %s)", p.source(), p.Start, endString(p))
		emit(p)
	}
	return nil
}

func endString(p partitionRead) string {
	switch {
	case p.StopTime != 0:
		return "first record at or after " + time.UnixMilli(p.StopTime).UTC().Format(time.RFC3339Nano)
	case p.End == math.MaxInt64:
		return "unbounded"
	}
	return fmt.Sprint(p.End)
}

// resolvePartitions lists cfg.Topic's partitions and resolves cfg.Start and
// cfg.Stop into offsets for each, as of now.
func resolvePartitions(ctx context.Context, c *kafka.Client, cfg Config, now time.Time) ([]partitionRead, error) {
	start, err := parsePosition(cfg.Start, true)
	if err != nil {
		return nil, fmt.Errorf("kafkaio: start %w", err)
	}
	stop, err := parsePosition(cfg.Stop, false)
	if err != nil {
		return nil, fmt.Errorf("kafkaio: stop %w", err)
	}
	ids, err := listPartitions(ctx, c, cfg)
	if err != nil {
		return nil, err
	}
	first, err := listOffsets(ctx, c, cfg, ids, kafka.FirstOffset)
	if err != nil {
		return nil, err
	}
	last, err := listOffsets(ctx, c, cfg, ids, kafka.LastOffset)
	if err != nil {
		return nil, err
	}

	starts := make(map[int]int64, len(ids))
	switch start.kind {
	case posEarliest:
		starts = first
	case posLatest:
		starts = last
	case posTime:
		if starts, err = listOffsets(ctx, c, cfg, ids, start.time.UnixMilli()); err != nil {
			return nil, err
		}
	case posOffset:
		for _, id := range ids {
			starts[id] = start.offset
		}
	case posGroup:
		committed, err := groupOffsets(ctx, c, cfg, ids)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if o, ok := committed[id]; ok && o >= 0 {
				starts[id] = o
			} else {
				starts[id] = first[id] // never committed: read from the beginning, lose nothing
			}
		}
	}

	parts := make([]partitionRead, 0, len(ids))
	for _, id := range ids {
		p := partitionRead{Topic: cfg.Topic, Partition: id, End: math.MaxInt64}
		s, ok := starts[id]
		switch {
		case !ok || s < 0: // a time after the last message
			s = last[id]
		case s < first[id]:
			if start.kind == posGroup {
				log.Warnf(ctx, "kafkaio: %s: committed offset %d is no longer in the log, which starts at %d: records were deleted before they were read", p.source(), s, first[id])
			}
			s = first[id]
		case s > last[id] && start.kind == posGroup:
			log.Warnf(ctx, "kafkaio: %s: committed offset %d is past the end of the log (%d), which was reset; starting at its end", p.source(), s, last[id])
			s = last[id]
		}
		// An offset:N start past the end of the log waits for offset N.
		p.Start = s
		switch stop.kind {
		case posLatest:
			p.End = last[id]
		case posOffset:
			p.End = min(stop.offset, last[id])
		case posTime:
			ends, err := listOffsets(ctx, c, cfg, []int{id}, stop.time.UnixMilli())
			if err != nil {
				return nil, err
			}
			switch e, ok := ends[id]; {
			case ok && e >= 0:
				p.End = e
			case !stop.time.After(now):
				p.End = last[id] // every message in the log is older
			default:
				// Not reached yet: stop at the first record that reaches
				// it, or once caught up after it.
				p.StopTime = stop.time.UnixMilli()
			}
		}
		if p.End < p.Start {
			p.End = p.Start
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// missingTopicWait is how long listPartitions waits for a topic once the
// brokers have answered that it does not exist: a topic that was just
// created may take a moment to appear in every broker's metadata, but a
// misspelt one should not hold the read for Config.RetryTimeout.
var missingTopicWait = 5 * time.Second

// listPartitions returns the topic's partition ids in order. Brokers that
// cannot be reached are waited for as by every broker call (retry, up to
// cfg.RetryTimeout); a topic they say does not exist, for missingTopicWait.
func listPartitions(ctx context.Context, c *kafka.Client, cfg Config) ([]int, error) {
	var ids []int
	var missingSince time.Time
	missingErr := func() error {
		if missingSince.IsZero() {
			missingSince = time.Now()
		}
		err := fmt.Errorf("topic %q does not exist on %v", cfg.Topic, cfg.Brokers)
		if waited := time.Since(missingSince); waited >= missingTopicWait {
			return permanentError{fmt.Errorf("%w (the brokers said so for %v)", err, roundWait(waited))}
		}
		return err
	}
	err := retry(ctx, cfg, cfg.RetryTimeout, "listing partitions", func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		md, err := c.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{cfg.Topic}})
		if err != nil {
			return err
		}
		for _, t := range md.Topics {
			if t.Name != cfg.Topic {
				continue
			}
			if t.Error != nil {
				if errors.Is(t.Error, kafka.UnknownTopicOrPartition) {
					return missingErr()
				}
				return t.Error
			}
			ids = ids[:0]
			for _, p := range t.Partitions {
				ids = append(ids, p.ID)
			}
			if len(ids) == 0 {
				return missingErr()
			}
			sort.Ints(ids)
			return nil
		}
		return missingErr()
	}, nil)
	return ids, err
}

// listOffsets returns, for each partition, the offset ListOffsets gives for
// ts: kafka.FirstOffset, kafka.LastOffset (the high watermark) or a Unix
// time in milliseconds (the first offset whose timestamp is at or after it,
// -1 if none).
func listOffsets(ctx context.Context, c *kafka.Client, cfg Config, ids []int, ts int64) (map[int]int64, error) {
	reqs := make([]kafka.OffsetRequest, len(ids))
	for i, id := range ids {
		reqs[i] = kafka.OffsetRequest{Partition: id, Timestamp: ts}
	}
	out := make(map[int]int64, len(ids))
	err := retry(ctx, cfg, cfg.RetryTimeout, "listing offsets", func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		res, err := c.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{cfg.Topic: reqs}})
		if err != nil {
			return err
		}
		for _, p := range res.Topics[cfg.Topic] {
			if p.Error != nil {
				return fmt.Errorf("partition %d: %w", p.Partition, p.Error)
			}
			switch ts {
			case kafka.FirstOffset:
				out[p.Partition] = p.FirstOffset
			case kafka.LastOffset:
				out[p.Partition] = p.LastOffset
			default:
				out[p.Partition] = -1
				for o := range p.Offsets {
					out[p.Partition] = o
				}
			}
		}
		for _, id := range ids {
			if _, ok := out[id]; !ok {
				return fmt.Errorf("no offsets returned for partition %d", id)
			}
		}
		return nil
	}, nil)
	return out, err
}

// groupOffsets returns the group's committed offsets (-1 where none).
func groupOffsets(ctx context.Context, c *kafka.Client, cfg Config, ids []int) (map[int]int64, error) {
	out := make(map[int]int64, len(ids))
	err := retry(ctx, cfg, cfg.RetryTimeout, "fetching committed offsets of group "+cfg.Group, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		res, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: cfg.Group, Topics: map[string][]int{cfg.Topic: ids}})
		if err != nil {
			return err
		}
		if errors.Is(res.Error, kafka.GroupIdNotFound) {
			return nil // a group that never committed
		}
		if res.Error != nil {
			return res.Error
		}
		for _, p := range res.Topics[cfg.Topic] {
			if p.Error != nil {
				return fmt.Errorf("partition %d: %w", p.Partition, p.Error)
			}
			out[p.Partition] = p.CommittedOffset
		}
		return nil
	}, nil)
	return out, err
}
