package kafkaio

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

const ackSrc = "kafka:t/0"

func expectAck(offset, from int64, units int32) schemas.Ack {
	return schemas.Ack{Source: ackSrc, Offset: offset, Expect: true, Units: units, From: from, Start: 10}
}

func doneAck(offset int64, done int32) schemas.Ack {
	return schemas.Ack{Source: ackSrc, Offset: offset, Done: done}
}

// feed adds acks to a progress that goes through its encoding between
// every two, as the state does between elements, and returns it advanced.
func feed(t *testing.T, pr *ackProgress, acks ...schemas.Ack) *ackProgress {
	t.Helper()
	for _, a := range acks {
		pr.add(a)
		pr.advance()
		got, err := decodeAckProgress(pr.encode())
		if err != nil {
			t.Fatal(err)
		}
		got.over, got.overAt = pr.over, pr.overAt
		if len(got.done) == 0 && len(pr.done) == 0 {
			got.done = pr.done
		}
		if !reflect.DeepEqual(got, pr) {
			t.Fatalf("progress round trip:\n got %+v\nwant %+v", got, pr)
		}
		pr = got
	}
	return pr
}

func TestAckProgressCommitsOnlyFinishedPrefix(t *testing.T) {
	pr := newAckProgress()
	// Records at 10 (3 units), 11 (skipped: 0 units), 14 (after a
	// transaction marker and a compacted offset: from 12), 15 (6 units:
	// two tweets).
	pr = feed(t, pr, doneAck(14, 1), expectAck(14, 12, 3), doneAck(14, 2))
	if pr.next != 10 {
		t.Fatalf("next %d after the third record only, want 10 (the read's start)", pr.next)
	}
	pr = feed(t, pr, expectAck(11, 11, 0))
	if pr.next != 10 {
		t.Fatalf("next %d with the first record pending, want 10", pr.next)
	}
	pr = feed(t, pr, expectAck(10, 10, 3), doneAck(10, 1), doneAck(10, 1))
	if pr.next != 10 {
		t.Fatalf("next %d with the first record at 2 of 3 units, want 10", pr.next)
	}
	pr = feed(t, pr, doneAck(10, 1))
	if pr.next != 15 {
		t.Fatalf("next %d, want 15 (10, 11 and 12-14 finished)", pr.next)
	}
	pr = feed(t, pr, expectAck(15, 15, 6), doneAck(15, 3), doneAck(15, 2))
	if pr.next != 15 || len(pr.pending) != 1 {
		t.Fatalf("next %d, %d pending; want 15, 1", pr.next, len(pr.pending))
	}
	pr = feed(t, pr, doneAck(15, 1))
	if pr.next != 16 || len(pr.pending) != 0 || len(pr.done) != 0 || pr.over != 0 {
		t.Fatalf("progress %+v, want next 16, nothing pending, no over-acknowledgement", pr)
	}
	pr = feed(t, pr, doneAck(15, 1))
	if pr.over != 1 {
		t.Errorf("an acknowledgement after the record finished: over %d, want 1", pr.over)
	}
}

// TestAckProgressAnyOrder acknowledges the records of a partition in
// random orders, with gaps between them: the offset reached is the end
// exactly when the last acknowledgement arrives, and never passes a
// record not finished before that.
func TestAckProgressAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		type rec struct {
			from, offset int64
			units        int32
		}
		var recs []rec
		next := int64(10)
		for i := 0; i < 20; i++ {
			off := next + int64(rng.IntN(3)) // gaps: offsets without a record
			recs = append(recs, rec{next, off, int32(rng.IntN(3)) * 3})
			next = off + 1
		}
		var acks []schemas.Ack
		for _, r := range recs {
			acks = append(acks, expectAck(r.offset, r.from, r.units))
			for u := int32(0); u < r.units; u++ {
				acks = append(acks, doneAck(r.offset, 1))
			}
		}
		rng.Shuffle(len(acks), func(i, j int) { acks[i], acks[j] = acks[j], acks[i] })
		pr := newAckProgress()
		left := map[int64]int32{}
		seen := map[int64]bool{}
		for _, r := range recs {
			left[r.offset] = r.units
		}
		for i, a := range acks {
			pr.add(a)
			pr.advance()
			if a.Expect {
				seen[a.Offset] = true
			} else {
				left[a.Offset] -= a.Done
			}
			// Every record below next is finished.
			for _, r := range recs {
				if r.offset < pr.next && (left[r.offset] != 0 || !seen[r.offset]) {
					t.Fatalf("trial %d, ack %d: next %d passes record %d, not finished", trial, i, pr.next, r.offset)
				}
			}
		}
		if pr.next != next || pr.over != 0 || len(pr.pending) != 0 || len(pr.done) != 0 {
			t.Fatalf("trial %d: progress %+v, want next %d, nothing left", trial, pr, next)
		}
	}
}

// TestAckProgressStallsOnAMissingRecord: a record never acknowledged holds
// the commit before it, whatever comes after.
func TestAckProgressStallsOnAMissingRecord(t *testing.T) {
	pr := newAckProgress()
	pr = feed(t, pr, expectAck(10, 10, 0), expectAck(11, 11, 3), expectAck(12, 12, 0), doneAck(11, 2))
	if pr.next != 11 {
		t.Fatalf("next %d, want 11 (record 11 lacks a unit)", pr.next)
	}
}

func TestAckCells(t *testing.T) {
	for _, a := range []schemas.Ack{
		doneAck(0, 1), doneAck(1<<40, 3), expectAck(7, 5, 6), expectAck(7, 7, 0),
	} {
		got, err := schemas.DecodeAck(a.Cell())
		if err != nil || got != a {
			t.Errorf("%+v: decoded %+v, %v", a, got, err)
		}
	}
	set := schemas.AckSet{}
	set.Add(doneAck(3, 1))
	set.Add(expectAck(3, 2, 6))
	set.Add(doneAck(3, 2))
	set.Add(schemas.Ack{Source: "kafka:t/1", Offset: 9, Done: 1})
	got := map[string][]schemas.Ack{}
	set.Encode(func(src string, data []byte) {
		if err := schemas.DecodeAcks(src, data, func(a schemas.Ack) { got[src] = append(got[src], a) }); err != nil {
			t.Fatal(err)
		}
	})
	want := map[string][]schemas.Ack{
		ackSrc:      {{Source: ackSrc, Offset: 3, Done: 3, Expect: true, Units: 6, From: 2, Start: 10}},
		"kafka:t/1": {{Source: "kafka:t/1", Offset: 9, Done: 1}},
	}
	if !reflect.DeepEqual(got, want) || len(set) != 0 {
		t.Errorf("AckSet: got %+v (set left %v), want %+v", got, set, want)
	}
	cells, err := schemas.SplitAcks([]schemas.Cell{schemas.MetaRow{Name: "x"}.Cell(), doneAck(1, 1).Cell(), schemas.MetaRow{Name: "y"}.Cell()}, set)
	if err != nil || len(cells) != 2 || cells[1].Table != schemas.TableMeta || len(set) != 1 {
		t.Errorf("SplitAcks: %v, %v, set %v", cells, err, set)
	}
}
