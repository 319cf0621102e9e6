package schemas

import (
	"bytes"

	"github.com/valyala/fastjson"
)

// MaxLangLen is the longest language tag kept: RFC 5646 (section 4.4.1)
// asks implementations to accept tags of at least 35 characters, and no
// tag the Twitter APIs use is longer.
const MaxLangLen = 35

// langOf returns a tweet's language tag as given, without surrounding
// space, or "und" when it is absent, empty, not a string, or not a
// plausible tag: longer than MaxLangLen bytes, or holding anything but
// ASCII letters, digits, '-' and '_'. The tag is part of the frequency
// table's key (a Cassandra clustering value, refused over 64 KiB), so a
// hostile one must not reach it; the tweet itself is kept, and its stored
// JSON keeps the tag as it came. The tags the APIs use are shared
// strings, so most tweets allocate nothing here.
func langOf(v *fastjson.Value) string {
	b := bytes.TrimSpace(v.GetStringBytes())
	if len(b) == 0 {
		return "und"
	}
	if s, ok := langs[string(b)]; ok {
		return s
	}
	if !validLang(b) {
		return "und"
	}
	return string(b)
}

// validLang reports whether b is short and made of the characters of a
// BCP 47 tag (and of the underscore of "zh_CN"-style locales).
func validLang(b []byte) bool {
	if len(b) > MaxLangLen {
		return false
	}
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// langs interns the language tags of the Twitter APIs (BCP 47 and
// Twitter's own codes such as "in", "iw", "qme", "zxx").
var langs = func() map[string]string {
	m := make(map[string]string)
	for _, s := range []string{
		"am", "ar", "art", "bg", "bn", "bo", "ca", "chr", "ckb", "cs", "cy", "da", "de", "dv", "el",
		"en", "en-gb", "es", "et", "eu", "fa", "fi", "fil", "fr", "ga", "gl", "gu", "ha", "he", "hi",
		"hr", "ht", "hu", "hy", "id", "in", "is", "it", "iu", "iw", "ja", "ka", "km", "kn", "ko",
		"lo", "lt", "lv", "ml", "mr", "ms", "my", "ne", "nl", "no", "or", "pa", "pl", "ps", "pt",
		"qam", "qct", "qht", "qme", "qst", "ro", "ru", "sd", "si", "sk", "sl", "sr", "sv", "sw",
		"ta", "te", "th", "tl", "tr", "ug", "uk", "und", "ur", "vi", "xx-lc", "zh", "zh-cn",
		"zh-tw", "zxx",
	} {
		m[s] = s
	}
	return m
}()
