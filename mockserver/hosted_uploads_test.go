package mockserver_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
)

func TestAuth(t *testing.T) {
	f := newFixture(t)
	for _, route := range []struct{ method, path string }{
		{"GET", "/v2/upload"}, {"GET", "/v2/pfc?fileKey=x"}, {"GET", "/v2/status/abc"},
		{"GET", "/v2/presets"}, {"POST", "/v2/presets/"}, {"GET", "/v2/presets/p"}, {"DELETE", "/v2/presets/p"},
		{"GET", "/v2/nope"}, {"GET", "/v2"},
	} {
		resp, b := f.do(t, route.method, route.path, "", nil)
		e := requireError(t, resp, b, http.StatusUnauthorized, "unauthorized", "")
		assert.Contains(t, e.Message, "missing X-API-KEY", route.path)
		assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))

		resp, b = f.do(t, route.method, route.path, "wrong-key", nil)
		e = requireError(t, resp, b, http.StatusUnauthorized, "unauthorized", "")
		assert.Equal(t, "invalid API key", e.Message)
	}
	resp, b := f.api(t, http.MethodGet, "/nope")
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.api(t, http.MethodPost, "/upload")
	requireError(t, resp, b, http.StatusMethodNotAllowed, "method_not_allowed", "")
	assert.Equal(t, "GET", resp.Header.Get("Allow"))
	resp, b = f.do(t, http.MethodGet, "/elsewhere", "", nil)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
}

func TestAccountsAreSeparate(t *testing.T) {
	f := newFixture(t, func(o *mockserver.HostedOptions) { o.APIKeys = []string{"key-a", "key-b"} })
	assert.Equal(t, "key-a", f.APIKey)
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	id := f.start(t, "fileKey="+key)
	f.WaitIdle()
	resp, b := f.do(t, http.MethodGet, "/v2/status/"+id, "key-b", nil)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.do(t, http.MethodGet, "/v2/pfc?fileKey="+key, "key-b", nil)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "fileKey")
}

func TestBaseURL(t *testing.T) {
	f := newFixture(t, func(o *mockserver.HostedOptions) { o.BaseURL = "https://mock.example.test/prefix/" })
	tk := f.ticket(t, "")
	assert.True(t, strings.HasPrefix(tk.UploadURL, "https://mock.example.test/prefix/storage/upload/"+tk.FileKey+"?"), tk.UploadURL)
	_, err := mockserver.NewHosted(mockserver.HostedOptions{BaseURL: "mock.example.test"})
	require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
}

func TestUploadTicketAndSignedPut(t *testing.T) {
	f := newFixture(t)
	tk := f.ticket(t, "")
	u, err := url.Parse(tk.UploadURL)
	require.NoError(t, err)
	assert.Equal(t, "/storage/upload/"+tk.FileKey, u.Path)
	assert.NotEmpty(t, u.Query().Get("signature"))
	assert.Equal(t, strconv.FormatInt(t0.Add(time.Hour).Unix(), 10), u.Query().Get("expires"))

	// A wrong API key on the pre-signed PUT is not even looked at.
	data := jpegBytes(t, 64, 48)
	resp, b := f.do(t, http.MethodPut, tk.UploadURL, "some-other-key", bytes.NewReader(data))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	j := f.run2(t, tk.FileKey)
	assert.Equal(t, hosted.StatusCompleted, j.Status)

	for _, q := range []string{"?fileType=audio", "?fileType=", "?fileType=image&fileType=video"} {
		resp, b := f.api(t, http.MethodGet, "/upload"+q)
		requireError(t, resp, b, http.StatusBadRequest, "invalid_parameter", "fileType")
	}
	resp, b = f.api(t, http.MethodGet, "/upload?size=1")
	requireError(t, resp, b, http.StatusBadRequest, "unknown_parameter", "size")
	resp, b = f.do(t, http.MethodGet, tk.UploadURL, "", nil)
	requireError(t, resp, b, http.StatusMethodNotAllowed, "method_not_allowed", "")
}

