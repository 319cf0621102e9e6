package schemas

import (
	"bytes"
	"unicode/utf8"
)

// This file finds the byte spans of JSON values without parsing them. The
// parser (fastjson) gives values but not where they are in the input, and
// the stored JSON of a tweet must be its bytes exactly as read. The
// scanner trusts its input to be valid JSON where it matters (the decoder
// runs it on documents the parser accepted) and reports failure rather than
// guessing elsewhere.

// span is the byte range [start, end) of a value in a record.
type span struct{ start, end int }

// skipWS returns the index of the first byte at or after i that is not JSON
// white space.
func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index after the string whose opening quote is at
// b[i], or -1 if the string does not end.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n&1 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// structural marks the bytes that skipValue's walk of an object or array
// stops at: quotes and brackets.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipValue returns the index after the JSON value starting at b[i], or -1
// if there is no complete value there.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			if !structural[b[j]] {
				continue // most bytes: one load and one branch
			}
			switch b[j] {
			case '"':
				e := skipString(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case '}', ']', ',', ':':
		return -1
	}
	j := i
	for j < len(b) {
		c := b[j]
		if c == ',' || c == '}' || c == ']' || c == ':' || isSpace(c) {
			break
		}
		j++
	}
	return j
}

// eachMember calls f with the raw (still escaped) key and the value span of
// every member of the object whose '{' is at b[i], until f returns false.
// It reports whether the object was well formed up to where it stopped.
func eachMember(b []byte, i int, f func(key []byte, v span) bool) bool {
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ke := skipString(b, i)
		if ke < 0 {
			return false
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		ve := skipValue(b, i)
		if ve < 0 {
			return false
		}
		if !f(key, span{i, ve}) {
			return true
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
}

// memberSpan returns the span of the value of the member named key of the
// object whose '{' is at b[i]. Of duplicate members the last counts, as in
// the parser's Visit and in encoding/json.
func memberSpan(b []byte, i int, key string) (span, bool) {
	var s span
	found := false
	ok := eachMember(b, i, func(k []byte, v span) bool {
		if keyEqual(k, key) {
			s, found = v, true
		}
		return true
	})
	return s, ok && found
}

// elementSpans appends the spans of the elements of the array whose '[' is
// at b[i] to dst.
func elementSpans(b []byte, i int, dst []span) ([]span, bool) {
	if i >= len(b) || b[i] != '[' {
		return dst, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return dst, true
	}
	for {
		e := skipValue(b, i)
		if e < 0 {
			return dst, false
		}
		dst = append(dst, span{i, e})
		i = skipWS(b, e)
		if i >= len(b) {
			return dst, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return dst, true
		default:
			return dst, false
		}
	}
}

// keyEqual reports whether the raw JSON string contents raw (between the
// quotes, escapes not yet resolved) spell key.
func keyEqual(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	var buf [64]byte
	u, ok := unescape(buf[:0], raw)
	return ok && string(u) == key
}

// unescape appends the JSON string contents raw with its escapes resolved
// to dst. It reports false for a malformed escape.
func unescape(dst, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(raw) {
			return dst, false
		}
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				return dst, false
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if lo, ok := hex4(raw[i+3:]); ok && lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
	return dst, true
}

// hex4 decodes the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
