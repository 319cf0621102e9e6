package schemas

import (
	"testing"
	"time"
)

// TestValidDayBounds: the days a uint16 holds end with 2149-06-06 (day
// 65535), as the docs say; 2149-06-07 (day 65536) would wrap to 1970.
func TestValidDayBounds(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2149, 6, 6, 23, 59, 59, 0, time.UTC), true},
		{time.Date(2149, 6, 7, 0, 0, 0, 0, time.UTC), false},
		{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), false},
	} {
		if got := ValidDay(tc.at.Unix()); got != tc.want {
			t.Errorf("ValidDay(%s) = %v, want %v", tc.at.Format(time.RFC3339), got, tc.want)
		}
	}
	if d := Day(time.Date(2149, 6, 6, 12, 0, 0, 0, time.UTC).Unix()); d != 65535 {
		t.Errorf("Day(2149-06-06) = %d, want 65535", d)
	}
}