// run2 starts a default job on an uploaded key and waits for it.
func (f *fixture) run2(t *testing.T, key string) hosted.Job {
	t.Helper()
	id := f.start(t, "fileKey="+key)
	f.WaitIdle()
	j, _ := f.status(t, id)
	return j
}

func TestUploadTamperedOrExpiredStoresNothing(t *testing.T) {
	f := newFixture(t)
	data := jpegBytes(t, 64, 48)
	notStored := func(key string) {
		t.Helper()
		resp, b := f.api(t, http.MethodGet, "/pfc?fileKey="+key)
		e := requireError(t, resp, b, http.StatusNotFound, "not_found", "fileKey")
		assert.Contains(t, e.Message, "nothing has been uploaded")
	}

	tk := f.ticket(t, "")
	other := f.ticket(t, "")
	u, _ := url.Parse(tk.UploadURL)
	q := u.Query()
	tampered := map[string]string{}
	sig := q.Get("signature")
	flipped := []byte(sig)
	flipped[0] ^= 1
	if flipped[0] == sig[0] {
		flipped[0] = 'A'
	}
	tampered["signature"] = f.Server.URL + u.Path + "?expires=" + q.Get("expires") + "&signature=" + string(flipped)
	tampered["expiry"] = f.Server.URL + u.Path + "?expires=" + strconv.FormatInt(t0.Add(48*time.Hour).Unix(), 10) + "&signature=" + sig
	tampered["key"] = f.Server.URL + "/storage/upload/" + other.FileKey + "?" + u.RawQuery
	tampered["no signature"] = f.Server.URL + u.Path + "?expires=" + q.Get("expires")
	tampered["preset route"] = f.Server.URL + "/storage/presets/" + tk.FileKey + "?" + u.RawQuery
	for name, bad := range tampered {
		resp, b := f.do(t, http.MethodPut, bad, "", bytes.NewReader(data))
		requireError(t, resp, b, http.StatusForbidden, "forbidden", "")
		_ = name
	}
	notStored(tk.FileKey)
	notStored(other.FileKey)

	// Expired: valid through the expiry second, refused after.
	f.clk.Advance(time.Hour + time.Second)
	resp, b := f.do(t, http.MethodPut, tk.UploadURL, "", bytes.NewReader(data))
	requireError(t, resp, b, http.StatusForbidden, "url_expired", "")
	// The unused ticket has been forgotten by then.
	resp, b = f.api(t, http.MethodGet, "/pfc?fileKey="+tk.FileKey)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "fileKey")

	entries, err := os.ReadDir(f.Hosted.DataDir())
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			inner, err := os.ReadDir(f.Hosted.DataDir() + "/" + e.Name())
			require.NoError(t, err)
			assert.Empty(t, inner, "no partial upload left in %s", e.Name())
			continue
		}
		t.Errorf("unexpected file %s", e.Name())
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestUploadTooLarge(t *testing.T) { // videos: TestVideoUploadLimit
	f := newFixture(t)
	// Declared too large: refused before reading.
	tk := f.ticket(t, "image")
	req, err := http.NewRequest(http.MethodPut, tk.UploadURL, io.LimitReader(zeroReader{}, 50_000_000))
	require.NoError(t, err)
	req.ContentLength = 50_000_000
	resp, err := f.http.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")

	// Streamed (chunked, no length): refused once past the limit.
	req, err = http.NewRequest(http.MethodPut, tk.UploadURL, io.LimitReader(zeroReader{}, 50_000_000))
	require.NoError(t, err)
	req.ContentLength = -1
	resp, err = f.http.Do(req)
	require.NoError(t, err)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")

	resp2, b2 := f.api(t, http.MethodGet, "/pfc?fileKey="+tk.FileKey)
	requireError(t, resp2, b2, http.StatusNotFound, "not_found", "fileKey")

	// Exactly at the limit is fine for images (49,999,999 bytes).
	req, err = http.NewRequest(http.MethodPut, tk.UploadURL, io.LimitReader(zeroReader{}, 49_999_999))
	require.NoError(t, err)
	req.ContentLength = -1
	resp, err = f.http.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
