package maintain

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadIDList(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		"1790000000000000001",
		"  ",
		`{"id":"1790000000000000002","action":"delete","created_at":"2026-11-02T00:00:00.000Z","reason":"deleted"}`,
		`{"id":1790000000000000003}`,
		`{"id_str":"1790000000000000004","id":1.79e18}`,
		`{"delete":{"status":{"id":1,"id_str":"1790000000000000005"}}}`,
		`{"id":"1790000000000000006","action":"scrub_geo"}`,
		"12ab",
		`{"text":"no id"}`,
		`{"id":"0"}`,
		`{broken`,
	}, "\n")
	got, err := ReadIDList(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1790000000000000001, 1790000000000000002, 1790000000000000003, 1790000000000000004, 1790000000000000005}
	if fmt.Sprint(got.IDs) != fmt.Sprint(want) {
		t.Errorf("ids %v, want %v", got.IDs, want)
	}
	if got.NotDeletes != 1 {
		t.Errorf("%d events other than delete, want 1 (scrub_geo)", got.NotDeletes)
	}
	var lines []int
	for _, b := range got.Bad {
		lines = append(lines, b.Line)
	}
	if fmt.Sprint(lines) != "[8 9 10 11]" {
		t.Errorf("bad lines %v (%+v), want [8 9 10 11]", lines, got.Bad)
	}
}
