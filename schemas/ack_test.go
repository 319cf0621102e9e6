package schemas

import (
	"errors"
	"testing"
)

// TestAckSetRelease: a bundle whose writes failed hands no acknowledgement
// on (the records are read again) and leaves the set empty for the next
// bundle; one whose writes are durable hands on every source's.
func TestAckSetRelease(t *testing.T) {
	set := AckSet{}
	set.Add(Ack{Source: "kafka:t/0", Offset: 4, Done: 1})
	set.Add(Ack{Source: "kafka:t/1", Offset: 9, Done: 1})
	failed := errors.New("write failed")
	emitted := 0
	emit := func(string, []byte) { emitted++ }
	if err := set.Release(failed, emit); !errors.Is(err, failed) || emitted != 0 || len(set) != 0 {
		t.Errorf("Release(error): %v, %d emitted, set %v; want the error, none emitted, an empty set", err, emitted, set)
	}
	set.Add(Ack{Source: "kafka:t/0", Offset: 5, Done: 1})
	set.Add(Ack{Source: "kafka:t/1", Offset: 10, Done: 1})
	if err := set.Release(nil, emit); err != nil || emitted != 2 || len(set) != 0 {
		t.Errorf("Release(nil): %v, %d emitted, set %v; want one per source and an empty set", err, emitted, set)
	}
}
