package hostedsvc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

func newTestService(t *testing.T) *Service {
	t.Helper()
	s, err := New(Config{APIKeys: []string{"k"}, Clock: clock.NewFake(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))}, Deps{
		WorkDir:       t.TempDir(),
		WebhookSigner: func([]byte, string, time.Time, []byte) http.Header { return http.Header{} },
	})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// TestStoreFailureIsA500WithoutPaths: a failure of the mock's own disk is
// not the client's fault (500, not 400), and the answer does not reveal
// server paths; the log has the detail.
func TestStoreFailureIsA500WithoutPaths(t *testing.T) {
	s := newTestService(t)
	req := httptest.NewRequest(http.MethodGet, "http://mock.test/v2/upload", nil)
	req.Header.Set(APIKeyHeader, "k")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
	var tk UploadTicket
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &tk))

	require.NoError(t, os.RemoveAll(filepath.Join(s.cfg.WorkDir, ".tmp")))
	rec = httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPut, tk.UploadURL, strings.NewReader("data")))
	require.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())
	var e httpx.Error
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
	assert.Equal(t, httpx.CodeInternal, e.Code)
	assert.NotContains(t, rec.Body.String(), s.cfg.WorkDir)
}
