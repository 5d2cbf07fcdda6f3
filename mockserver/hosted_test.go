package mockserver_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// ---------------------------------------------------------------------
// Test-only processor. It is NOT the engine: it decodes, resizes with
// nearest neighbour and re-encodes, and reports deterministic fake
// detections, so the mock's own behaviour can be tested before and
// independently of the reference engine.

type testProcessor struct {
	mu    sync.Mutex
	reqs  []mockserver.HostedJobRequest
	gate  chan struct{} // when set, Process waits for a value (or ctx)
	entry chan struct{} // when set, receives a value as Process starts
	err   error         // when set, Process returns it
	panic bool          // when set, Process panics
}

func (p *testProcessor) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.reqs)
}

func (p *testProcessor) last() mockserver.HostedJobRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reqs[len(p.reqs)-1]
}

func (p *testProcessor) Process(ctx context.Context, src io.Reader, req mockserver.HostedJobRequest, dst io.Writer) (*mockserver.HostedJobResult, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	gate, entry, perr, doPanic := p.gate, p.entry, p.err, p.panic
	p.mu.Unlock()
	if doPanic {
		panic("test processor: boom")
	}
	if entry != nil {
		entry <- struct{}{}
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if perr != nil {
		return nil, perr
	}
	img, _, err := image.Decode(src)
	if err != nil {
		return nil, fmt.Errorf("test processor: decode: %w", err)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	tw, th := w, h
	r := req.Resize
	switch {
	case r.Width > 0:
		tw, th = r.Width, max(1, h*r.Width/w)
	case r.Height > 0:
		tw, th = max(1, w*r.Height/h), r.Height
	case r.Long > 0:
		if w >= h {
			tw, th = r.Long, max(1, h*r.Long/w)
		} else {
			tw, th = max(1, w*r.Long/h), r.Long
		}
	case r.Short > 0:
		if w <= h {
			tw, th = r.Short, max(1, h*r.Short/w)
		} else {
			tw, th = max(1, w*r.Short/h), r.Short
		}
	case r.Scale > 0:
		tw, th = max(1, w*r.Scale/100), max(1, h*r.Scale/100)
	}
	out := image.NewNRGBA(image.Rect(0, 0, tw, th))
	for y := range th {
		for x := range tw {
			out.Set(x, y, img.At(x*w/tw, y*h/th))
		}
	}
	if req.OutputType == "png" {
		err = png.Encode(dst, out)
	} else {
		err = jpeg.Encode(dst, out, &jpeg.Options{Quality: req.Quality})
	}
	if err != nil {
		return nil, err
	}
	res := &mockserver.HostedJobResult{
		Format: req.OutputType, Width: tw, Height: th, OriginalWidth: w, OriginalHeight: h, Scene: 3,
		Faces: []hosted.Face{{Confidence: 90, Left: w / 4, Top: h / 4, Width: w / 2, Height: h / 2,
			LeftEye: hosted.Point{X: float64(w) * 0.4, Y: float64(h) * 0.4}, RightEye: hosted.Point{X: float64(w) * 0.6, Y: float64(h) * 0.4}}},
		GlareFound: w%2 == 0,
		Resized:    tw != w || th != h,
		AIResize:   tw > w,
		Corrected:  req.Preset != "none",
		Noise:      "low", RedEye: "none", Warnings: []string{"test processor"},
	}
	if req.AutoCrop != nil {
		c := image.Rect(w/4, h/8, 3*w/4, 7*h/8)
		res.Crop = &c
	}
	return res, nil
}

// ---------------------------------------------------------------------
// Fixture.

type fixture struct {
	*mockserver.HostedTestServer
	clk  *clock.Fake
	proc *testProcessor
	http *http.Client // does not follow redirects
}

func newFixture(t *testing.T, opts ...func(*mockserver.HostedOptions)) *fixture {
	t.Helper()
	f := &fixture{clk: clock.NewFake(t0), proc: &testProcessor{}}
	o := mockserver.HostedOptions{Clock: f.clk, Processor: f.proc, Workers: 2}
	for _, fn := range opts {
		fn(&o)
	}
	f.HostedTestServer = mockserver.StartHosted(t, &o)
	f.http = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	t.Cleanup(f.http.CloseIdleConnections)
	return f
}

// do sends a request; path is relative to the server root unless it is
// an absolute URL. key "" sends no X-API-KEY.
func (f *fixture) do(t *testing.T, method, path, key string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	u := path
	if !strings.HasPrefix(u, "http") {
		u = f.Server.URL + path
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	resp, err := f.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

func (f *fixture) api(t *testing.T, method, path string) (*http.Response, []byte) {
	t.Helper()
	return f.do(t, method, "/v2"+path, f.APIKey, nil)
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(b, &v), string(b))
	return v
}

func requireError(t *testing.T, resp *http.Response, body []byte, status int, code, param string) mockserver.ErrorBody {
	t.Helper()
	require.Equal(t, status, resp.StatusCode, string(body))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	e := decode[mockserver.ErrorBody](t, body)
	assert.Equal(t, status, e.Status)
	assert.Equal(t, code, e.Code, e.Message)
	assert.Equal(t, param, e.Parameter, e.Message)
	assert.NotEmpty(t, e.Message)
	return e
}

func (f *fixture) ticket(t *testing.T, fileType string) hosted.UploadTicket {
	t.Helper()
	q := ""
	if fileType != "" {
		q = "?fileType=" + fileType
	}
	resp, b := f.api(t, http.MethodGet, "/upload"+q)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	tk := decode[hosted.UploadTicket](t, b)
	require.NotEmpty(t, tk.FileKey)
	return tk
}

func (f *fixture) upload(t *testing.T, fileType string, data []byte) string {
	t.Helper()
	tk := f.ticket(t, fileType)
	resp, b := f.do(t, http.MethodPut, tk.UploadURL, "", bytes.NewReader(data))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return tk.FileKey
}

func (f *fixture) start(t *testing.T, query string) string {
	t.Helper()
	resp, b := f.api(t, http.MethodGet, "/pfc?"+query)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	var out map[string]string
	require.NoError(t, json.Unmarshal(b, &out))
	require.Len(t, out, 1, "only statusEndpoint")
	ep := out["statusEndpoint"]
	require.True(t, strings.HasPrefix(ep, f.URL+"/status/"), ep)
	return strings.TrimPrefix(ep, f.URL+"/status/")
}

// status fetches the record with noRedirect=true.
func (f *fixture) status(t *testing.T, id string) (hosted.Job, []byte) {
	t.Helper()
	resp, b := f.api(t, http.MethodGet, "/status/"+id+"?noRedirect=true")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return decode[hosted.Job](t, b), b
}

// run uploads img, starts a job with extra query and waits for it to end.
func (f *fixture) run(t *testing.T, img []byte, extra string) hosted.Job {
	t.Helper()
	key := f.upload(t, "", img)
	q := "fileKey=" + key
	if extra != "" {
		q += "&" + extra
	}
	id := f.start(t, q)
	f.WaitIdle()
	j, _ := f.status(t, id)
	return j
}

func jpegBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}))
	return buf.Bytes()
}

