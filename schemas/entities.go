package schemas

import (
	"unsafe"

	"github.com/valyala/fastjson"
)

// The members of the entities of each API version that Entities holds:
// the list, and the member of its elements, for hashtags, mentions,
// cashtags and links in turn.
var (
	v1EntityKeys = [4][2]string{{"hashtags", "text"}, {"user_mentions", "screen_name"}, {"symbols", "text"}, {"urls", "expanded_url"}}
	v2EntityKeys = [4][2]string{{"hashtags", "tag"}, {"mentions", "username"}, {"cashtags", "tag"}, {"urls", "expanded_url"}}
)

// entitySources are the entities objects a tweet's Entities come from.
type entitySources struct {
	keys *[4][2]string
	objs [1]*fastjson.Value
	n    int
	// author is the retweeted author's name, a mention (a retweet's text
	// is "RT @author: ...").
	author []byte
}

// add adds the entities object v, and reports whether it is one.
func (s *entitySources) add(v *fastjson.Value) bool {
	if v == nil || v.Type() != fastjson.TypeObject || s.n == len(s.objs) {
		return false
	}
	s.objs[s.n] = v
	s.n++
	return true
}

// each calls fn with every string of list i (0 hashtags, 1 mentions, 2
// cashtags, 3 links) of the sources, in order.
func (s *entitySources) each(i int, fn func([]byte)) {
	name, key := s.keys[i][0], s.keys[i][1]
	for _, o := range s.objs[:s.n] {
		list := o.Get(name)
		if list == nil || list.Type() != fastjson.TypeArray {
			continue
		}
		for _, x := range list.GetArray() {
			if b := x.GetStringBytes(key); len(b) > 0 {
				fn(b)
			}
		}
	}
	if i == 1 && len(s.author) > 0 {
		fn(s.author)
	}
}

// build returns the Entities of the sources, in three allocations: the
// struct, its strings' headers, and their bytes.
func (s *entitySources) build() *Entities {
	n, size := 0, 0
	for i := range 4 {
		s.each(i, func(b []byte) { n, size = n+1, size+len(b) })
	}
	e := &Entities{}
	if n == 0 {
		return e
	}
	strs := make([]string, 0, n)
	buf := make([]byte, 0, size)
	lists := [4]*[]string{&e.Hashtags, &e.Mentions, &e.Cashtags, &e.URLs}
	for i, list := range lists {
		from := len(strs)
		s.each(i, func(b []byte) {
			at := len(buf)
			buf = append(buf, b...)
			strs = append(strs, unsafe.String(unsafe.SliceData(buf[at:]), len(b)))
		})
		if len(strs) > from {
			*list = strs[from:len(strs):len(strs)]
		}
	}
	return e
}

// v1Entities returns the entities of a v1.1 tweet whose members are f
// (see Entities): those of the text it is indexed with (v1Text), its own
// (extended_tweet's, else the tweet's), or for a retweet the retweeted
// tweet's, with the retweeted author's screen name, which "RT @name:"
// names. A quoted tweet's are not the quote's, as its text is not. Nil
// when the tweet whose text it is carries no entities object.
func v1Entities(f *fields) *Entities {
	s := entitySources{keys: &v1EntityKeys}
	if rs := f.retweeted; rs != nil && rs.Type() == fastjson.TypeObject {
		if name := rs.GetStringBytes("user", "screen_name"); len(name) > 0 {
			if !s.add(v1EntitiesOf(rs.Get("extended_tweet"), rs.Get("entities"))) {
				return nil
			}
			s.author = name
			return s.build()
		}
	}
	if !s.add(v1EntitiesOf(f.extended, f.entities)) {
		return nil
	}
	return s.build()
}

// v1EntitiesOf returns extended_tweet.entities, else entities.
func v1EntitiesOf(extended, entities *fastjson.Value) *fastjson.Value {
	if x := extended.Get("entities"); x != nil && x.Type() == fastjson.TypeObject {
		return x
	}
	return entities
}

// v2Entities returns the entities of a v2 tweet whose members are f,
// resolving the tweet it retweets through inc (nil for a flattened
// tweet): as v1Entities does, those of the text it is indexed with
// (v2Text: note_tweet's, else the tweet's, or the retweeted tweet's).
func v2Entities(f *fields, inc *includes) *Entities {
	s := entitySources{keys: &v2EntityKeys}
	if rt, name := v2Retweeted(f, inc); rt != nil {
		if !s.add(v2EntitiesOf(rt)) {
			return nil
		}
		s.author = name
	} else {
		ents := f.entities
		if nt := f.noteTweet.Get("entities"); f.noteTweet.GetStringBytes("text") != nil && nt != nil {
			ents = nt
		}
		if !s.add(ents) {
			return nil
		}
	}
	return s.build()
}

// v2EntitiesOf returns the entities of the v2 tweet v: note_tweet.entities
// when its text is the note's, else entities.
func v2EntitiesOf(v *fastjson.Value) *fastjson.Value {
	if v.GetStringBytes("note_tweet", "text") != nil {
		if nt := v.Get("note_tweet", "entities"); nt != nil {
			return nt
		}
	}
	return v.Get("entities")
}
