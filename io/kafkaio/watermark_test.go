package kafkaio

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/schemas"
)

func TestWatermarkEstimator(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) int64 { return t0.Add(d).UnixMilli() }
	type step struct {
		at    time.Duration // wall clock, after t0
		event time.Duration // tweet time of a batch read, after t0; 0: poll found nothing
		noEv  bool          // a batch without tweet times
	}
	tests := []struct {
		name  string
		cfg   Config
		peer  []step // first, another partition of the same read
		steps []step
		want  int64
	}{
		{"follows the newest tweet", Config{}, nil, []step{{at: 0, event: -time.Minute}, {at: 1, event: -2 * time.Minute}}, ms(-time.Minute)},
		{"minus the allowed skew", Config{AllowedSkew: 5 * time.Second}, nil, []step{{at: 0, event: -time.Minute}}, ms(-time.Minute - 5*time.Second)},
		{"never past the wall clock", Config{AllowedSkew: time.Second}, nil, []step{{at: 0, event: time.Hour}}, ms(-time.Second)},
		{"batches without tweet times do not move it", Config{}, nil, []step{{at: 0, event: -time.Minute}, {at: time.Second, noEv: true}}, ms(-time.Minute)},
		{"caught up, not yet idle long enough", Config{IdleTimeout: 10 * time.Second}, nil, []step{{at: 0, event: -time.Minute}, {at: time.Second}, {at: 11*time.Second - time.Millisecond}}, ms(-time.Minute)},
		{"an idle partition follows the event clock", Config{IdleTimeout: 10 * time.Second, AllowedSkew: 2 * time.Second}, nil,
			[]step{{at: 0, event: -time.Hour}, {at: time.Second}, {at: 11 * time.Second}}, ms(-time.Hour + 11*time.Second - 2*time.Second)},
		{"on a live stream the event clock is the wall clock", Config{IdleTimeout: 10 * time.Second}, nil,
			[]step{{at: 0, event: -time.Millisecond}, {at: time.Second}, {at: 30 * time.Second}}, ms(30*time.Second - time.Millisecond)},
		{"a partition that never had data follows the others", Config{IdleTimeout: 10 * time.Second}, []step{{at: 0, event: -time.Hour}},
			[]step{{at: 0}, {at: 10 * time.Second}}, ms(-time.Hour + 10*time.Second)},
		{"before any tweet, the wall clock", Config{IdleTimeout: 10 * time.Second}, nil, []step{{at: 0}, {at: 11 * time.Second}}, ms(11 * time.Second)},
		{"a tweet ends the idle spell", Config{IdleTimeout: 10 * time.Second}, nil, []step{{at: 0}, {at: 9 * time.Second, event: -time.Hour}, {at: 15 * time.Second}}, ms(-time.Hour)},
		{"records without tweet times do not", Config{IdleTimeout: 10 * time.Second}, nil, []step{{at: 0}, {at: 9 * time.Second, noEv: true}, {at: 15 * time.Second}}, ms(15 * time.Second)},
		{"never advanced when IdleTimeout < 0", Config{IdleTimeout: -1}, nil, []step{{at: 0}, {at: time.Hour}}, int64(mtime.MinTimestamp)},
		{"never moves back", Config{IdleTimeout: time.Second}, nil, []step{{at: 0}, {at: 2 * time.Second}, {at: 3 * time.Second, event: -time.Hour}}, ms(2 * time.Second)},
	}
	run := func(e *watermarkEstimator, steps []step) {
		for _, s := range steps {
			now := t0.Add(s.at)
			switch {
			case s.noEv:
				e.observe(0, false, now)
			case s.event != 0:
				e.observe(t0.Add(s.event).UnixMilli(), true, now)
			default:
				e.caughtUp(now)
			}
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Topic = t.Name() // a read of its own: its own event clock
			initial := watermarkState{Watermark: int64(mtime.MinTimestamp)}
			run(newWatermarkEstimator(initial, tc.cfg), tc.peer)
			e := newWatermarkEstimator(initial, tc.cfg)
			run(e, tc.steps)
			// Round-trip the state, as a checkpoint does.
			e = newWatermarkEstimator(e.snapshot(), tc.cfg)
			if got := e.CurrentWatermark().UnixMilli(); got != tc.want {
				t.Errorf("watermark = %v, want %v", mtime.Time(got), mtime.Time(tc.want))
			}
		})
	}
}

