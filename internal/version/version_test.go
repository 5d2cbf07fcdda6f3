package version

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUserAgent(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "0.1.0", Version)
	assert.Equal(t, "pfc-go/0.1.0", UserAgent())
}
