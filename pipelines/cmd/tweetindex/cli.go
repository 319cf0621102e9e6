package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// This file is the command line's plumbing, written by hand to behave as
// spf13/cobra with pflag does (without their weight on a Beam build):
// flags and arguments in any order, --help on every command with our own
// flags first and Beam's behind --help-beam, "did you mean" for unknown
// flags, a flag given twice refused, and exit codes: 0 for success and
// help, 1 for a failed run, 2 for a usage error.

// Exit codes of the command.
const (
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line is wrong: nothing ran
	// exitIncomplete is backfill status's code when a range of the report
	// is missing or partial, or a run failed or is unfinished.
	exitIncomplete = 3
)

// errHelpShown says that help was printed as asked: exit 0.
var errHelpShown = errors.New("help shown")

// usageError is a mistake in the command line, found before anything ran:
// main prints it with a pointer to --help and exits 2.
type usageError struct {
	err  error
	help string // the command whose --help to point at ("query export"); "": the one run
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError.
func usagef(format string, a ...any) error { return usageError{err: fmt.Errorf(format, a...)} }

// helpOf makes a usage error, if err is one, point at the --help of
// command (a question's own, "query export", rather than query's).
func helpOf(err error, command string) error {
	var ue usageError
	if errors.As(err, &ue) {
		ue.help = command
		return ue
	}
	return err
}

// asUsage marks err, if not nil, as a usage error.
func asUsage(err error) error {
	if err == nil || errors.As(err, new(usageError)) || errors.Is(err, errHelpShown) {
		return err
	}
	return usageError{err: err}
}

// exitError carries an exit code other than 1 for an error already
// reported (or with nothing more to say when msg is empty).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// command is one command's flags and help.
type command struct {
	name     string // "index", "backfill status", "query count"
	synopsis string // usage lines, without "Usage:"
	about    string // what it does (may be empty)
	fs       *flag.FlagSet
	beam     map[string]*beamFlag // Beam's flags, mirrored (nil: none)
	repeat   map[string]bool      // flags that may be given more than once
	given    map[string]string    // our flags given, with their first value
	twice    error                // a flag given twice
	stdout   io.Writer            // where help goes
	// elsewhere, if set, says which related commands take a flag this
	// one does not (query's questions), or "".
	elsewhere func(name string) string
}

// newCommand returns a command without flags.
func newCommand(name, synopsis, about string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &command{name: name, synopsis: synopsis, about: about, fs: fs, given: map[string]string{}, stdout: os.Stdout}
}

// beamFlag records the values given to one of Beam's flags, which are set
// on flag.CommandLine after parsing: Beam exports the flags set there to
// the job's pipeline options.
type beamFlag struct {
	f    *flag.Flag
	vals []string
}

func (b *beamFlag) String() string     { return b.f.Value.String() }
func (b *beamFlag) Set(s string) error { b.vals = append(b.vals, s); return nil }

// boolBeamFlag is a beamFlag that takes no value.
type boolBeamFlag struct{ *beamFlag }

func (boolBeamFlag) IsBoolFlag() bool { return true }

// withBeam makes the command take Beam's flags (--runner, --endpoint, ...),
// which live on flag.CommandLine, after its own ones.
func (c *command) withBeam() {
	c.beam = map[string]*beamFlag{}
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if c.fs.Lookup(f.Name) != nil {
			return
		}
		b := &beamFlag{f: f}
		c.beam[f.Name] = b
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			c.fs.Var(boolBeamFlag{b}, f.Name, f.Usage)
		} else {
			c.fs.Var(b, f.Name, f.Usage)
		}
	})
}

// onceFlag refuses a second value.
type onceFlag struct {
	flag.Value
	c    *command
	name string
}

func (o onceFlag) Set(s string) error {
	if first, ok := o.c.given[o.name]; ok {
		if o.c.twice == nil {
			o.c.twice = usagef("--%s given twice (%q, then %q): give it once", o.name, first, s)
		}
		return o.c.twice
	}
	o.c.given[o.name] = s
	return o.Value.Set(s)
}

func (o onceFlag) IsBoolFlag() bool {
	bf, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && bf.IsBoolFlag()
}