func truncated(b []byte, n int) []byte { return b[:len(b)-n] }

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// mp4Bytes builds a minimal MP4: ftyp, moov/trak/tkhd (w x h), mdat.
func mp4Bytes(w, h int) []byte {
	box := func(typ string, payload ...[]byte) []byte {
		var p []byte
		for _, b := range payload {
			p = append(p, b...)
		}
		out := binary.BigEndian.AppendUint32(nil, uint32(8+len(p)))
		return append(append(out, typ...), p...)
	}
	tkhd := make([]byte, 84)
	binary.BigEndian.PutUint32(tkhd[76:], uint32(w)<<16)
	binary.BigEndian.PutUint32(tkhd[80:], uint32(h)<<16)
	ftyp := box("ftyp", []byte("isom"), []byte{0, 0, 2, 0}, []byte("isomiso2mp41"))
	moov := box("moov", box("trak", box("tkhd", tkhd)))
	return append(append(ftyp, moov...), box("mdat", bytes.Repeat([]byte{0xAB}, 1000))...)
}

// ---------------------------------------------------------------------
// Tests.

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

func TestPFCValidation(t *testing.T) {
	f := newFixture(t)
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	k := "fileKey=" + key + "&"
	cases := []struct {
		query  string
		code   string
		param  string
		status int
	}{
		{"", "missing_parameter", "fileKey", 400},
		{"fileKey=", "invalid_parameter", "fileKey", 400},
		{k + "fileType=audio", "invalid_parameter", "fileType", 400},
		{k + "cache=yes", "invalid_parameter", "cache", 400},
		{k + "cache=TRUE", "invalid_parameter", "cache", 400},
		{k + "outputType=gif", "invalid_parameter", "outputType", 400},
		{k + "resize=huge", "invalid_parameter", "resize", 400},
		{k + "width=abc", "invalid_parameter", "width", 400},
		{k + "width=31", "invalid_parameter", "width", 400},
		{k + "width=10001", "invalid_parameter", "width", 400},
		{k + "width=0", "invalid_parameter", "width", 400},
		{k + "height=5", "invalid_parameter", "height", 400},
		{k + "long=1.5", "invalid_parameter", "long", 400},
		{k + "short=99999999999", "invalid_parameter", "short", 400},
		{k + "scale=0", "invalid_parameter", "scale", 400},
		{k + "scale=-5", "invalid_parameter", "scale", 400},
		{k + "outputQuality=39", "invalid_parameter", "outputQuality", 400},
		{k + "outputQuality=101", "invalid_parameter", "outputQuality", 400},
		{k + "autocrop=1", "invalid_parameter", "autocrop", 400},
		{k + "autocropDetectOnly=true", "invalid_parameter", "autocropDetectOnly", 400},
		{k + "autocrop=true&autocropSize=big", "invalid_parameter", "autocropSize", 400},
		{k + "autocrop=true&autocropX=1e3", "invalid_parameter", "autocropX", 400},
		{k + "autocrop=true&cropARW=", "invalid_parameter", "cropARW", 400},
		{k + "preset=", "invalid_parameter", "preset", 400},
		{k + "webhookUrl=", "invalid_parameter", "webhookUrl", 400},
		{k + "removeBackground=true&bgColor=", "invalid_parameter", "bgColor", 400},
		{k + "skip=photos", "invalid_parameter", "skip", 400},
		{k + "removeGlares=on", "invalid_parameter", "removeGlares", 400},
		{k + "removeBackground=true&bgColor=%23abc", "invalid_parameter", "bgColor", 400},
		{k + "removeBackground=true&bgColor=notacolor", "invalid_parameter", "bgColor", 400},
		{k + "bgColor=red", "invalid_parameter", "bgColor", 400},
		{k + "bgGenerativePrompt=beach", "invalid_parameter", "bgGenerativePrompt", 400},
		{k + "bgFileKey=" + key, "invalid_parameter", "bgFileKey", 400},
		{k + "removeBackground=true&bgShadow=soft", "invalid_parameter", "bgShadow", 400}, // transparent mode
		{k + "removeBackground=true&bgColor=red&bgShadow=long", "invalid_parameter", "bgShadow", 400},
		{k + "preserveMetadata=no", "invalid_parameter", "preserveMetadata", 400},
		{k + "updateThumbnail=x", "invalid_parameter", "updateThumbnail", 400},
		{k + "includeDetectionData=1", "invalid_parameter", "includeDetectionData", 400},
		{k + "webhookUrl=http%3A%2F%2Fexample.com%2Fhook", "invalid_parameter", "webhookUrl", 400},
		{k + "webhookUrl=ftp%3A%2F%2Fexample.com", "invalid_parameter", "webhookUrl", 400},
		{k + "webhookUrl=https%3A%2F%2F", "invalid_parameter", "webhookUrl", 400},
		{k + "widht=100", "unknown_parameter", "widht", 400},
		{k + "width=100&width=200", "invalid_parameter", "width", 400},
		// Plain http is refused before the (unknown) fileKey is looked at.
		{"fileKey=nope&webhookUrl=http%3A%2F%2Fexample.com", "invalid_parameter", "webhookUrl", 400},
		{"fileKey=nope", "not_found", "fileKey", 404},
		{k + "removeBackground=true&bgFileKey=nope", "not_found", "bgFileKey", 404},
		{"%zz", "invalid_parameter", "", 400},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			resp, b := f.api(t, http.MethodGet, "/pfc?"+c.query)
			requireError(t, resp, b, c.status, c.code, c.param)
		})
	}
	// Several problems: all listed, the first in table order named.
	resp, b := f.api(t, http.MethodGet, "/pfc?"+k+"outputQuality=1&width=5&skip=x")
	e := requireError(t, resp, b, 400, "invalid_parameter", "width")
	assert.Equal(t, "width: must be between 32 and 10000, got 5; outputQuality: must be between 40 and 100, got 1; skip: must be one of clipart, legacy, none, got \"x\"", e.Message)
	assert.Equal(t, 0, f.proc.calls(), "nothing was processed")
}

