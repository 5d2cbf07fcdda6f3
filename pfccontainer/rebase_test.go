package pfccontainer

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestRebaseURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		corrected, base, want string
	}{
		{"http://localhost/output/a.jpg", "http://127.0.0.1:8080", "http://127.0.0.1:8080/output/a.jpg"},
		{"http://localhost/output/a.jpg", "http://127.0.0.1:8080/", "http://127.0.0.1:8080/output/a.jpg"},
		{"http://localhost/output/holiday%20photo.jpg", "https://gw.example/pfc", "https://gw.example/pfc/output/holiday%20photo.jpg"},
		{"http://pfc:80/site/output/x.png?v=1", "http://host", "http://host/output/x.png?v=1"},
		{"http://localhost/output/a%2Fb.jpg", "http://h", "http://h/output/a%2Fb.jpg"},
	} {
		got, err := rebaseURL(tc.corrected, tc.base)
		require.NoError(t, err, tc.corrected)
		assert.Equal(t, tc.want, got)
	}
	for _, bad := range []string{"", "/output/a.jpg", "http://localhost/files/a.jpg", "http://localhost/output/", "::",
		// A hostile corrected_url walking out of /output/ on the client's
		// base host (and out of a proxy's prefix).
		"http://localhost/output/../../admin", "http://localhost/output/x/%2e%2e/%2E%2E/admin",
		"http://localhost/output/..%2F..%2Fadmin", "http://localhost/output/a%5C..%5Cb", "http://localhost/output/./a.jpg"} {
		_, err := rebaseURL(bad, "http://h")
		assert.ErrorIs(t, err, errNotOutputURL, bad)
	}
	_, err := rebaseURL("http://localhost/output/a.jpg", "h:80")
	assert.Error(t, err)
}

func TestOutputFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := outputFile(dir, &Correction{CorrectedURL: "http://localhost/output/holiday%20photo.jpg"})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "holiday photo.jpg"), p)
	for _, u := range []string{
		"http://localhost/output/..%2F..%2Fetc%2Fpasswd",
		"http://localhost/output/.hidden",
		"http://localhost/output/",
		"http://localhost/output/..",
	} {
		_, err := outputFile(dir, &Correction{CorrectedURL: u})
		assert.ErrorIs(t, err, pfc.ErrInvalidResponse, u)
	}
}