// parse parses args, flags and arguments in any order ("--" ends the
// flags), and returns the arguments. --help prints the help and returns
// errHelpShown; --help-beam lists Beam's flags. Errors are usageErrors.
func (c *command) parse(args []string) ([]string, error) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--help-beam" || a == "-help-beam" {
			c.printBeamHelp(c.stdout)
			return nil, errHelpShown
		}
	}
	c.fs.VisitAll(func(f *flag.Flag) {
		if _, isBeam := c.beam[f.Name]; !isBeam && !c.repeat[f.Name] {
			if _, wrapped := f.Value.(onceFlag); !wrapped {
				f.Value = onceFlag{f.Value, c, f.Name}
			}
		}
	})
	var pos []string
	rest := args
	for len(rest) > 0 {
		if err := c.fs.Parse(rest); err != nil {
			return nil, c.flagError(err)
		}
		left := c.fs.Args()
		if len(left) == 0 {
			break
		}
		if used := len(rest) - len(left); used > 0 && rest[used-1] == "--" {
			pos = append(pos, left...)
			break
		}
		pos = append(pos, left[0])
		rest = left[1:]
	}
	if err := c.applyBeam(); err != nil {
		return nil, err
	}
	return pos, nil
}

// parseNoArgs parses args as parse does, for a command that takes no
// positional argument: one is a usage error.
func (c *command) parseNoArgs(args []string) error {
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	return nil
}

// checkFormat is the usage error of a --format that is not table or jsonl,
// the two forms of the summaries of forget and backfill status.
func checkFormat(format string) error {
	if format != "table" && format != "jsonl" {
		return usagef("--format %q: want table or jsonl", format)
	}
	return nil
}

// applyBeam sets the Beam flags given on flag.CommandLine, after checking
// that none of them is a look-alike of one of ours (--dry_run, Beam's,
// for --dry-run).
func (c *command) applyBeam() error {
	names := make([]string, 0, len(c.beam))
	for name, b := range c.beam {
		if len(b.vals) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		for _, own := range c.ownNames() {
			if normalize(own) == normalize(name) {
				return usagef("--%s is a Beam flag (%s); did you mean --%s?", name, firstSentence(c.beam[name].f.Usage), own)
			}
		}
		for _, v := range c.beam[name].vals {
			if err := flag.CommandLine.Set(name, v); err != nil {
				return usagef("--%s %q: %w", name, v, err)
			}
		}
	}
	return nil
}

// flagError turns an error of package flag into a usage error in our words.
func (c *command) flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		c.printHelp(c.stdout)
		return errHelpShown
	}
	if c.twice != nil {
		return c.twice
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + name
		if c.elsewhere != nil {
			if others := c.elsewhere(name); others != "" {
				return usagef("%s takes no --%s (%s)", c.name, name, others)
			}
		}
		if s := c.suggest(name); s != "" {
			msg += "; did you mean --" + s
			if b := c.beam[s]; b != nil {
				msg += " (a Beam flag: " + firstSentence(b.f.Usage) + ")"
			}
			msg += "?"
		}
		return usagef("%s", msg)
	}
	// Package flag names flags with one dash; we document two.
	msg = strings.Replace(msg, "flag -", "flag --", 1)
	msg = strings.Replace(msg, "for -", "for --", 1)
	msg = strings.Replace(msg, "argument: -", "argument: --", 1)
	return usagef("%s", msg)
}

// ownNames returns the names of the command's own flags, sorted.
func (c *command) ownNames() []string {
	var names []string
	c.fs.VisitAll(func(f *flag.Flag) {
		if _, isBeam := c.beam[f.Name]; !isBeam {
			names = append(names, f.Name)
		}
	})
	return names
}

// suggest returns the flag most like name, or "" if none is close:
// the same but for case, dashes and underscores, the start of one flag
// only (--form for --format), or within two edits.
func (c *command) suggest(name string) string {
	best, bestD := "", 3
	prefixOf := 0
	c.fs.VisitAll(func(f *flag.Flag) {
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			prefixOf++
		}
	})
	c.fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(strings.ToLower(name), strings.ToLower(f.Name))
		if normalize(name) == normalize(f.Name) || prefixOf == 1 && strings.HasPrefix(f.Name, name) {
			d = 0
		}
		if d < bestD || (d == bestD && best != "" && c.beam[best] != nil && c.beam[f.Name] == nil) {
			best, bestD = f.Name, d
		}
	})
	if bestD > 2 || (bestD == 2 && len(name) < 5) {
		return ""
	}
	return best
}