func TestPFCPrioritiesAndDefaults(t *testing.T) {
	f := newFixture(t)
	img := jpegBytes(t, 100, 50)
	bgKey := f.upload(t, "", pngBytes(t, 40, 40))

	j := f.run(t, img, "")
	require.Equal(t, hosted.StatusCompleted, j.Status)
	r := f.proc.last()
	assert.Equal(t, "Universal", r.Preset)
	assert.Equal(t, "jpg", r.OutputType)
	assert.Equal(t, "jpg", r.SourceFormat)
	assert.Equal(t, 90, r.Quality)
	assert.False(t, r.Resize.Requested())
	assert.Empty(t, r.Skip, "skip is ignored under AI preset selection")
	assert.True(t, r.PreserveMetadata)
	assert.Nil(t, r.Background)
	assert.Nil(t, r.AutoCrop)

	f.run(t, img, "preset=Pro&width=80&height=40&long=60&short=33&scale=50&resize=smallDetails&preserveMetadata=false&outputQuality=70")
	r = f.proc.last()
	assert.Equal(t, mockserver.HostedResizeRequest{Width: 80, Mode: "smallDetails"}, r.Resize)
	assert.Equal(t, "clipart", r.Skip)
	assert.False(t, r.PreserveMetadata)
	assert.Equal(t, 70, r.Quality)

	f.run(t, img, "preset=School%20and%20Sports&height=40&long=60&scale=50")
	r = f.proc.last()
	assert.Equal(t, "School and Sports", r.Preset)
	assert.Equal(t, mockserver.HostedResizeRequest{Height: 40, Mode: "auto"}, r.Resize)
	f.run(t, img, "preset=none&short=40&scale=50&skip=legacy")
	assert.Equal(t, mockserver.HostedResizeRequest{Short: 40, Mode: "auto"}, f.proc.last().Resize)
	assert.Equal(t, "legacy", f.proc.last().Skip)
	f.run(t, img, "scale=200&cache=false")
	assert.Equal(t, mockserver.HostedResizeRequest{Scale: 200, Mode: "auto"}, f.proc.last().Resize)

	// Background: generative > image > colour > transparent.
	f.run(t, img, "removeBackground=true&bgGenerativePrompt=a%20beach&bgFileKey="+bgKey+"&bgColor=red")
	r = f.proc.last()
	require.NotNil(t, r.Background)
	assert.Equal(t, "generative", r.Background.Mode)
	assert.Equal(t, "a beach", r.Background.Prompt)
	assert.Equal(t, "png", r.OutputType, "background removal without outputType gives PNG")

	f.run(t, img, "removeBackground=true&bgFileKey="+bgKey+"&bgColor=red&bgShadow=hard&outputType=jpg")
	r = f.proc.last()
	assert.Equal(t, "image", r.Background.Mode)
	assert.Equal(t, "hard", r.Background.Shadow)
	assert.Equal(t, "jpg", r.OutputType)
	require.NotNil(t, r.Background.OpenImage)

	f.run(t, img, "removeBackground=true&bgColor=%2300FF7f&bgShadow=floating&outputType=original")
	r = f.proc.last()
	assert.Equal(t, "color", r.Background.Mode)
	assert.Equal(t, color.NRGBA{0, 255, 127, 255}, r.Background.Color)
	assert.Equal(t, "jpg", r.OutputType, "original keeps the source format")

	j = f.run(t, img, "removeBackground=true&bgColor=transparent")
	assert.Equal(t, "transparent", f.proc.last().Background.Mode)
	assert.Equal(t, 1, j.Usage.RemoveBackgroundCount)
	assert.True(t, strings.HasSuffix(j.CorrectedFile, "/corrected.png"))

	f.run(t, img, "autocrop=true&autocropSize=1.25&autocropX=-0.5&cropARW=4&cropARH=5&autocropTopHeadGap=0")
	ac := f.proc.last().AutoCrop
	require.NotNil(t, ac)
	assert.False(t, ac.DetectOnly)
	assert.Equal(t, 1.25, *ac.Size)
	assert.Equal(t, -0.5, *ac.X)
	assert.Nil(t, ac.Y)
	assert.Equal(t, 4.0, *ac.AspectWidth)
	assert.Equal(t, 0.0, *ac.TopHeadGap)

	pngImg := pngBytes(t, 64, 40)
	f.run(t, pngImg, "")
	assert.Equal(t, "png", f.proc.last().OutputType)
	assert.Equal(t, "png", f.proc.last().SourceFormat)
	f.run(t, pngImg, "outputType=jpg")
	assert.Equal(t, "jpg", f.proc.last().OutputType)
}

func TestJobLifecycleWithDelay(t *testing.T) {
	gate := make(chan struct{})
	entry := make(chan struct{}, 4)
	f := newFixture(t, func(o *mockserver.HostedOptions) {
		o.ProcessingDelay = 7 * time.Second
		o.Workers = 1
	})
	f.proc.gate, f.proc.entry = gate, entry
	img := jpegBytes(t, 120, 80)
	k1, k2 := f.upload(t, "", img), f.upload(t, "", pngBytes(t, 50, 40))
	id1 := f.start(t, "fileKey="+k1+"&includeDetectionData=true&removeGlares=true&width=240")
	<-entry // the only worker is busy with job 1
	id2 := f.start(t, "fileKey="+k2+"&cache=false")

	j1, _ := f.status(t, id1)
	assert.Equal(t, hosted.StatusProcessing, j1.Status)
	j2, raw2 := f.status(t, id2)
	assert.Equal(t, hosted.StatusPending, j2.Status)
	assert.Equal(t, t0, j2.CreatedAt.Time)
	assert.Equal(t, t0, j2.UpdatedAt.Time)
	assert.Nil(t, j2.Usage)
	assert.Nil(t, j2.TimeTaken)
	assert.Empty(t, j2.CorrectedFile)
	assert.JSONEq(t, `{"_id":"`+id2+`","status":"PENDING","statusText":"","code":0,"createdAt":"2026-11-22T10:00:00.000Z","updatedAt":"2026-11-22T10:00:00.000Z"}`, string(raw2))

	// While PROCESSING, /status answers 200 even without noRedirect.
	resp, _ := f.api(t, http.MethodGet, "/status/"+id1)
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	f.clk.Advance(3 * time.Second) // job 1 takes 3 s to process
	gate <- struct{}{}
	<-entry
	gate <- struct{}{}
	f.WaitIdle() // both processed, both waiting for the delay
	j1, _ = f.status(t, id1)
	assert.Equal(t, hosted.StatusProcessing, j1.Status)
	assert.Equal(t, t0, j1.UpdatedAt.Time, "updated when it started processing")
	j2, _ = f.status(t, id2)
	assert.Equal(t, hosted.StatusProcessing, j2.Status)
	assert.Equal(t, t0.Add(3*time.Second), j2.UpdatedAt.Time)

	f.Advance(7 * time.Second)
	j1, raw1 := f.status(t, id1)
	require.Equal(t, hosted.StatusCompleted, j1.Status, j1.StatusText)
	assert.Equal(t, 0, j1.Code)
	assert.Empty(t, j1.StatusText)
	assert.Equal(t, t0, j1.CreatedAt.Time)
	assert.Equal(t, t0.Add(10*time.Second), j1.UpdatedAt.Time)
	require.NotNil(t, j1.TimeTaken)
	assert.Equal(t, 10.0, *j1.TimeTaken, "3 s processing + 7 s delay")
	require.NotNil(t, j1.AIServer)
	assert.True(t, *j1.AIServer)
	assert.Equal(t, &hosted.Dimensions{Width: 120, Height: 80}, j1.OriginalDimensions)
	assert.Equal(t, &hosted.Usage{Size: "S", ImageCorrectionCount: 1, ImageResizeCount: 1, GlaresDetectorCount: 1,
		RemoveGlaresCount: 1, RemoveGlaresTotalCount: 1}, j1.Usage)
	require.NotNil(t, j1.DetectionData)
	assert.Equal(t, 1, j1.DetectionData.FacesCount)
	assert.Equal(t, 3, j1.DetectionData.Scene)
	assert.Equal(t, "OK", j1.DetectionData.Status)
	assert.Equal(t, []any{"test processor"}, j1.DetectionData.Warnings)
	assert.Nil(t, j1.CropRect)
	assert.Contains(t, string(raw1), `"createdAt":"2026-11-22T10:00:00.000Z"`)
	assert.Contains(t, string(raw1), `"updatedAt":"2026-11-22T10:00:10.000Z"`)

	j2, _ = f.status(t, id2)
	require.Equal(t, hosted.StatusCompleted, j2.Status)
	assert.Equal(t, 7.0, *j2.TimeTaken)
	assert.Nil(t, j2.DetectionData, "only with includeDetectionData=true")
	assert.Equal(t, &hosted.Usage{Size: "S", ImageCorrectionCount: 1}, j2.Usage,
		"50 px wide: no glare check requested, so no glare counters")

	// 302 to the public file unless noRedirect=true.
	resp, body := f.api(t, http.MethodGet, "/status/"+id1)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, j1.CorrectedFile, resp.Header.Get("Location"))
	assert.Equal(t, raw1, body, "the 302 carries the record too")
	assert.True(t, strings.HasPrefix(j1.CorrectedFile, f.Server.URL+"/files/"+id1+"/corrected.jpg"), j1.CorrectedFile)
	resp, file := f.do(t, http.MethodGet, j1.CorrectedFile, "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "image/jpeg", resp.Header.Get("Content-Type"))
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(file))
	require.NoError(t, err)
	assert.Equal(t, 240, cfg.Width)
	assert.Equal(t, 160, cfg.Height)
	resp, _ = f.do(t, http.MethodHead, j1.CorrectedFile, "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, b := f.do(t, http.MethodGet, j1.CorrectedFile+"x", "", nil)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")

	resp, b = f.api(t, http.MethodGet, "/status/"+id1+"?noRedirect=yes")
	requireError(t, resp, b, http.StatusBadRequest, "invalid_parameter", "noRedirect")
	resp, b = f.api(t, http.MethodGet, "/status/"+id1+"?noRedirect=false")
	assert.Equal(t, http.StatusFound, resp.StatusCode, string(b))
}

