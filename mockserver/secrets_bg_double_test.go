package mockserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostileBG is a background-removal container double that echoes the
// licence key it is sent (a path segment of /Authorize/{license_key}) in
// its error body and headers, and answers every image endpoint 403
// not_activated so that the client tries to activate.
func hostileBG(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, _ := strings.CutPrefix(r.URL.EscapedPath(), "/Authorize/")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", r.URL.Path)
		status, code := http.StatusForbidden, "not_activated"
		if strings.HasPrefix(r.URL.Path, "/Authorize/") {
			status, code = http.StatusBadRequest, "bad_key_"+key
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": status, "code": code,
			"message": "licence " + r.URL.Path + " (" + key + ", " + respell(r.URL.Path) + ") refused", "detail": r.URL.String()})
	}))
	t.Cleanup(srv.Close)
	return srv
}
