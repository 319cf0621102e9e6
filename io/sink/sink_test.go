package sink

import "testing"

func TestPrefixEnd(t *testing.T) {
	tests := []struct{ in, want []byte }{
		{[]byte("ab"), []byte("ac")},
		{[]byte{'a', 0xff}, []byte("b")},
		{[]byte{0xff, 0xff}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := PrefixEnd(tt.in); string(got) != string(tt.want) {
			t.Errorf("PrefixEnd(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
