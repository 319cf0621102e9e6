package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFlagDocumented: every flag a command's --help lists is named
// (as --flag) in the docs (README.md or docs/*.md), so that a new flag
// cannot land without its documentation. Questions of query are asked
// one by one, as each has its own flags.
func TestEveryFlagDocumented(t *testing.T) {
	var docs strings.Builder
	files, err := filepath.Glob("../../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found (%v)", err)
	}
	for _, f := range append(files, "../../../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	cmds := [][]string{{"index"}, {"backfill"}, {"backfill", "status"}, {"serve"}, {"dump"}, {"forget"}, {"check"}, {"schema", "apply"}}
	for _, qc := range questionCommands {
		cmds = append(cmds, []string{"query", qc.name})
	}
	flagLine := regexp.MustCompile(`(?m)^  --([a-z][a-z0-9_-]*)`)
	for _, cmd := range cmds {
		code, stdout, stderr := runCLI(t, append(cmd, "--help")...)
		if code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", strings.Join(cmd, " "), code, stderr)
		}
		flags := flagLine.FindAllStringSubmatch(stdout, -1)
		if len(flags) == 0 {
			t.Errorf("%s --help lists no flags", strings.Join(cmd, " "))
		}
		for _, f := range flags {
			if !strings.Contains(docs.String(), "--"+f[1]) {
				t.Errorf("%s: --%s is in its --help but in no doc (README.md, docs/*.md)", strings.Join(cmd, " "), f[1])
			}
		}
	}
}
