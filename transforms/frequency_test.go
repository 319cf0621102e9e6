package transforms

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/teststream"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.Function2x1(tweetFromSpec)
	register.Function2x1(keyedTotalFromSpec)
	register.Function3x0(totalString)
	register.Function1x2(splitTotal)
	register.Function2x1(maxTotal)
	register.Function2x1(formatTotal)
}

// splitTotal turns "KEY=N" into (KEY, N).
func splitTotal(s string) (string, int64) {
	k, v, _ := strings.Cut(s, "=")
	n, _ := strconv.ParseInt(v, 10, 64)
	return k, n
}

func maxTotal(a, b int64) int64 { return max(a, b) }

func formatTotal(k string, n int64) string { return fmt.Sprintf("%s=%d", k, n) }

// minuteM is the minute the streaming tests count: 2026-11-01 12:00 UTC.
var minuteM = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// at returns the teststream timestamp (ms) of minuteM plus d.
func at(d time.Duration) int64 { return minuteM.Add(d).UnixMilli() }

// tweetFromSpec turns "ID UNIXSECONDS LANG" into a batch of one tweet.
func tweetFromSpec(spec string, emit func(TweetBatch)) error {
	f := strings.Fields(spec)
	if len(f) != 3 {
		return fmt.Errorf("bad tweet spec %q", spec)
	}
	id, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return err
	}
	sec, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return err
	}
	emit(TweetBatch{Tweets: []schemas.Tweet{{ID: id, CreatedAt: sec, Lang: f[2]}}})
	return nil
}

// spec formats a tweet for tweetFromSpec: id, minuteM plus d, lang.
func spec(id int, d time.Duration, lang string) string {
	return fmt.Sprintf("%d %d %s", id, minuteM.Add(d).Unix(), lang)
}

// TestFrequencyLateTweetRefiresWithTotal streams tweets of two minutes
// through TweetFrequency (teststream on prism): the minute fires when the
// watermark passes its end, and a tweet that arrives after that, within the
// allowed lateness, fires it again with the accumulated total (3, not the 1
// of a discarding pane), which is the count that stays written.
func TestFrequencyLateTweetRefiresWithTotal(t *testing.T) {
	cfg := teststream.NewConfig()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cfg.AddElements(at(10*time.Second), spec(1, 10*time.Second, "en"), spec(2, 11*time.Second, "en")))
	must(cfg.AddElements(at(20*time.Second), spec(3, 20*time.Second, "ja")))
	must(cfg.AdvanceWatermark(at(61 * time.Second)))                         // minute M is over: on-time pane
	must(cfg.AddElements(at(30*time.Second), spec(4, 30*time.Second, "en"))) // late for minute M
	must(cfg.AddElements(at(70*time.Second), spec(5, 70*time.Second, "en"))) // minute M+1
	must(cfg.AdvanceWatermark(at(2 * time.Minute)))
	must(cfg.AddElements(at(40*time.Second), spec(6, 40*time.Second, "ja"))) // late again
	must(cfg.AdvanceWatermarkToInfinity())

	p, s := beam.NewPipelineWithRoot()
	tweets := beam.ParDo(s, tweetFromSpec, teststream.Create(s, cfg))
	windowed := beam.WindowInto(s, window.NewFixedWindows(Minute), tweets, beam.AllowedLateness(DefaultHorizon))
	cells := TweetFrequency(s, windowed)
	written := beam.WindowInto(s, window.NewGlobalWindows(), beam.ParDo(s, frequencyRowString, cells))
	// Panes may be merged or reordered by the runner; what must hold is
	// that the largest count written per minute and language, the one the
	// table keeps, is the accumulated total (3, not a discarding pane's 1).
	last := beam.ParDo(s, formatTotal, beam.CombinePerKey(s, maxTotal, beam.ParDo(s, splitTotal, written)))
	passert.Equals(s, last, "202611011200/en=3", "202611011200/ja=2", "202611011201/en=1")
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
}

// keyedTotalFromSpec turns "KEY TOTAL" into a keyed total.
func keyedTotalFromSpec(spec string, emit func(string, int64)) error {
	k, v, ok := strings.Cut(spec, " ")
	if !ok {
		return fmt.Errorf("bad total spec %q", spec)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return err
	}
	emit(k, n)
	return nil
}

func totalString(k string, n int64, emit func(string)) { emit(fmt.Sprintf("%s=%d", k, n)) }

// TestGrowingTotalFn feeds window totals in the order a runner may deliver
// panes (one by one, in order of arrival) and checks which GrowingTotalFn
// lets through to the sink.
func TestGrowingTotalFn(t *testing.T) {
	tests := []struct {
		name   string
		totals []string // "KEY TOTAL", in order of arrival
		base   map[string]int64
		want   []string
	}{
		{"growing", []string{"a 1", "a 2", "a 5"}, nil, []string{"a=1", "a=2", "a=5"}},
		{"overtaken pane is dropped", []string{"a 5", "a 3", "a 7"}, nil, []string{"a=5", "a=7"}},
		{"equal total is not rewritten", []string{"a 4", "a 4", "b 4"}, nil, []string{"a=4", "b=4"}},
		{"base is continued", []string{"a 1", "a 3", "b 2"}, map[string]int64{"a": 10}, []string{"a=11", "a=13", "b=2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := teststream.NewConfig()
			for i, spec := range tc.totals {
				// One event per pane, a millisecond apart, in one window.
				if err := cfg.AddElements(at(time.Duration(i)*time.Millisecond), spec); err != nil {
					t.Fatal(err)
				}
			}
			if err := cfg.AdvanceWatermarkToInfinity(); err != nil {
				t.Fatal(err)
			}
			var base FrequencyBase
			for k, n := range tc.base {
				base.Keys = append(base.Keys, k)
				base.Counts = append(base.Counts, n)
			}
			p, s := beam.NewPipelineWithRoot()
			totals := beam.ParDo(s, keyedTotalFromSpec, teststream.Create(s, cfg))
			totals = beam.WindowInto(s, window.NewFixedWindows(Minute), totals)
			out := beam.ParDo(s, &GrowingTotalFn{Max: state.MakeValueState[int64]("max"), Base: base}, totals)
			got := beam.WindowInto(s, window.NewGlobalWindows(), beam.ParDo(s, totalString, out))
			passert.Equals(s, got, toAny(tc.want)...)
			if err := ptest.Run(p); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
