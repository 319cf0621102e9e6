package tweetgen

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// This file holds the append-based JSON writing the generator uses on its
// hot path instead of encoding/json: every tweet is built by appending to a
// reused byte slice.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. With ascii set it writes as the
// v1.1 streaming API did: every non-ASCII rune as \uXXXX (UTF-16, with
// surrogate pairs above U+FFFF) and "/" as "\/". Otherwise UTF-8 is written
// as it is. Quotes, backslashes and control characters are always escaped.
func appendString(b []byte, s string, ascii bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf && !(ascii && c == '/') {
			i++
			continue
		}
		if c >= utf8.RuneSelf && !ascii {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch {
		case c == '"':
			b = append(b, '\\', '"')
			i++
		case c == '\\':
			b = append(b, '\\', '\\')
			i++
		case c == '/':
			b = append(b, '\\', '/')
			i++
		case c == '\n':
			b = append(b, '\\', 'n')
			i++
		case c == '\r':
			b = append(b, '\\', 'r')
			i++
		case c == '\t':
			b = append(b, '\\', 't')
			i++
		case c < 0x20:
			b = appendU(b, rune(c))
			i++
		default: // non-ASCII in ascii mode
			r, size := utf8.DecodeRuneInString(s[i:])
			if r > 0xFFFF {
				r -= 0x10000
				b = appendU(b, 0xD800+(r>>10))
				b = appendU(b, 0xDC00+(r&0x3FF))
			} else {
				b = appendU(b, r)
			}
			i += size
		}
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendU appends the escape \uXXXX of the UTF-16 code unit r.
func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// appendKey appends `,"key":`.
func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendKStr appends `,"key":"value"`.
func appendKStr(b []byte, key, value string, ascii bool) []byte {
	return appendString(appendKey(b, key), value, ascii)
}

// appendKInt appends `,"key":n`.
func appendKInt(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(appendKey(b, key), n, 10)
}

// appendKUintStr appends `,"key":"n"`, a number written as a string.
func appendKUintStr(b []byte, key string, n uint64) []byte {
	b = append(appendKey(b, key), '"')
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// appendKBool appends `,"key":true` or false.
func appendKBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(b, key), v)
}

// appendKNull appends `,"key":null`.
func appendKNull(b []byte, key string) []byte {
	return append(appendKey(b, key), "null"...)
}

// appendFloat appends a coordinate in its shortest exact form.
func appendFloat(b []byte, f float64) []byte {
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendMangledID appends the tweet id n the way a JSON number above 2^53
// comes out of a float64 (JavaScript, and many JSON libraries): the nearest
// float64, printed in its shortest form, so the last digits differ from the
// exact id ("1057717357426393089" becomes 1057717357426393100).
func appendMangledID(b []byte, n uint64) []byte {
	if n < 1<<53 {
		return strconv.AppendUint(b, n, 10)
	}
	return strconv.AppendFloat(b, float64(n), 'f', -1, 64)
}

// appendRubyDate appends t (UTC) in v1.1's created_at form,
// "Sun Nov 01 12:05:09 +0000 2026".
func appendRubyDate(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, time.RubyDate)
}

// appendISODate appends t (UTC) in v2's created_at form,
// "2026-11-01T12:05:09.000Z".
func appendISODate(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
}
