package job

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// TestMain initializes Beam (prism runs in process) before the tests.
func TestMain(m *testing.M) { ptest.Main(m) }