func init() {
	register.DoFn2x0[[]schemas.Record, func(beam.EventTime, string)](&explodeFn{})
	register.Emitter2[beam.EventTime, string]()
	register.DoFn4x0[beam.Window, beam.EventTime, string, int](&windowCountFn{})
}

// explodeFn emits one element per record, at the record's tweet time.
type explodeFn struct{}

func (*explodeFn) ProcessElement(recs []schemas.Record, emit func(beam.EventTime, string)) {
	for _, r := range recs {
		if sec, ok := schemas.EventTime(r.Data); ok {
			emit(mtime.FromMilliseconds(sec*1000), "tweets")
		}
	}
}

// windowCountFn hands each window's count to the sink named Key, as a
// record whose source is the window's start and whose line is the count.
type windowCountFn struct {
	Key string
}

func (f *windowCountFn) ProcessElement(w beam.Window, et beam.EventTime, _ string, n int) {
	start := w.(window.IntervalWindow).Start.ToTime().UTC().Format("15:04")
	sinkFor(f.Key).add(et, []schemas.Record{{Origin: schemas.Origin{Source: start, Line: int64(n)}}})
}

// tweet is a minimal v1.1 tweet created at t.
func tweet(id int, t time.Time) []byte {
	return fmt.Appendf(nil, `{"created_at":%q,"id_str":"%d","text":"tweet %d","lang":"en"}`, t.UTC().Format(time.RubyDate), id, id)
}

// TestIdlePartitionDoesNotStallWatermark reads, unbounded, a topic where
// one of two partitions never receives a record, into 1-minute event-time
// windows counted after a GroupByKey: the windows fire while the read runs
// (the idle partition's watermark follows the wall clock), before the test
// drains the read, which then ends the pipeline.
func TestIdlePartitionDoesNotStallWatermark(t *testing.T) {
	const topic = "idle"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 2})
	m := time.Now().Add(-10 * time.Minute).Truncate(time.Minute)
	var tweets [][]byte
	for k := range 3 {
		for _, s := range []int{5, 20, 35, 59} {
			tweets = append(tweets, tweet(len(tweets), m.Add(time.Duration(k)*time.Minute+time.Duration(s)*time.Second)))
		}
	}
	kafkatest.Produce(t, addr, topic, 0, tweets)

	key, sink := newSink(t)
	drain := key
	cfg := Config{Brokers: []string{addr}, Topic: topic, Drain: drain, IdleTimeout: 300 * time.Millisecond}
	p, s := beam.NewPipelineWithRoot()
	events := beam.ParDo(s, &explodeFn{}, Read(s, cfg))
	counts := stats.Count(s, beam.WindowInto(s, window.NewFixedWindows(time.Minute), events))
	beam.ParDo0(s, &windowCountFn{Key: key}, counts)

	errc := make(chan error, 1)
	t.Cleanup(func() { Drain(drain) }) // stops the pipeline if the test fails early
	go func() { errc <- ptest.Run(p) }()
	wantWindows := []string{
		fmt.Sprintf("%s=4", m.UTC().Format("15:04")),
		fmt.Sprintf("%s=4", m.Add(time.Minute).UTC().Format("15:04")),
		fmt.Sprintf("%s=4", m.Add(2*time.Minute).UTC().Format("15:04")),
	}
	render := func(bs []batch) string {
		var out []string
		for _, b := range bs {
			for _, r := range b.recs {
				out = append(out, fmt.Sprintf("%s=%d", r.Origin.Source, r.Origin.Line))
			}
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	sink.waitFor(t, time.Minute, "three windows to fire before the read is drained", func(bs []batch) bool { return len(bs) >= len(wantWindows) })
	select {
	case err := <-errc:
		t.Fatalf("the read ended before it was drained: %v", err)
	default:
	}
	Drain(drain)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got, want := render(sink.snapshot()), strings.Join(wantWindows, " "); got != want {
		t.Errorf("windows fired: %s, want %s", got, want)
	}
}