func TestStatusUnknown(t *testing.T) {
	f := newFixture(t)
	resp, b := f.api(t, http.MethodGet, "/status/0123456789abcdef01234567")
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.api(t, http.MethodGet, "/status/a/b")
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
}

func TestRetention(t *testing.T) {
	for _, retention := range []time.Duration{0, 72 * time.Hour} {
		t.Run(fmt.Sprint(retention), func(t *testing.T) {
			f := newFixture(t, func(o *mockserver.HostedOptions) { o.Retention = retention })
			want := retention
			if want == 0 {
				want = 24 * time.Hour
			}
			j := f.run(t, jpegBytes(t, 64, 64), "")
			require.Equal(t, hosted.StatusCompleted, j.Status)
			rejectedID := f.start(t, "fileKey="+f.upload(t, "", []byte("not an image")))
			f.WaitIdle()

			f.Advance(want - time.Second)
			f.status(t, j.ID)
			f.status(t, rejectedID)
			resp, _ := f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
			require.Equal(t, http.StatusOK, resp.StatusCode)

			f.Advance(time.Second)
			resp, b := f.api(t, http.MethodGet, "/status/"+j.ID)
			requireError(t, resp, b, http.StatusNotFound, "not_found", "")
			resp, b = f.api(t, http.MethodGet, "/status/"+rejectedID)
			requireError(t, resp, b, http.StatusNotFound, "not_found", "")
			resp, b = f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
			requireError(t, resp, b, http.StatusNotFound, "not_found", "")
		})
	}
}

func TestRetentionBounds(t *testing.T) {
	for _, d := range []time.Duration{time.Hour, 24*time.Hour - time.Second, 7*24*time.Hour + time.Second, -time.Hour} {
		_, err := mockserver.NewHosted(mockserver.HostedOptions{Retention: d})
		require.ErrorIs(t, err, mockserver.ErrInvalidOptions, d)
		assert.Contains(t, err.Error(), "Retention")
	}
	for _, d := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour} {
		h, err := mockserver.NewHosted(mockserver.HostedOptions{Retention: d})
		require.NoError(t, err)
		require.NoError(t, h.Close())
		_, err = os.Stat(h.DataDir())
		assert.ErrorIs(t, err, os.ErrNotExist, "Close removes the data directory")
	}
	_, err := mockserver.NewHosted(mockserver.HostedOptions{APIKeys: []string{}})
	require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
}

func TestCache(t *testing.T) {
	f := newFixture(t)
	img := jpegBytes(t, 80, 60)
	first := f.run(t, img, "width=100&includeDetectionData=true")
	require.Equal(t, hosted.StatusCompleted, first.Status)
	require.Equal(t, 1, f.proc.calls())

	// Same bytes under another fileKey, same effective options (detection
	// data does not change the output): served from the cache.
	hit := f.run(t, img, "width=100&height=500&resize=auto")
	require.Equal(t, hosted.StatusCompleted, hit.Status)
	assert.Equal(t, 1, f.proc.calls(), "not processed again")
	assert.NotEqual(t, first.ID, hit.ID)
	assert.Equal(t, "cache hit: result of job "+first.ID, hit.StatusText)
	assert.NotEqual(t, first.CorrectedFile, hit.CorrectedFile)
	assert.Equal(t, first.Usage, hit.Usage)
	assert.Equal(t, first.OriginalDimensions, hit.OriginalDimensions)
	assert.Equal(t, 0.0, *hit.TimeTaken)
	assert.Nil(t, hit.DetectionData, "shown only when asked for")
	_, a := f.do(t, http.MethodGet, first.CorrectedFile, "", nil)
	_, b := f.do(t, http.MethodGet, hit.CorrectedFile, "", nil)
	assert.Equal(t, a, b)

	hit2 := f.run(t, img, "width=100&includeDetectionData=true")
	assert.Equal(t, 1, f.proc.calls())
	assert.Equal(t, first.DetectionData, hit2.DetectionData)

	f.run(t, img, "width=100&cache=false")
	assert.Equal(t, 2, f.proc.calls(), "cache=false processes")
	f.run(t, img, "width=101")
	assert.Equal(t, 3, f.proc.calls(), "other options process")
	f.run(t, jpegBytes(t, 81, 60), "width=100")
	assert.Equal(t, 4, f.proc.calls(), "other bytes process")

	// The cached result outlives the first job while newer jobs use it.
	f.Advance(12 * time.Hour)
	f.run(t, img, "width=100")
	assert.Equal(t, 4, f.proc.calls())
	f.Advance(23 * time.Hour)
	_, err := f.Client.GetJob(context.Background(), first.ID)
	require.ErrorIs(t, err, hosted.ErrNotFound)
	again := f.run(t, img, "width=100")
	assert.Equal(t, 4, f.proc.calls(), "still cached: the last use was 23 h ago")
	assert.True(t, strings.HasPrefix(again.StatusText, "cache hit"))
	f.Advance(25 * time.Hour)
	f.run(t, img, "width=100")
	assert.Equal(t, 5, f.proc.calls(), "expired with the last job that used it")
}

