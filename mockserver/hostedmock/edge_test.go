package hostedmock_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// rawPut starts a PUT of a declaredLength-byte body to uploadURL on a raw
// connection with "Expect: 100-continue", and returns once the server has
// answered 100 Continue, which Go's server does when the handler first
// reads the body: the upload is then in flight, deterministically. The
// caller closes the connection.
func rawPut(t *testing.T, uploadURL string, declaredLength int64) (net.Conn, *bufio.Reader) {
	t.Helper()
	u, err := url.Parse(uploadURL)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	// A safety net for a broken server only: no assertion depends on it.
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", u.RequestURI(), u.Host, declaredLength)
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusContinue, resp.StatusCode)
	return conn, br
}

// dirFiles lists the regular files under dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return files
}

// TestCloseAbortsUploadsInFlight: Close does not leave an upload writing
// into the data directory it removes: the body being received is
// interrupted and answered 503, and Close waits for it.
func TestCloseAbortsUploadsInFlight(t *testing.T) {
	t.Parallel()
	h, err := hostedmock.New(hostedmock.Options{Processor: &testProcessor{}, Clock: clock.NewFake(t0)})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := hosted.NewClient(hostedmock.DefaultAPIKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	tk, err := c.RequestUpload(t.Context(), hosted.FileTypeVideo)
	require.NoError(t, err)

	conn, br := rawPut(t, tk.UploadURL, 1<<30)
	defer conn.Close() // before srv.Close, which waits for the handler
	_, err = conn.Write(bytes.Repeat([]byte{0xAB}, 64<<10))
	require.NoError(t, err)

	require.NoError(t, h.Close())
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err, "the stalled upload was answered, not left reading")
	defer resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	_, err = os.Stat(h.DataDir())
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written after the directory was removed")
}

// TestUploadAfterCloseIsUnavailable: once closed, a pre-signed PUT stores
// nothing and answers 503 without revealing server paths.
func TestUploadAfterCloseIsUnavailable(t *testing.T) {
	t.Parallel()
	h, err := hostedmock.New(hostedmock.Options{Processor: &testProcessor{}, Clock: clock.NewFake(t0)})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "http://mock.test/v2/upload", nil)
	req.Header.Set("X-API-KEY", hostedmock.DefaultAPIKey)
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
	tk := decode[hosted.UploadTicket](t, rec.Body.Bytes())
	require.NoError(t, h.Close())

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, tk.UploadURL, strings.NewReader("data")))
	resp := rec.Result()
	e := requireError(t, resp, rec.Body.Bytes(), http.StatusServiceUnavailable, "unavailable", "")
	assert.NotContains(t, e.Message, h.DataDir())
	assert.Empty(t, dirFiles(t, h.DataDir()))
}