// suggestWord returns the word of words most like w, or "".
func suggestWord(w string, words []string) string {
	best, bestD := "", 3
	for _, c := range words {
		if d := editDistance(w, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > 2 || (bestD == 2 && len(w) < 5) {
		return ""
	}
	return best
}

func normalize(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
}

// editDistance is the number of edits between a and b: letters inserted,
// deleted, replaced, or two neighbours swapped (--lnag is one edit from
// --lang).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// printHelp writes the command's help: usage, what it does, its own flags
// and a pointer to Beam's.
func (c *command) printHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage:\n%s\n", indent(c.synopsis))
	if c.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.about, "\n"))
	}
	if own := c.ownNames(); len(own) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		printFlags(w, c.fs, own)
	}
	if c.beam != nil {
		fmt.Fprintf(w, "\nBeam flags (%d: --runner, --endpoint, --environment_type, --job_name, ...) pass through to\nthe Beam Go SDK; the default runner is prism, in process. List them: tweetindex %s --help-beam\n", len(c.beam), c.name)
	}
}

// printBeamHelp lists Beam's flags.
func (c *command) printBeamHelp(w io.Writer) {
	if c.beam == nil {
		fmt.Fprintf(w, "tweetindex %s takes no Beam flags.\n", c.name)
		return
	}
	names := make([]string, 0, len(c.beam))
	for name := range c.beam {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "Beam flags of tweetindex %s (passed to the Beam Go SDK; the default runner is prism, in process):\n", c.name)
	printFlags(w, c.fs, names)
}

// printFlags writes the flags names of fs, a line each in pflag's layout:
// "  --name TYPE   usage (default X)".
func printFlags(w io.Writer, fs *flag.FlagSet, names []string) {
	type line struct{ left, right string }
	var lines []line
	width := 0
	for _, name := range names {
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		typ, usage := flag.UnquoteUsage(unwrapped(f))
		left := "  --" + name
		if typ != "" {
			left += " " + typ
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && d != "[]" {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		lines = append(lines, line{left, strings.ReplaceAll(usage, "\n", " ")})
		width = max(width, len(left))
	}
	width = min(width, 32)
	for _, l := range lines {
		if len(l.left) > width {
			fmt.Fprintf(w, "%s\n%s   %s\n", l.left, strings.Repeat(" ", width), l.right)
		} else {
			fmt.Fprintf(w, "%-*s   %s\n", width, l.left, l.right)
		}
	}
}

// unwrapped returns f with the value it wraps (for onceFlag and
// beamFlag), whose type names the flag's argument in help.
func unwrapped(f *flag.Flag) *flag.Flag {
	g := *f
	switch v := g.Value.(type) {
	case onceFlag:
		g.Value = v.Value
	case *beamFlag:
		g.Value = v.f.Value
	case boolBeamFlag:
		g.Value = v.f.Value
	}
	return &g
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".\n"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// verbAt returns the index in args of the first argument that is not a
// flag or a flag's value, as fs parses them, or -1. A flag unknown to fs
// is a usage error; a flag's value is the next argument unless the flag is
// a bool or is written --flag=value.
func verbAt(fs *flag.FlagSet, args []string) (int, error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return i + 1, nil
			}
			return -1, nil
		}
		if len(a) < 2 || a[0] != '-' {
			return i, nil
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		switch name {
		case "h", "help", "help-beam":
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // parse reports it
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		i++ // its value
	}
	return -1, nil
}

// without returns args without the element at i.
func without(args []string, i int) []string {
	out := append([]string(nil), args[:i]...)
	return append(out, args[i+1:]...)
}

// questionAt returns the index in args of query's question: the first
// argument that is neither a flag nor a flag's value (every flag of query
// takes a value, unless written --flag=value), or -1.
func questionAt(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		case len(a) < 2 || a[0] != '-':
			return i
		case isHelpFlag(a), strings.Contains(a, "="):
		default:
			i++ // its value
		}
	}
	return -1
}

// isHelpFlag reports whether a asks for help.
func isHelpFlag(a string) bool {
	switch a {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// unknownQuestion is the usage error for a question query does not know.
func unknownQuestion(name string) error {
	names := questionNames()
	msg := fmt.Sprintf("unknown question %q (want %s)", name, strings.Join(names, ", "))
	if s := suggestWord(name, names); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return usagef("%s", msg)
}

// questionNames returns the names of the questions, in questionCommands'
// order: the one list every message takes them from.
func questionNames() []string {
	names := make([]string, len(questionCommands))
	for i, c := range questionCommands {
		names[i] = c.name
	}
	return names
}