func TestVideoPassthrough(t *testing.T) {
	f := newFixture(t)
	video := mp4Bytes(1920, 1080)
	key := f.upload(t, "video", video)
	id := f.start(t, "fileKey="+key+"&fileType=video&width=100&includeDetectionData=true")
	f.WaitIdle()
	j, _ := f.status(t, id)
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, &hosted.Usage{Size: "video", VideoCorrectionCount: 1}, j.Usage)
	assert.Equal(t, &hosted.Dimensions{Width: 1920, Height: 1080}, j.OriginalDimensions)
	assert.Nil(t, j.DetectionData)
	assert.True(t, strings.HasSuffix(j.CorrectedFile, "/corrected.mp4"))
	resp, got := f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
	assert.Equal(t, "video/mp4", resp.Header.Get("Content-Type"))
	assert.Equal(t, video, got, "passed through unchanged")
	assert.Equal(t, 0, f.proc.calls())

	// A QuickTime file without ftyp.
	mov := append([]byte{0, 0, 0, 8, 'w', 'i', 'd', 'e'}, mp4Bytes(640, 480)[32:]...)
	key = f.upload(t, "video", mov)
	id = f.start(t, "fileKey="+key+"&fileType=video")
	f.WaitIdle()
	j, _ = f.status(t, id)
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.True(t, strings.HasSuffix(j.CorrectedFile, "/corrected.mov"))

	// fileType must match the upload and the content.
	key = f.upload(t, "video", video)
	j = f.run2(t, key) // fileType omitted = image
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1002, j.Code)
	assert.Contains(t, j.StatusText, "fileType=image does not match")

	key = f.upload(t, "", video)
	j = f.run2(t, key)
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1002, j.Code)
	assert.Contains(t, j.StatusText, "is a video")

	key = f.upload(t, "video", jpegBytes(t, 64, 64))
	id = f.start(t, "fileKey="+key+"&fileType=video")
	f.WaitIdle()
	j, _ = f.status(t, id)
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1002, j.Code)

	key = f.upload(t, "video", []byte("RIFF....AVI LIST"))
	id = f.start(t, "fileKey="+key+"&fileType=video")
	f.WaitIdle()
	j, _ = f.status(t, id)
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1001, j.Code)
}

func TestRejectedAndFailed(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name   string
		data   []byte
		query  string
		status hosted.JobStatus
		code   int
		text   string
		dims   *hosted.Dimensions
	}{
		{"not an image", []byte("GIF89a......"), "", hosted.StatusRejected, 1001, "JPEG or PNG", nil},
		{"too small", jpegBytes(t, 32, 100), "", hosted.StatusRejected, 1003, "short side 32", &hosted.Dimensions{Width: 32, Height: 100}},
		{"aspect", pngBytes(t, 33, 693), "", hosted.StatusRejected, 1003, "aspect", &hosted.Dimensions{Width: 33, Height: 693}},
		{"smallest accepted", jpegBytes(t, 33, 33), "", hosted.StatusCompleted, 0, "", &hosted.Dimensions{Width: 33, Height: 33}},
		{"unknown preset", jpegBytes(t, 64, 64), "preset=Nope", hosted.StatusRejected, 1005, `unknown preset "Nope"`, &hosted.Dimensions{Width: 64, Height: 64}},
		{"corrupt header", []byte{0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F'}, "", hosted.StatusFailed, 2001, "corrupt jpeg", nil},
		{"corrupt body", truncated(jpegBytes(t, 64, 64), 100), "", hosted.StatusFailed, 2001, "processing failed", &hosted.Dimensions{Width: 64, Height: 64}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := f.run(t, c.data, c.query)
			require.Equal(t, c.status, j.Status, j.StatusText)
			assert.Equal(t, c.code, j.Code)
			assert.Contains(t, j.StatusText, c.text)
			assert.Equal(t, c.dims, j.OriginalDimensions)
			require.NotNil(t, j.Usage)
			require.NotNil(t, j.TimeTaken)
			if c.status != hosted.StatusCompleted {
				assert.Empty(t, j.CorrectedFile)
				assert.Nil(t, j.AIServer)
				assert.Zero(t, j.Usage.ImageCorrectionCount)
				// Terminal but not complete: 200, never 302.
				resp, _ := f.api(t, http.MethodGet, "/status/"+j.ID)
				assert.Equal(t, http.StatusOK, resp.StatusCode)
			}
		})
	}

	// Background removal needs an input below 30 MB: pad a JPEG with a
	// comment-free trailer the header parser never reads.
	big := append(jpegBytes(t, 64, 64), make([]byte, 30_000_000)...)
	j := f.run(t, big, "removeBackground=true")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1004, j.Code)

	bg := f.upload(t, "", []byte("not an image at all"))
	j = f.run(t, jpegBytes(t, 64, 64), "removeBackground=true&bgFileKey="+bg)
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1006, j.Code)

	// A processor rejection and a processor failure.
	f.proc.mu.Lock()
	f.proc.err = &mockserver.HostedRejectError{Code: 1234, Reason: "no faces to crop"}
	f.proc.mu.Unlock()
	j = f.run(t, jpegBytes(t, 64, 64), "cache=false")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1234, j.Code)
	assert.Equal(t, "no faces to crop", j.StatusText)
	f.proc.mu.Lock()
	f.proc.err = fmt.Errorf("boom")
	f.proc.mu.Unlock()
	j = f.run(t, jpegBytes(t, 64, 64), "cache=false")
	assert.Equal(t, hosted.StatusFailed, j.Status)
	assert.Equal(t, 2001, j.Code)
	assert.Equal(t, "processing failed: boom", j.StatusText)
	f.proc.mu.Lock()
	f.proc.err, f.proc.panic = nil, true
	f.proc.mu.Unlock()
	j = f.run(t, jpegBytes(t, 64, 64), "cache=false")
	assert.Equal(t, hosted.StatusFailed, j.Status, "a panicking processor fails the job, not the server")
	assert.Contains(t, j.StatusText, "panicked: test processor: boom")
}

// engineFixture runs the mock with its default processor: the reference
// engine.
func engineFixture(t *testing.T) *fixture {
	return newFixture(t, func(o *mockserver.HostedOptions) { o.Processor = nil })
}

func astronautJPEG(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("internal/engine/faces/testdata/astronaut.jpg")
	require.NoError(t, err)
	return b
}

func TestEngineCorrectsWithDetectionData(t *testing.T) {
	f := engineFixture(t)
	j := f.run(t, astronautJPEG(t), "includeDetectionData=true&removeGlares=true")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, 0, j.Code)
	assert.Equal(t, &hosted.Dimensions{Width: 512, Height: 512}, j.OriginalDimensions)
	require.NotNil(t, j.DetectionData)
	assert.Equal(t, 1, j.DetectionData.FacesCount)
	require.Len(t, j.DetectionData.Faces, 1)
	face := j.DetectionData.Faces[0]
	for _, eye := range []hosted.Point{face.LeftEye, face.RightEye} {
		assert.True(t, eye.X >= float64(face.Left) && eye.X <= float64(face.Left+face.Width), "eye inside the face box")
		assert.True(t, eye.Y >= float64(face.Top) && eye.Y <= float64(face.Top+face.Height), "eye inside the face box")
	}
	assert.Equal(t, 1, j.Usage.ImageCorrectionCount)
	assert.Equal(t, 1, j.Usage.RemoveGlaresTotalCount)
	assert.GreaterOrEqual(t, j.Usage.RemoveGlaresTotalCount, j.Usage.RemoveGlaresCount)

	// The corrected file is a real, different JPEG of the same size.
	resp, body := f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(body))
	require.NoError(t, err)
	assert.Equal(t, 512, cfg.Width)
	assert.NotEqual(t, astronautJPEG(t), body)
}