// TestAPIAfterCloseIsUnavailable: once closed, the API answers 503 on
// every route, as documented. /pfc used to answer 500 (its upload's file
// was gone with the data directory), /upload and POST /presets/ 200 with
// URLs nothing could use.
func TestAPIAfterCloseIsUnavailable(t *testing.T) {
	t.Parallel()
	h, err := hostedmock.New(hostedmock.Options{Processor: &testProcessor{}, Clock: clock.NewFake(t0)})
	require.NoError(t, err)
	serve := func(method, target, body string) (*http.Response, []byte) {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("X-API-KEY", hostedmock.DefaultAPIKey)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result(), rec.Body.Bytes()
	}
	resp, b := serve(http.MethodGet, "http://mock.test/v2/upload", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	tk := decode[hosted.UploadTicket](t, b)
	resp, b = serve(http.MethodPut, tk.UploadURL, string(jpegBytes(t, 64, 64)))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	require.NoError(t, h.Close())

	for _, r := range [][3]string{
		{http.MethodGet, "/v2/pfc?fileKey=" + tk.FileKey, ""},
		{http.MethodGet, "/v2/upload", ""},
		{http.MethodPost, "/v2/presets/", `{"name":"x"}`},
	} {
		resp, b := serve(r[0], "http://mock.test"+r[1], r[2])
		e := requireError(t, resp, b, http.StatusServiceUnavailable, "unavailable", "")
		assert.NotContains(t, e.Message, h.DataDir())
	}
}

// TestWebhookCAsConnectionsClosedByClose: the webhook client the mock
// builds from WebhookCAs keeps connections alive; Close must not leave
// their goroutines behind while the receiver lives on.
func TestWebhookCAsConnectionsClosedByClose(t *testing.T) {
	// Serial: goleak.VerifyNone sees every goroutine of the binary, and
	// parallel tests' goroutines would read as leaks.
	rc := newHookReceiver(t, func(int) int { return http.StatusOK })
	pool := rc.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	// The receiver's own connection goroutines end when it closes, after
	// this check.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), goleak.IgnoreAnyFunction("net/http.(*conn).serve"))

	h, err := hostedmock.New(hostedmock.Options{Processor: &testProcessor{}, Clock: clock.NewFake(t0), WebhookCAs: pool})
	require.NoError(t, err)
	srv := startHookedJob(t, h, rc.srv.URL)
	require.NoError(t, h.WaitIdle(t.Context()))
	require.Len(t, rc.deliveries(), 1)
	srv.Close()
	require.NoError(t, h.Close())
}

// TestVideoUploadLimit: a declared length above 5 GB is refused before
// reading; 5 GB itself passes the length check (the body then breaks
// off, a 400 that stores nothing); a chunked preset file is refused once
// it passes its limit.
func TestVideoUploadLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tk := f.ticket(t, "video")
	resp, b := f.putZeros(t, tk.UploadURL, 5_000_000_001, false)
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")

	tk = f.ticket(t, "video")
	conn, br := rawPut(t, tk.UploadURL, 5_000_000_000)
	defer conn.Close()
	_, err := conn.Write(mp4Bytes(64, 64))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	resp, err = http.ReadResponse(br, nil)
	require.NoError(t, err)
	b = readAll(t, resp)
	requireError(t, resp, b, http.StatusBadRequest, "invalid_body", "")
	resp, b = f.api(t, http.MethodGet, "/pfc?fileKey="+tk.FileKey+"&fileType=video")
	requireError(t, resp, b, http.StatusNotFound, "not_found", "fileKey")
	for _, p := range dirFiles(t, f.Mock.DataDir()) {
		t.Errorf("unexpected file %s", p)
	}

	// Chunked preset file over its 1 MiB limit.
	resp, b = f.do(t, http.MethodPost, "/v2/presets/", f.APIKey, strings.NewReader(`{"name":"Big"}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	p := decode[hostedmock.PresetRecord](t, b)
	req, err := http.NewRequest(http.MethodPut, p.UploadURL, io.MultiReader(bytes.NewReader(make([]byte, 1<<20+1))))
	require.NoError(t, err)
	require.Equal(t, int64(0), req.ContentLength, "sent chunked")
	resp, err = f.http.Do(req)
	require.NoError(t, err)
	b = readAll(t, resp)
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")
}

// TestCacheHitKeepsTheFileTypeCheck: a cache hit must not complete a job
// that would otherwise be REJECTED because the upload was requested as a
// video.
func TestCacheHitKeepsTheFileTypeCheck(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	img := jpegBytes(t, 64, 64)
	first := f.run(t, img, "")
	require.Equal(t, hosted.StatusCompleted, first.Status)
	key := f.upload(t, "video", img)
	j := f.run2(t, key)
	assert.Equal(t, hosted.StatusRejected, j.Status, j.StatusText)
	assert.Equal(t, 1002, j.Code)
}

// TestSignedURLMalformedQueryIsForbidden: a pre-signed URL whose query no
// longer parses has been tampered with: 403, nothing stored.
func TestSignedURLMalformedQueryIsForbidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tk := f.ticket(t, "")
	resp, b := f.do(t, http.MethodPut, tk.UploadURL+"&%zz", "", bytes.NewReader(jpegBytes(t, 64, 64)))
	requireError(t, resp, b, http.StatusForbidden, "forbidden", "")
	resp, b = f.api(t, http.MethodGet, "/pfc?fileKey="+tk.FileKey)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "fileKey")
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

// TestCloseWhileAWebhookHangs: Close cancels a delivery whose receiver
// never answers instead of waiting for it.
func TestCloseWhileAWebhookHangs(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	release := make(chan struct{})
	rc := newHookReceiver(t, func(int) int { return http.StatusOK }, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(arrived)
			<-release
		})
	})
	t.Cleanup(func() { close(release) }) // before the receiver closes
	h, err := hostedmock.New(hostedmock.Options{Processor: &testProcessor{}, Clock: clock.NewFake(t0), WebhookClient: rc.srv.Client()})
	require.NoError(t, err)
	srv := startHookedJob(t, h, rc.srv.URL)
	<-arrived
	srv.Close()
	require.NoError(t, h.Close())
}

// startHookedJob serves h on a new httptest server (the caller closes
// it), uploads a JPEG through a client of it and starts its correction
// with the webhook hookURL.
func startHookedJob(t *testing.T, h *hostedmock.Server, hookURL string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	c, err := hosted.NewClient(hostedmock.DefaultAPIKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	data := jpegBytes(t, 64, 64)
	key, err := c.Upload(t.Context(), hosted.FileTypeImage, bytes.NewReader(data), int64(len(data)), "image/jpeg")
	require.NoError(t, err)
	_, err = c.StartJob(t.Context(), hosted.NewCorrection().WithFileKey(key).WithWebhook(hookURL))
	require.NoError(t, err)
	return srv
}

// TestOptionsAPIKeysCopiedByNew: New keeps its own copy of APIKeys, so a
// caller reusing its Options (now the service's own type) does not change
// the keys of a running mock, nor race with it. Editing the slice after
// New changed which key the service accepted.
func TestOptionsAPIKeysCopiedByNew(t *testing.T) {
	t.Parallel()
	keys := []string{"key-one-0123456789"}
	h, err := hostedmock.New(hostedmock.Options{APIKeys: keys, Processor: &testProcessor{}, Clock: clock.NewFake(t0)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	keys[0] = "key-two-9876543210"
	for i, tc := range []struct {
		key  string
		want int
	}{{"key-one-0123456789", http.StatusOK}, {"key-two-9876543210", http.StatusUnauthorized}} {
		req := httptest.NewRequest(http.MethodGet, "http://mock.test/v2/upload", nil)
		req.Header.Set("X-API-KEY", tc.key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, tc.want, rec.Code, "key %d", i)
	}
}
