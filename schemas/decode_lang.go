package schemas

import (
	"bytes"

	"github.com/valyala/fastjson"
)

// langOf returns a tweet's language tag as given, without surrounding
// space, or "und" when it is absent, empty or not a string. The tags the
// APIs use are shared strings, so most tweets allocate nothing here.
func langOf(v *fastjson.Value) string {
	b := bytes.TrimSpace(v.GetStringBytes())
	if len(b) == 0 {
		return "und"
	}
	if s, ok := langs[string(b)]; ok {
		return s
	}
	return string(b)
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
