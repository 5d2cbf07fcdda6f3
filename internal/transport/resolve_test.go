package transport

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResolveFastPath: resolve gives exactly what parsing BaseURL+"/"+path
// gives, for paths it joins without parsing and for the others.
func TestResolveFastPath(t *testing.T) {
	t.Parallel()
	bases := []string{"https://api.example.test/v2", "https://api.example.test/v2/", "http://127.0.0.1:8080",
		"http://[::1]:9000/", "https://h.test/a%20b/v2", "https://h.test/x:y!z/v2", "https://h.test/%2Fenc/v2"}
	paths := []string{"", "/", "upload", "/upload", "status/abc-123_x.y~z", "status/a%2Fb", "pfc/k%20ey.jpg",
		"//double", "a/./b/../c", "presets/", "ünïcode", "a:b", "a;b=c", "status/" + PathEscape("id with space")}
	for _, b := range bases {
		c, err := New(Options{BaseURL: b})
		require.NoError(t, err, b)
		for _, p := range paths {
			got, err := c.resolve(p)
			require.NoError(t, err, "%s + %s", b, p)
			s := c.baseString
			if p != "" {
				s += "/" + trimSlash(p)
			}
			want, err := parseURL(s)
			require.NoError(t, err, s)
			assert.Equal(t, *want, *got, "%s + %s", b, p)
			assert.Equal(t, want.String(), got.String(), "%s + %s", b, p)
		}
	}
}

func trimSlash(p string) string {
	if len(p) > 0 && p[0] == '/' {
		return p[1:]
	}
	return p
}

func parseURL(s string) (*url.URL, error) { return url.Parse(s) }
