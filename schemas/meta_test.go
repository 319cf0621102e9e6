package schemas_test

import (
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestTokenizerValue: the value of param/tokenizer names one version
// until another is added, then every version, ascending, with the one
// added last as its version; it decodes to what was encoded.
func TestTokenizerValue(t *testing.T) {
	tests := []struct {
		from schemas.TokenizerValue
		add  int
		want string
	}{
		{schemas.TokenizerValue{Version: 1}, 1, `{"version":1}`},
		{schemas.TokenizerValue{Version: 1}, 2, `{"version":2,"versions":[1,2]}`},
		{schemas.TokenizerValue{Version: 2}, 1, `{"version":1,"versions":[1,2]}`},
		{schemas.TokenizerValue{Version: schemas.TokenizerUnrecorded}, 1, `{"version":1,"versions":[0,1]}`},
		{schemas.TokenizerValue{Version: 2, Versions: []int{0, 2}}, 1, `{"version":1,"versions":[0,1,2]}`},
		{schemas.TokenizerValue{Version: 1, Versions: []int{1, 2}}, 2, `{"version":2,"versions":[1,2]}`},
	}
	for _, tc := range tests {
		c := tc.from.With(tc.add).Cell()
		if c.Table != schemas.TableMeta || string(c.Key) != schemas.TokenizerParam || string(c.Value) != tc.want {
			t.Errorf("%+v with %d: %c %s %s, want the meta row %s %s", tc.from, tc.add, c.Table, c.Key, c.Value, schemas.TokenizerParam, tc.want)
			continue
		}
		v, err := schemas.ParseTokenizerValue(c.Value)
		if err != nil || string(v.Cell().Value) != tc.want {
			t.Errorf("%s decodes to %+v (%v)", c.Value, v, err)
		}
	}
	if _, err := schemas.ParseTokenizerValue([]byte("1")); err == nil {
		t.Error("a value that is not an object decodes")
	}
}
