package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The docs of WithTolerance, WithMaxBodyBytes and MemoryStoreOptions state
// the defaults as numbers, not by the names of these constants.
func TestDefaultsAsDocumented(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 5*time.Minute, defaultTolerance)
	assert.Equal(t, int64(1<<20), defaultMaxBodyBytes)
	assert.Equal(t, 24*time.Hour, defaultStoreTTL)
	assert.Equal(t, 100_000, defaultStoreMaxEntries)
}
