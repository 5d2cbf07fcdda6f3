package bgcontainer

import (
	"testing"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
)

// The replica tests wait out a hung replica's 2 s response-header timeout.
func TestMain(m *testing.M) { streamtest.WaitingMain(m) }
