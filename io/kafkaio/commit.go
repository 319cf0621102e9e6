package kafkaio

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
)

// commitKey names one partition of one group on one cluster.
type commitKey struct {
	brokers, group, topic string
	partition             int
}

// commitState is the highest offset this process committed for a key; its
// mutex serializes the key's commits so that they never go backwards.
type commitState struct {
	mu     sync.Mutex
	offset int64
}

var (
	commitsMu sync.Mutex
	commits   = map[commitKey]*commitState{}
)

func commitStateFor(k commitKey) *commitState {
	commitsMu.Lock()
	defer commitsMu.Unlock()
	s, ok := commits[k]
	if !ok {
		s = &commitState{offset: -1}
		commits[k] = s
	}
	return s
}

// commitOffset commits offset, the next offset to read, as the group's
// position in the partition, unless this process already committed a
// higher one (commits may race from concurrent bundles). It commits as a
// simple consumer (generation -1), outside any group membership, as Kafka
// allows for a group with no members.
func commitOffset(ctx context.Context, c *kafka.Client, cfg Config, partition int, offset int64) error {
	st := commitStateFor(commitKey{strings.Join(cfg.Brokers, ","), cfg.Group, cfg.Topic, partition})
	st.mu.Lock()
	defer st.mu.Unlock()
	if offset <= st.offset {
		return nil
	}
	what := fmt.Sprintf("committing offset %d of %s/%d to group %s", offset, cfg.Topic, partition, cfg.Group)
	err := retry(ctx, cfg, min(cfg.withDefaults().RetryTimeout, 30*time.Second), what, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		res, err := c.OffsetCommit(ctx, &kafka.OffsetCommitRequest{
			GroupID:      cfg.Group,
			GenerationID: -1,
			Topics:       map[string][]kafka.OffsetCommit{cfg.Topic: {{Partition: partition, Offset: offset}}},
		})
		if err != nil {
			return err
		}
		for _, p := range res.Topics[cfg.Topic] {
			if p.Error != nil {
				return p.Error
			}
		}
		return nil
	}, nil)
	if err != nil {
		return err
	}
	st.offset = offset
	return nil
}
