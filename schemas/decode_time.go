package schemas

import (
	"strings"
	"time"
)

// parseCreatedAt returns the Unix second of a created_at value: v1.1's
// "Wed Oct 10 20:19:24 +0000 2018" (time.RubyDate) or v2's RFC 3339
// "2018-10-10T20:19:24.000Z". Fractions of a second are dropped (the time
// is floored to its second). The UTC forms the APIs emit are parsed
// without the time package; anything else goes through time.Parse, so the
// result is always what time.Parse gives.
func parseCreatedAt(b []byte) (int64, bool) {
	if sec, ok := parseRubyDateUTC(b); ok {
		return sec, true
	}
	if sec, ok := parseRFC3339UTC(b); ok {
		return sec, true
	}
	s := strings.TrimSpace(string(b))
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Unix(), true
		}
	}
	return 0, false
}

// timeLayouts are the created_at layouts accepted.
var timeLayouts = []string{time.RubyDate, time.RFC3339}

var shortDays = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

var shortMonths = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseRubyDateUTC parses exactly "Mon Jan 02 15:04:05 +0000 2006".
func parseRubyDateUTC(b []byte) (int64, bool) {
	if len(b) != 30 || b[3] != ' ' || b[7] != ' ' || b[10] != ' ' || b[13] != ':' || b[16] != ':' ||
		b[19] != ' ' || string(b[20:25]) != "+0000" || b[25] != ' ' {
		return 0, false
	}
	okDay := false
	for _, d := range shortDays {
		if string(b[:3]) == d {
			okDay = true
			break
		}
	}
	month := 0
	for i, m := range shortMonths {
		if string(b[4:7]) == m {
			month = i + 1
			break
		}
	}
	if !okDay || month == 0 {
		return 0, false
	}
	day, ok1 := num(b[8:10])
	hour, ok2 := num(b[11:13])
	minute, ok3 := num(b[14:16])
	sec, ok4 := num(b[17:19])
	year, ok5 := num(b[26:30])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return 0, false
	}
	return unixUTC(year, month, day, hour, minute, sec)
}

// parseRFC3339UTC parses "2006-01-02T15:04:05Z", with an optional fraction
// of up to 9 digits, and "+00:00" for "Z".
func parseRFC3339UTC(b []byte) (int64, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	year, ok1 := num(b[0:4])
	month, ok2 := num(b[5:7])
	day, ok3 := num(b[8:10])
	hour, ok4 := num(b[11:13])
	minute, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false
	}
	rest := b[19:]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 || n > 10 {
			return 0, false
		}
		rest = rest[n:]
	}
	if string(rest) != "Z" && string(rest) != "+00:00" {
		return 0, false
	}
	return unixUTC(year, month, day, hour, minute, sec)
}

// num decodes a fixed-width run of decimal digits.
func num(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// unixUTC returns the Unix second of a UTC civil time, checking every field
// as time.Parse does. Years outside 1000..9999 are left to time.Parse.
func unixUTC(year, month, day, hour, minute, sec int) (int64, bool) {
	if year < 1000 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	return daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec), true
}

// daysIn returns the number of days of month in year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date with year >= 1 (H. Hinnant's algorithm).
func daysFromCivil(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// createdAtReason checks a parsed created_at value and returns its Unix
// second, or the reason it is rejected.
func createdAtReason(v []byte, present bool) (int64, string) {
	if !present {
		return 0, "missing created_at"
	}
	sec, ok := parseCreatedAt(v)
	if !ok {
		return 0, "invalid created_at"
	}
	if !ValidDay(sec) {
		return 0, "created_at out of range"
	}
	return sec, ""
}