func TestEngineBackgroundAndResize(t *testing.T) {
	f := engineFixture(t)
	j := f.run(t, astronautJPEG(t), "removeBackground=true&bgColor=%23336699&long=256")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, 1, j.Usage.RemoveBackgroundCount)
	assert.Equal(t, 1, j.Usage.ClassicResizeCount)
	resp, body := f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	img, err := png.Decode(bytes.NewReader(body))
	require.NoError(t, err, "background removal without outputType gives PNG")
	assert.Equal(t, image.Rect(0, 0, 256, 256), img.Bounds())
	r, g, b, _ := img.At(1, 1).RGBA()
	assert.Equal(t, [3]uint32{0x33, 0x66, 0x99}, [3]uint32{r >> 8, g >> 8, b >> 8}, "the corner shows the new background")
}

func TestEngineRejectsAndFails(t *testing.T) {
	f := engineFixture(t)
	j := f.run(t, astronautJPEG(t), "preset=NoSuchPreset")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Contains(t, j.StatusText, "NoSuchPreset")

	data := astronautJPEG(t)
	j = f.run(t, data[:len(data)/2], "cache=false")
	assert.Equal(t, hosted.StatusFailed, j.Status, "a truncated JPEG fails")
}

func TestAutocropDetectOnly(t *testing.T) {
	f := newFixture(t)
	j := f.run(t, jpegBytes(t, 80, 64), "autocrop=true&autocropDetectOnly=true")
	require.Equal(t, hosted.StatusCompleted, j.Status)
	assert.Equal(t, &hosted.CropRect{Left: 20, Top: 8, Width: 40, Height: 48}, j.CropRect)
	assert.Equal(t, 1, j.Usage.AutoCropCount)
	assert.True(t, f.proc.last().AutoCrop.DetectOnly)
	j = f.run(t, jpegBytes(t, 80, 64), "autocrop=true")
	assert.Nil(t, j.CropRect, "only in detect-only mode")
}

