package query

import "testing"

// TestSplitSpan checks that the parts Users reads at once cover its range
// exactly, in order, without overlap, and are never empty.
func TestSplitSpan(t *testing.T) {
	for _, tc := range []struct {
		from, to int64
		n        int
	}{
		{0, 3600, 2}, {0, 3601, 3}, {100, 101, 4}, {-50, 7, 2}, {0, 1 << 40, 7}, {5, 9, 0},
	} {
		parts := splitSpan(span{from: tc.from, to: tc.to, lang: "en"}, tc.n)
		if len(parts) == 0 || len(parts) > max(tc.n, 1) {
			t.Errorf("splitSpan(%d..%d, %d): %d parts", tc.from, tc.to, tc.n, len(parts))
			continue
		}
		at := tc.from
		for _, p := range parts {
			if p.from != at || p.to <= p.from || p.lang != "en" {
				t.Errorf("splitSpan(%d..%d, %d) = %+v: part %+v does not follow %d", tc.from, tc.to, tc.n, parts, p, at)
			}
			at = p.to
		}
		if at != tc.to {
			t.Errorf("splitSpan(%d..%d, %d) = %+v ends at %d", tc.from, tc.to, tc.n, parts, at)
		}
	}
}
