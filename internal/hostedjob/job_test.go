package hostedjob

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlainJSONString: the fast path of Timestamp.UnmarshalJSON gives what
// json.Unmarshal gives, and leaves escapes and non-ASCII to it.
func TestPlainJSONString(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`"2026-11-23T18:00:00.123Z"`, `""`, `"a b"`, `"\u0041"`, `"a\"b"`, `"é"`, `"x`, `x"`, `"`, `null`, "\"\x01\"", `"~"`} {
		got, ok := plainJSONString([]byte(in))
		var want string
		err := json.Unmarshal([]byte(in), &want)
		if ok {
			require.NoError(t, err, in)
			assert.Equal(t, want, got, in)
		}
		if strings.ContainsAny(in, "\\\x01é") || err != nil {
			assert.False(t, ok, in)
		}
	}
}
