package hostedmock_test

import (
	"bytes"
	"errors"
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
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
)

func TestAuth(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	f := newFixture(t, func(o *hostedmock.Options) { o.APIKeys = []string{"key-a", "key-b"} })
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
	t.Parallel()
	f := newFixture(t, func(o *hostedmock.Options) { o.BaseURL = "https://mock.example.test/prefix/" })
	tk := f.ticket(t, "")
	assert.True(t, strings.HasPrefix(tk.UploadURL, "https://mock.example.test/prefix/storage/upload/"+tk.FileKey+"?"), tk.UploadURL)
	_, err := hostedmock.New(hostedmock.Options{BaseURL: "mock.example.test"})
	require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
	// One base-URL convention: the client's base URL ends in /v2, the
	// mock's must not (it serves /v2 itself); the mistake is named.
	for _, withV2 := range []string{"https://mock.example.test/v2", "https://mock.example.test/v2/"} {
		_, err = hostedmock.New(hostedmock.Options{BaseURL: withV2})
		require.ErrorIs(t, err, mockserver.ErrInvalidOptions, withV2)
		assert.Contains(t, err.Error(), "/v2", withV2)
	}
}

func TestUploadTicketAndSignedPut(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

	entries, err := os.ReadDir(f.Mock.DataDir())
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			inner, err := os.ReadDir(f.Mock.DataDir() + "/" + e.Name())
			require.NoError(t, err)
			assert.Empty(t, inner, "no partial upload left in %s", e.Name())
			continue
		}
		t.Errorf("unexpected file %s", e.Name())
	}
}

// putZeros PUTs n zero bytes to url, declaring their length unless
// chunked, and returns the answer with its body read.
func (f *fixture) putZeros(t *testing.T, url string, n int64, chunked bool) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, io.LimitReader(zeroReader{}, n))
	require.NoError(t, err)
	req.ContentLength = n
	if chunked {
		req.ContentLength = -1
	}
	resp, err := f.http.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b
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
	resp, b := f.putZeros(t, tk.UploadURL, 50_000_000, false)
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")

	// Streamed (chunked, no length): refused once past the limit.
	resp, b = f.putZeros(t, tk.UploadURL, 50_000_000, true)
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")

	resp2, b2 := f.api(t, http.MethodGet, "/pfc?fileKey="+tk.FileKey)
	requireError(t, resp2, b2, http.StatusNotFound, "not_found", "fileKey")

	// Exactly at the limit is fine for images (49,999,999 bytes).
	resp, _ = f.putZeros(t, tk.UploadURL, 49_999_999, true)
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// slowBody is an upload body whose second Read first runs during (the
// clock advancing past the URL's expiry while the body is on its way),
// and which fails there instead of sending the rest when fail is set.
type slowBody struct {
	parts  [][]byte
	during func()
	fail   bool
	reads  int
}

func (b *slowBody) Read(p []byte) (int, error) {
	b.reads++
	if b.reads == 2 {
		b.during()
		if b.fail {
			return 0, errors.New("client gave up")
		}
	}
	if len(b.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.parts[0])
	if b.parts[0] = b.parts[0][n:]; len(b.parts[0]) == 0 {
		b.parts = b.parts[1:]
	}
	return n, nil
}

// TestUploadURLCheckedWhenTheRequestArrives: like an object store, the
// mock checks a pre-signed URL's expiry when the PUT arrives; an upload
// that started in time succeeds even though the URL (and the unused
// ticket's lifetime) ends while its body is being received. The client
// sends "Expect: 100-continue", so the body is read only once the server
// has checked the URL and begun receiving, and the fake clock advances
// during the body, deterministically.
func TestUploadURLCheckedWhenTheRequestArrives(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tr := &http.Transport{ExpectContinueTimeout: time.Hour} // wait for the server's 100 Continue
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	data := jpegBytes(t, 64, 48)
	put := func(t *testing.T, tk hosted.UploadTicket, body *slowBody) (*http.Response, error) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPut, tk.UploadURL, body)
		require.NoError(t, err)
		req.ContentLength = int64(len(data))
		req.Header.Set("Expect", "100-continue")
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return resp, err
	}
	pastExpiry := func() { f.clk.Advance(time.Hour + 2*time.Second) } // TTL 1 h; the ticket is forgotten at TTL+1s

	tk := f.ticket(t, "")
	body := &slowBody{parts: [][]byte{data[:100], data[100:]}, during: pastExpiry}
	resp, err := put(t, tk, body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.GreaterOrEqual(t, body.reads, 2, "the clock advanced during the body")
	j := f.run2(t, tk.FileKey)
	assert.Equal(t, hosted.StatusCompleted, j.Status, "the file is stored and usable")

	// The same URL, arriving now, is expired.
	r, b := f.do(t, http.MethodPut, tk.UploadURL, "", bytes.NewReader(data))
	requireError(t, r, b, http.StatusForbidden, "url_expired", "")

	// An upload that fails after its URL expired leaves nothing: the
	// ticket's deferred expiry runs when the body ends.
	tk = f.ticket(t, "")
	_, _ = put(t, tk, &slowBody{parts: [][]byte{data[:100], data[100:]}, during: pastExpiry, fail: true})
	f.WaitIdle()
	r, b = f.api(t, http.MethodGet, "/pfc?fileKey="+tk.FileKey)
	e := requireError(t, r, b, http.StatusNotFound, "not_found", "fileKey")
	assert.Contains(t, e.Message, "unknown or expired")
}

// TestUploadsKeptSevenDays: an uploaded file stays usable for a fixed 7
// days from its upload, whatever the job retention (default 24 h) and
// however often it is used: as fileKey (the retention of originals) and as
// bgFileKey (the seed's 7-day background cache, whose key can be reused).
func TestUploadsKeptSevenDays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := f.upload(t, "", jpegBytes(t, 64, 48))
	bgKey := f.upload(t, "", pngBytes(t, 40, 40))
	use := func(t *testing.T) {
		t.Helper()
		j := f.run2(t, key+"&removeBackground=true&bgFileKey="+bgKey+"&cache=false")
		require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
		assert.Equal(t, "image", f.proc.last().Background.Mode)
	}

	use(t)
	f.Advance(3 * 24 * time.Hour) // the first job and its result are gone by now
	use(t)
	f.Advance(4*24*time.Hour - time.Second) // 7 days less a second since the uploads
	use(t)

	f.Advance(time.Second)
	resp, b := f.api(t, http.MethodGet, "/pfc?fileKey="+key)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "fileKey")
	fresh := f.upload(t, "", jpegBytes(t, 64, 48))
	resp, b = f.api(t, http.MethodGet, "/pfc?fileKey="+fresh+"&removeBackground=true&bgFileKey="+bgKey)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "bgFileKey")
}
