package bgcontainer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// TestAuthorizeDoesNotFollowRedirects: the licence key is a path segment
// of /Authorize, so a redirect keeping the path (a proxy moving the
// container to another host) would hand the key to that host. Authorize
// stops at the 3xx instead, and the error does not quote the key.
func TestAuthorizeDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c, err := NewClient(secretKey, pfc.WithBaseURL(srv.URL), pfc.WithRetries(-1, 0, 0))
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	_, err = c.Authorize(context.Background())
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusTemporaryRedirect, e.StatusCode)
	assert.Equal(t, string(epAuthorize), e.Endpoint)
	assert.NotContains(t, err.Error(), secretKey)
	assert.Zero(t, reached.Load(), "the other host saw the licence key")
}