func TestPresets(t *testing.T) {
	f := newFixture(t)
	create := func(body string) (*http.Response, []byte) {
		return f.do(t, http.MethodPost, "/v2/presets/", f.APIKey, strings.NewReader(body))
	}
	resp, b := create(`{"name":"Warm","description":"warm tones"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	p := decode[mockserver.HostedPresetRecord](t, b)
	assert.Len(t, p.PresetID, 24)
	assert.Equal(t, "Warm", p.Name)
	assert.Equal(t, "warm tones", p.Description)
	assert.Equal(t, "awaiting_upload", p.Status)
	require.NotEmpty(t, p.UploadURL)

	// Not usable before its file arrives.
	j := f.run(t, jpegBytes(t, 64, 64), "preset=Warm")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1005, j.Code)
	assert.Contains(t, j.StatusText, "no file uploaded")

	// Tampered URL, then the real PUT (no API key).
	resp, b = f.do(t, http.MethodPut, strings.Replace(p.UploadURL, p.PresetID, strings.Repeat("0", 24), 1), "", strings.NewReader("x"))
	requireError(t, resp, b, http.StatusForbidden, "forbidden", "")
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", bytes.NewReader(make([]byte, 1<<20+1)))
	requireError(t, resp, b, http.StatusRequestEntityTooLarge, "payload_too_large", "")
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", strings.NewReader(""))
	requireError(t, resp, b, http.StatusBadRequest, "invalid_body", "")
	presetFile := []byte("<preset>warm</preset>")
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", bytes.NewReader(presetFile))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))

	resp, b = f.api(t, http.MethodGet, "/presets/"+p.PresetID)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got := decode[mockserver.HostedPresetRecord](t, b)
	assert.Equal(t, "ready", got.Status)
	assert.Equal(t, int64(len(presetFile)), got.Size)
	assert.Empty(t, got.UploadURL)

	// Usable by name, with its file handed to the processor.
	j = f.run(t, jpegBytes(t, 64, 64), "preset=Warm")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, "Warm", f.proc.last().Preset)
	assert.Equal(t, presetFile, f.proc.last().PresetData)
	for _, builtin := range []string{"Universal", "none", "Pro", "School%20and%20Sports", "Attractions%20and%20Cruise%20Lines"} {
		j = f.run(t, jpegBytes(t, 64, 64), "preset="+builtin)
		require.Equal(t, hosted.StatusCompleted, j.Status, builtin)
		assert.Nil(t, f.proc.last().PresetData)
		if builtin == "none" {
			assert.Equal(t, 0, j.Usage.ImageCorrectionCount, "preset=none corrects nothing")
		} else {
			assert.Equal(t, 1, j.Usage.ImageCorrectionCount)
		}
	}

	// Creation rules.
	for body, want := range map[string]struct {
		status      int
		code, param string
	}{
		`{"name":"Warm"}`:            {409, "conflict", "name"},
		`{"name":"pro"}`:             {400, "invalid_parameter", "name"},
		`{"name":"None"}`:            {400, "invalid_parameter", "name"},
		`{"description":"x"}`:        {400, "missing_parameter", "name"},
		`{"name":"  "}`:              {400, "invalid_parameter", "name"},
		`{"name":" x"}`:              {400, "invalid_parameter", "name"},
		`{"name":"x","color":"red"}`: {400, "invalid_body", ""},
		`{"name":1}`:                 {400, "invalid_body", ""},
		`[]`:                         {400, "invalid_body", ""},
		`{"name":"x"}{"name":"y"}`:   {400, "invalid_body", ""},
		`{"name":"` + strings.Repeat("n", 201) + `"}`: {400, "invalid_parameter", "name"},
	} {
		resp, b := create(body)
		requireError(t, resp, b, want.status, want.code, want.param)
	}
	resp, b = f.do(t, http.MethodPost, "/v2/presets", f.APIKey, strings.NewReader(`{"name":"NoDesc"}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	assert.Empty(t, decode[mockserver.HostedPresetRecord](t, b).Description)

	// List: creation order, paging.
	for i := range 23 {
		resp, b := create(fmt.Sprintf(`{"name":"P%02d","description":""}`, i))
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	}
	resp, b = f.api(t, http.MethodGet, "/presets")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page := decode[mockserver.HostedPresetList](t, b)
	assert.Equal(t, 25, page.Total)
	assert.Equal(t, 20, page.Limit)
	assert.Equal(t, 0, page.Offset)
	require.Len(t, page.Presets, 20)
	assert.Equal(t, "Warm", page.Presets[0].Name)
	assert.Equal(t, "NoDesc", page.Presets[1].Name)
	assert.Equal(t, "P00", page.Presets[2].Name)
	resp, b = f.api(t, http.MethodGet, "/presets/?limit=10&offset=20")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page = decode[mockserver.HostedPresetList](t, b)
	require.Len(t, page.Presets, 5)
	assert.Equal(t, "P18", page.Presets[0].Name)
	resp, b = f.api(t, http.MethodGet, "/presets?offset=100")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, decode[mockserver.HostedPresetList](t, b).Presets)
	assert.Contains(t, string(b), `"presets":[]`)
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "offset=-1"} {
		resp, b := f.api(t, http.MethodGet, "/presets?"+q)
		requireError(t, resp, b, 400, "invalid_parameter", strings.Split(q, "=")[0])
	}

	// Delete: gone, and no longer usable by name.
	resp, b = f.api(t, http.MethodDelete, "/presets/"+p.PresetID)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"presetId":"`+p.PresetID+`","deleted":true}`, string(b))
	resp, b = f.api(t, http.MethodGet, "/presets/"+p.PresetID)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.api(t, http.MethodDelete, "/presets/"+p.PresetID)
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	j = f.run(t, jpegBytes(t, 64, 64), "preset=Warm")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Equal(t, 1005, j.Code)
	resp, b = f.do(t, http.MethodPut, p.UploadURL, "", bytes.NewReader(presetFile))
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.api(t, http.MethodPut, "/presets/"+p.PresetID)
	requireError(t, resp, b, http.StatusMethodNotAllowed, "method_not_allowed", "")
}

// hookReceiver is an HTTPS webhook receiver that records deliveries and
// answers with status(n) for the n-th (1-based).
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []delivery
	status func(n int) int
}

type delivery struct {
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T, status func(n int) int, wrap ...func(http.Handler) http.Handler) *hookReceiver {
	rc := &hookReceiver{status: status}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{r.Header.Clone(), b})
		n := len(rc.got)
		rc.mu.Unlock()
		w.WriteHeader(rc.status(n))
	})
	for _, w := range wrap {
		h = w(h)
	}
	rc.srv = httptest.NewUnstartedServer(h)
	// Refused handshakes are part of some tests; keep them out of the log.
	rc.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.srv.StartTLS()
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

func TestWebhookDelivery(t *testing.T) {
	rc := newHookReceiver(t, func(int) int { return http.StatusNoContent })
	f := newFixture(t, func(o *mockserver.HostedOptions) {
		o.WebhookClient = rc.srv.Client()
		o.APIKeys = []string{"hook-key-1", "hook-key-2"}
		o.ProcessingDelay = 2 * time.Second
	})
	hook := url.QueryEscape(rc.srv.URL + "/hooks/pfc?token=abc")
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	id := f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.WaitIdle()
	assert.Empty(t, rc.deliveries(), "nothing before the job ends")
	f.Advance(2 * time.Second)

	d := rc.deliveries()
	require.Len(t, d, 1)
	_, raw := f.status(t, id)
	assert.Equal(t, raw, d[0].body, "exactly the /status bytes")
	assert.Equal(t, "evt_"+id, d[0].header.Get("webhook-id"))
	assert.Equal(t, strconv.FormatInt(t0.Add(2*time.Second).Unix(), 10), d[0].header.Get("webhook-timestamp"))
	assert.Equal(t, "application/json", d[0].header.Get("Content-Type"))
	assert.Equal(t, "service-Webhook/1.0", d[0].header.Get("User-Agent"))
	assert.Empty(t, d[0].header.Get("X-API-KEY"))

	v, err := webhook.NewVerifier([][]byte{[]byte("hook-key-1")}, webhook.WithClock(f.clk.Now))
	require.NoError(t, err)
	job, err := v.VerifyJob(d[0].header, d[0].body)
	require.NoError(t, err)
	assert.Equal(t, id, job.ID)
	assert.Equal(t, hosted.StatusCompleted, job.Status)
	other, err := webhook.NewVerifier([][]byte{[]byte("hook-key-2")}, webhook.WithClock(f.clk.Now))
	require.NoError(t, err)
	assert.ErrorIs(t, other.Verify(d[0].header, d[0].body), webhook.ErrNoValidSignature, "keyed with the /pfc key only")

	// The second key signs its own jobs.
	resp, b := f.do(t, http.MethodGet, "/v2/upload", "hook-key-2", nil)
	require.Equal(t, 200, resp.StatusCode)
	tk := decode[hosted.UploadTicket](t, b)
	resp, _ = f.do(t, http.MethodPut, tk.UploadURL, "", bytes.NewReader(jpegBytes(t, 70, 64)))
	require.Equal(t, 200, resp.StatusCode)
	resp, b = f.do(t, http.MethodGet, "/v2/pfc?fileKey="+tk.FileKey+"&webhookUrl="+hook, "hook-key-2", nil)
	require.Equal(t, 200, resp.StatusCode, string(b))
	f.Advance(2 * time.Second)
	d = rc.deliveries()
	require.Len(t, d, 2)
	require.NoError(t, other.Verify(d[1].header, d[1].body))

	// FAILED sends, REJECTED does not, a cache hit does (at once).
	f.proc.mu.Lock()
	f.proc.err = fmt.Errorf("engine exploded")
	f.proc.mu.Unlock()
	key = f.upload(t, "", jpegBytes(t, 66, 64))
	f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.Advance(2 * time.Second)
	d = rc.deliveries()
	require.Len(t, d, 3)
	failedJob, err := v.VerifyJob(d[2].header, d[2].body)
	require.NoError(t, err)
	assert.Equal(t, hosted.StatusFailed, failedJob.Status)

	key = f.upload(t, "", jpegBytes(t, 10, 10))
	f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.Advance(2 * time.Second)
	assert.Len(t, rc.deliveries(), 3, "no webhook for REJECTED")

	key = f.upload(t, "", jpegBytes(t, 64, 64))
	hitID := f.start(t, "fileKey="+key+"&webhookUrl="+hook)
	f.WaitIdle()
	d = rc.deliveries()
	require.Len(t, d, 4)
	hit, err := v.VerifyJob(d[3].header, d[3].body)
	require.NoError(t, err)
	assert.Equal(t, hitID, hit.ID)
	assert.True(t, strings.HasPrefix(hit.StatusText, "cache hit"))
}

func TestWebhookRetrySchedule(t *testing.T) {
	rc := newHookReceiver(t, func(int) int { return http.StatusServiceUnavailable })
	f := newFixture(t, func(o *mockserver.HostedOptions) { o.WebhookClient = rc.srv.Client() })
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	id := f.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	f.WaitIdle()
	f.Advance(2 * time.Hour)

	d := rc.deliveries()
	require.Len(t, d, 9, "the first attempt and 8 retries")
	var offsets []time.Duration
	v, err := webhook.NewVerifier([][]byte{[]byte(f.APIKey)}, webhook.WithClock(f.clk.Now), webhook.WithTolerance(3*time.Hour))
	require.NoError(t, err)
	for _, x := range d {
		ts, err := strconv.ParseInt(x.header.Get("webhook-timestamp"), 10, 64)
		require.NoError(t, err)
		offsets = append(offsets, time.Unix(ts, 0).Sub(t0))
		assert.Equal(t, "evt_"+id, x.header.Get("webhook-id"))
		assert.Equal(t, d[0].body, x.body)
		require.NoError(t, v.Verify(x.header, x.body), "each attempt is signed with its own timestamp")
	}
	min := time.Minute
	assert.Equal(t, []time.Duration{0, 1 * min, 3 * min, 6 * min, 11 * min, 18 * min, 27 * min, 37 * min, 48 * min}, offsets)

	// The job is unaffected.
	j, _ := f.status(t, id)
	assert.Equal(t, hosted.StatusCompleted, j.Status)
	resp, _ := f.api(t, http.MethodGet, "/status/"+id)
	assert.Equal(t, http.StatusFound, resp.StatusCode)
}

func TestWebhookRetryUntilSuccessAndTimeout(t *testing.T) {
	var hang sync.Once
	arrived := make(chan struct{})
	release := make(chan struct{})
	// The first delivery hangs until the mock gives up on it.
	hangFirst := func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			first := false
			hang.Do(func() { first = true })
			if first {
				_, _ = io.ReadAll(r.Body)
				close(arrived)
				<-release // past the mock's timeout
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	rc := newHookReceiver(t, func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}, hangFirst)
	f := newFixture(t, func(o *mockserver.HostedOptions) {
		o.WebhookClient = rc.srv.Client()
		o.WebhookTimeout = 10 * time.Second
	})
	t.Cleanup(func() { close(release) }) // before the receiver closes
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	f.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	<-arrived
	f.clk.BlockUntil(2) // the retention timer and the attempt's timeout
	f.clk.Advance(10 * time.Second)
	f.Advance(time.Hour)
	d := rc.deliveries()
	require.Len(t, d, 3, "timeout, 500, 500, then 200 (the hung one is not recorded)")
	var offsets []time.Duration
	for _, x := range d {
		ts, _ := strconv.ParseInt(x.header.Get("webhook-timestamp"), 10, 64)
		offsets = append(offsets, time.Unix(ts, 0).Sub(t0))
	}
	assert.Equal(t, []time.Duration{time.Minute, 3 * time.Minute, 6 * time.Minute}, offsets)
}

func TestWebhookCAs(t *testing.T) {
	rc := newHookReceiver(t, func(int) int { return http.StatusOK })
	pool := rc.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	f := newFixture(t, func(o *mockserver.HostedOptions) { o.WebhookCAs = pool })
	key := f.upload(t, "", jpegBytes(t, 64, 64))
	f.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	f.WaitIdle()
	assert.Len(t, rc.deliveries(), 1)

	// Without trust (system roots) the delivery fails and is retried;
	// the job is unaffected.
	untrusting := newFixture(t)
	key = untrusting.upload(t, "", jpegBytes(t, 64, 66))
	id := untrusting.start(t, "fileKey="+key+"&webhookUrl="+url.QueryEscape(rc.srv.URL))
	untrusting.WaitIdle()
	assert.Len(t, rc.deliveries(), 1)
	j, _ := untrusting.status(t, id)
	assert.Equal(t, hosted.StatusCompleted, j.Status)
	next, ok := untrusting.clk.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, t0.Add(time.Minute), next, "the first retry is scheduled")
}

func TestClientEndToEnd(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	src := dir + "/in.jpg"
	require.NoError(t, os.WriteFile(src, jpegBytes(t, 90, 60), 0o600))
	job, err := f.Client.CorrectFile(ctx, src, dir+"/out.png",
		hosted.NewCorrection("").WithPreset(hosted.PresetPro).ResizeLong(180).WithOutput(hosted.OutputPNG, 0).WithDetectionData())
	require.NoError(t, err)
	assert.Equal(t, hosted.StatusCompleted, job.Status)
	out, err := os.ReadFile(dir + "/out.png")
	require.NoError(t, err)
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, 180, cfg.Width)

	// Errors map onto the client's sentinels.
	_, err = f.Client.StartJob(ctx, hosted.NewCorrection("unknown-key"))
	require.ErrorIs(t, err, hosted.ErrNotFound)
	_, err = f.Client.GetJob(ctx, "0123456789abcdef01234567")
	require.ErrorIs(t, err, hosted.ErrNotFound)
	bad, err := hosted.NewClient("nope", hosted.WithBaseURL(f.URL), hosted.WithHTTPClient(f.Server.Client()))
	require.NoError(t, err)
	_, err = bad.RequestUpload(ctx, hosted.FileTypeImage)
	require.ErrorIs(t, err, hosted.ErrUnauthorized)

	// A REJECTED job surfaces as a *JobError.
	_, err = f.Client.Correct(ctx, bytes.NewReader([]byte("nope")), 4, nil, io.Discard)
	require.ErrorIs(t, err, hosted.ErrJobRejected)

	// Presets through the client.
	p, err := f.Client.Presets.Create(ctx, hosted.CreatePresetRequest{Name: "Mine", Description: "d", FileName: "mine.pcp"},
		strings.NewReader("preset-data"), int64(len("preset-data")))
	require.NoError(t, err)
	got, err := f.Client.Presets.Get(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, "Mine", got.Name)
	page, err := f.Client.Presets.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, page.Total)
	job, err = f.Client.Correct(ctx, bytes.NewReader(jpegBytes(t, 64, 64)), int64(len(jpegBytes(t, 64, 64))),
		hosted.NewCorrection("").WithPreset("Mine"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []byte("preset-data"), f.proc.last().PresetData)
	require.NoError(t, f.Client.Presets.Delete(ctx, p.ID))
	_, err = f.Client.Presets.Get(ctx, p.ID)
	require.ErrorIs(t, err, hosted.ErrNotFound)
	_ = job
}

func TestCloseStopsRunningWork(t *testing.T) {
	proc := &testProcessor{gate: make(chan struct{}), entry: make(chan struct{}, 1)}
	h, err := mockserver.NewHosted(mockserver.HostedOptions{Processor: proc, Workers: 1, Clock: clock.NewFake(t0)})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	c, err := hosted.NewClient(mockserver.DefaultAPIKey, hosted.WithBaseURL(srv.URL+"/v2"), hosted.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	ctx := context.Background()
	data := jpegBytes(t, 64, 64)
	key, err := c.Upload(ctx, hosted.FileTypeImage, bytes.NewReader(data), int64(len(data)), "image/jpeg")
	require.NoError(t, err)
	_, err = c.StartJob(ctx, hosted.NewCorrection(key))
	require.NoError(t, err)
	_, err = c.StartJob(ctx, hosted.NewCorrection(key).WithCache(false))
	require.NoError(t, err)
	<-proc.entry
	srv.Close()
	require.NoError(t, h.Close()) // cancels the blocked job, drops the queued one
	require.NoError(t, h.Close())
	_, err = os.Stat(h.DataDir())
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func ExampleNewHosted() {
	h, err := mockserver.NewHosted(mockserver.HostedOptions{APIKeys: []string{"my-key"}})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer h.Close()
	defer srv.Close()

	c, err := hosted.NewClient("my-key", hosted.WithBaseURL(srv.URL+"/v2"))
	if err != nil {
		panic(err)
	}
	// Videos pass through the mock unchanged; images need a Processor
	// (the reference engine).
	video := []byte("\x00\x00\x00\x14ftypisom\x00\x00\x02\x00isom\x00\x00\x00\x08mdat")
	job, err := c.Correct(context.Background(), bytes.NewReader(video), int64(len(video)),
		hosted.NewCorrection("").WithFileType(hosted.FileTypeVideo), io.Discard)
	if err != nil {
		panic(err)
	}
	fmt.Println(job.Status, job.Usage.VideoCorrectionCount)
	// Output: COMPLETED 1
}

func TestEngineSmallBackgroundImage(t *testing.T) {
	f := engineFixture(t)
	// A 16x16 background is below the correction limits, but a background
	// is only scaled to cover the subject, so it is accepted.
	bgKey := f.upload(t, "", jpegBytes(t, 16, 16))
	j := f.run(t, astronautJPEG(t), "removeBackground=true&bgFileKey="+bgKey+"&bgShadow=soft&long=128")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, 1, j.Usage.RemoveBackgroundCount)
}
