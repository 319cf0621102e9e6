package cmdtest

import (
	"os/exec"
	"testing"
)

// Kcat returns the path of kcat (librdkafka's command-line client), or
// skips the test saying so in one line: the tests that check the project
// against clients written by others run where those are installed
// (apt-get install kcat), and skip elsewhere.
func Kcat(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed (apt-get install kcat): not checked with librdkafka")
	}
	return p
}

// PythonCassandra returns a Python 3 that imports the DataStax Python
// driver (Debian's python3-cassandra), or skips the test saying so in one
// line. The python3 first on PATH is tried, then the system's
// (/usr/bin/python3, where Debian installs the driver).
func PythonCassandra(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(p, "-c", "import cassandra.cluster, cassandra.auth").Run() == nil {
			return p
		}
	}
	t.Skip("the DataStax Python driver is not installed (apt-get install python3-cassandra): not checked with it")
	return ""
}
