package bgmock

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/pfc"
)

// failWidth is the width of the images the test remover fails on.
const failWidth = 13

// testRemover runs the CPU engine, but fails images failWidth pixels wide
// and, when gate is set, holds the first engine until gate.release is
// closed (or its context ends).
type testRemover struct {
	gate *gate
}

type gate struct {
	once             sync.Once
	started, release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}), release: make(chan struct{})} }

func (r testRemover) RemoveBackground(ctx context.Context, img *image.NRGBA, o matting.Options) (*matting.Matte, error) {
	if img.Rect.Dx() == failWidth {
		return nil, errors.New("simulated GPU failure")
	}
	if g := r.gate; g != nil {
		first := false
		g.once.Do(func() { first = true; close(g.started) })
		if first {
			select {
			case <-g.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return matting.NewCPU().RemoveBackground(ctx, img, o)
}

// boxColors are subject colours the engine separates from a light grey
// backdrop.
var boxColors = []color.NRGBA{
	{R: 150, G: 20, B: 30, A: 255}, {R: 20, G: 40, B: 140, A: 255}, {R: 30, G: 110, B: 40, A: 255},
	{R: 90, G: 30, B: 110, A: 255}, {R: 120, G: 70, B: 10, A: 255},
}

// subject is a w×h PNG: a light grey backdrop with a box of colour c in
// the middle third.
func subject(t testing.TB, w, h int, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			px := color.NRGBA{R: 225, G: 228, B: 230, A: 255}
			if x > w/3 && x < 2*w/3 && y > h/4 && y < 3*h/4 {
				px = c
			}
			img.SetNRGBA(x, y, px)
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// checkCutout decodes a result and checks it against its input: same
// size, transparent corner, the box opaque in its own colour.
func checkCutout(t testing.TB, data []byte, w, h int, c color.NRGBA) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, w, h), img.Bounds())
	corner := color.NRGBAModel.Convert(img.At(0, 0)).(color.NRGBA)
	assert.Zero(t, corner.A, "backdrop transparent")
	centre := color.NRGBAModel.Convert(img.At(w/2, h/2)).(color.NRGBA)
	assert.Equal(t, uint8(255), centre.A, "subject opaque")
	for _, d := range []int{int(centre.R) - int(c.R), int(centre.G) - int(c.G), int(centre.B) - int(c.B)} {
		assert.LessOrEqual(t, max(d, -d), 8, "subject keeps its colour: got %v want %v", centre, c)
	}
}

// raw sends a request the client would refuse to send, and returns the
// status and the JSON error code.
func raw(t *testing.T, srv *TestServer, method, path string, body io.Reader, contentType string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, body)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := srv.Server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	code := ""
	if i := strings.Index(string(b), `"code":"`); i >= 0 {
		code, _, _ = strings.Cut(string(b)[i+len(`"code":"`):], `"`)
	}
	return resp.StatusCode, code
}

// TestBGLicensing: unactivated until the valid key is applied; a wrong
// key does not activate nor revoke; no key, right or wrong, reaches the
// client's or the mock's logs, or an error.
func TestBGLicensing(t *testing.T) {
	t.Parallel()
	var logs streamtest.SyncBuffer
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	srv := Start(t, &Options{LicenseKey: "lic-7a6b5c4d", Organization: "Acme Photo",
		Logger: slog.New(slog.NewTextHandler(&logs, debug))},
		pfc.WithLogger(slog.New(slog.NewTextHandler(&logs, debug))))
	defer func() {
		assert.Contains(t, logs.String(), "/Authorize/REDACTED")
		assert.NotContains(t, logs.String(), "lic-7a6b5c4d")
		assert.NotContains(t, logs.String(), "lic-wrong")
	}()
	ctx := context.Background()
	c := srv.Client
	st, err := c.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, bgcontainer.Unlicensed, st.Status)
	assert.Equal(t, "372.0", st.ModelVersion)

	in := subject(t, 30, 20, boxColors[0])
	_, err = c.SubmitImage(ctx, bytes.NewReader(in), int64(len(in)), nil)
	require.ErrorIs(t, err, bgcontainer.ErrNotActivated)
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusForbidden, ae.StatusCode)
	assert.Equal(t, "not_activated", ae.Code)
	id := "0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10"
	_, err = c.CheckImage(ctx, id)
	require.ErrorIs(t, err, bgcontainer.ErrNotActivated)
	_, err = c.DownloadImage(ctx, id, io.Discard)
	require.ErrorIs(t, err, bgcontainer.ErrNotActivated)
	_, err = c.RemoveImage(ctx, id)
	require.ErrorIs(t, err, bgcontainer.ErrNotActivated)

	wrong, err := bgcontainer.NewClient("lic-wrong", pfc.WithBaseURL(srv.URL), pfc.WithHTTPClient(srv.Server.Client()),
		pfc.WithLogger(slog.New(slog.NewTextHandler(&logs, debug))))
	require.NoError(t, err)
	st, err = wrong.Authorize(ctx)
	require.NoError(t, err)
	assert.False(t, st.IsLicensed())

	st, err = c.Authorize(ctx)
	require.NoError(t, err)
	require.True(t, st.IsLicensed())
	assert.Equal(t, "Acme Photo", st.Organization)
	assert.True(t, st.ExpirationIsMonth)
	assert.Regexp(t, `^\d{4}-\d{2}$`, st.ExpirationRaw)
	month := st.Expiration

	st, err = c.Status(ctx)
	require.NoError(t, err)
	assert.True(t, st.IsLicensed())
	assert.False(t, st.ExpirationIsMonth)
	_, err = time.Parse(time.RFC3339, st.ExpirationRaw)
	require.NoError(t, err)
	assert.Equal(t, month.Format("2006-01"), st.Expiration.Format("2006-01"))
	assert.Equal(t, "372.0", st.ModelVersion)

	st, err = wrong.Authorize(ctx) // a wrong key does not revoke the activation
	require.NoError(t, err)
	assert.False(t, st.IsLicensed())
	_, err = c.SubmitImage(ctx, bytes.NewReader(in), int64(len(in)), nil)
	require.NoError(t, err)
}

// TestBGErrorTable: every row of the seed's error table, through the
// client; the rows the client cannot produce because it validates first
// (a missing licence key, a malformed process id, no file part) are sent
// raw, and the client's own error for the same input matches the same
// sentinel. The 500 rows are in TestBGInternalErrors.
func TestBGErrorTable(t *testing.T) {
	t.Parallel()
	srv := start(t, &Options{Activated: true}, hooks{remover: testRemover{}})
	ctx := context.Background()
	c := srv.Client
	unknown := "0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10"

	// /Authorize 200, 400.
	st, err := c.Authorize(ctx)
	require.NoError(t, err)
	assert.True(t, st.IsLicensed())
	status, code := raw(t, srv, "GET", "/Authorize/", nil, "")
	assert.Equal(t, 400, status)
	assert.Equal(t, "missing_parameter", code)
	noKey, err := bgcontainer.NewClient("", pfc.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = noKey.Authorize(ctx)
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)

	// /Status 200.
	_, err = c.Status(ctx)
	require.NoError(t, err)

	// /SubmitImage 200, 404 (not an image; an unreadable header), 422.
	good := subject(t, 24, 16, boxColors[1])
	job, err := c.SubmitImage(ctx, bytes.NewReader(good), int64(len(good)), nil)
	require.NoError(t, err)
	for _, bad := range [][]byte{[]byte("not an image at all"), append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...)} {
		_, err = c.SubmitImage(ctx, bytes.NewReader(bad), int64(len(bad)), nil)
		require.ErrorIs(t, err, bgcontainer.ErrInvalidFile)
		require.ErrorIs(t, err, pfc.ErrNotFound)
	}
	status, code = raw(t, srv, "POST", "/SubmitImage", strings.NewReader("--b--\r\n"), "multipart/form-data; boundary=b")
	assert.Equal(t, 422, status)
	assert.Equal(t, "unprocessable", code)

	// /CheckImage, /DownloadImage, /RemoveImage: 400 (raw; the client
	// refuses first), 404.
	for _, p := range []string{"GET /CheckImage/42", "GET /DownloadImage/42", "DELETE /RemoveImage/42", "GET /CheckImage/"} {
		method, path, _ := strings.Cut(p, " ")
		status, code = raw(t, srv, method, path, nil, "")
		assert.Equal(t, 400, status, p)
		assert.Equal(t, "invalid_parameter", code, p)
	}
	_, err = c.CheckImage(ctx, "42")
	require.ErrorIs(t, err, bgcontainer.ErrInvalidProcessID)
	_, err = c.CheckImage(ctx, unknown)
	require.ErrorIs(t, err, bgcontainer.ErrJobNotFound)
	_, err = c.DownloadImage(ctx, unknown, io.Discard)
	require.ErrorIs(t, err, bgcontainer.ErrJobNotFound)
	_, err = c.RemoveImage(ctx, unknown)
	require.ErrorIs(t, err, bgcontainer.ErrJobNotFound)

	// /CheckImage 200, /DownloadImage 200, /RemoveImage 200.
	done, err := c.WaitImage(ctx, job.ProcessID, nil)
	require.NoError(t, err)
	assert.Equal(t, bgcontainer.StatusCompleted, done.Status)
	var out bytes.Buffer
	_, err = c.DownloadImage(ctx, job.ProcessID, &out)
	require.NoError(t, err)
	checkCutout(t, out.Bytes(), 24, 16, boxColors[1])
	_, err = c.RemoveImage(ctx, job.ProcessID)
	require.NoError(t, err)
	_, err = c.DownloadImage(ctx, job.ProcessID, io.Discard)
	require.ErrorIs(t, err, bgcontainer.ErrJobNotFound, "404 once removed")

	// /DownloadImage 500: processing failed.
	bad := subject(t, failWidth, 10, boxColors[2])
	failed, err := c.SubmitImage(ctx, bytes.NewReader(bad), int64(len(bad)), nil)
	require.NoError(t, err)
	res, err := c.WaitImage(ctx, failed.ProcessID, nil)
	require.ErrorIs(t, err, pfc.ErrJobFailed)
	assert.Contains(t, res.Error, "simulated GPU failure")
	assert.False(t, res.HasProcessingTime)
	_, err = c.DownloadImage(ctx, failed.ProcessID, io.Discard)
	require.ErrorIs(t, err, pfc.ErrJobFailed)
	require.ErrorIs(t, err, pfc.ErrServer)
	d, err := c.RemoveImage(ctx, failed.ProcessID)
	require.NoError(t, err)
	assert.Equal(t, bgcontainer.StatusFailed, d.PreviousStatus)
	assert.Equal(t, 1, d.FilesDeleted)

	// Bad options the mock refuses (the client checks mode and the config
	// itself; a config that is JSON but not an object passes neither).
	_, err = c.SubmitImage(ctx, bytes.NewReader(good), int64(len(good)), &bgcontainer.SubmitOptions{PreprocessingConfigJSON: "[]"})
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.Zero(t, srv.Mock.JobCount())
}

// TestBGEveryState walks jobs through queued, processing, completed and
// failed on a fake clock; DownloadImage of a queued or processing job is
// the raw final 102 on the httptest listener; RemoveImage works in every
// state.
func TestBGEveryState(t *testing.T) {
	t.Parallel()
	g := newGate()
	fc := clock.NewFake(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	srv := start(t, &Options{Activated: true, Clock: fc, Workers: 1,
		ProcessingDelay: 2 * time.Second}, hooks{remover: testRemover{gate: g}})
	ctx := context.Background()
	c := srv.Client
	submit := func(w int, col color.NRGBA, mode bgcontainer.Mode) (string, []byte) {
		in := subject(t, w, 20, col)
		j, err := c.SubmitImage(ctx, bytes.NewReader(in), int64(len(in)), &bgcontainer.SubmitOptions{Mode: mode, FileName: "img.png"})
		require.NoError(t, err)
		assert.Equal(t, bgcontainer.StatusProcessing, j.Status, "the submit answer says processing")
		assert.Equal(t, mode, j.Mode)
		return j.ProcessID, in
	}
	state := func(id string) *bgcontainer.CheckResult {
		r, err := c.CheckImage(ctx, id)
		require.NoError(t, err)
		return r
	}
	stillProcessing := func(id string) {
		var out bytes.Buffer
		_, err := c.DownloadImage(ctx, id, &out)
		require.ErrorIs(t, err, pfc.ErrStillProcessing)
		assert.Zero(t, out.Len())
	}

	a, _ := submit(30, boxColors[0], bgcontainer.ModeGeneral)
	<-g.started // a's engine holds the one worker
	b, _ := submit(32, boxColors[1], bgcontainer.ModePortrait)
	q, _ := submit(34, boxColors[2], bgcontainer.ModeGeneral)
	assert.Equal(t, bgcontainer.StatusProcessing, state(a).Status)
	assert.Equal(t, bgcontainer.StatusQueued, state(b).Status)
	assert.Equal(t, bgcontainer.ModePortrait, state(b).Mode)
	assert.Equal(t, "img.png", state(b).OriginalName)
	stillProcessing(a)
	stillProcessing(b)

	d, err := c.RemoveImage(ctx, q)
	require.NoError(t, err)
	assert.Equal(t, bgcontainer.StatusProcessing, d.PreviousStatus, "a queued job's previous_status is processing (documented values only)")

	close(g.release)
	srv.WaitIdle() // both engines ran; both wait for their delay
	assert.Equal(t, bgcontainer.StatusProcessing, state(a).Status)
	assert.Equal(t, bgcontainer.StatusProcessing, state(b).Status)
	stillProcessing(b)
	f, _ := submit(failWidth, boxColors[3], bgcontainer.ModeGeneral)
	srv.WaitIdle()
	d, err = c.RemoveImage(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, bgcontainer.StatusProcessing, d.PreviousStatus)

	srv.Advance(2 * time.Second)
	r := state(a)
	assert.Equal(t, bgcontainer.StatusCompleted, r.Status)
	require.True(t, r.HasProcessingTime)
	assert.Equal(t, 2*time.Second, r.ProcessingTime, "clock seconds from processing to completion")
	assert.Empty(t, r.Error)
	r = state(f)
	assert.Equal(t, bgcontainer.StatusFailed, r.Status)
	assert.NotEmpty(t, r.Error)
	assert.False(t, r.HasProcessingTime)

	for id, prev := range map[string]bgcontainer.JobStatus{a: bgcontainer.StatusCompleted, f: bgcontainer.StatusFailed} {
		d, err := c.RemoveImage(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, prev, d.PreviousStatus)
		_, err = c.CheckImage(ctx, id)
		require.ErrorIs(t, err, bgcontainer.ErrJobNotFound)
	}
	assert.Zero(t, srv.Mock.JobCount())
}

// TestBGInternalErrors: the seed's 500 rows (internal server error) of
// Authorize, Status, SubmitImage, CheckImage and RemoveImage, injected in
// front of the mock: each is an *Error matching ErrServer and no
// per-endpoint sentinel; SubmitImage is not resent, the others are
// retried; DownloadImage's 500 (processing failed) is final.
func TestBGInternalErrors(t *testing.T) {
	t.Parallel()
	fail := map[string]bool{}
	var mu sync.Mutex
	srv := start(t, &Options{Activated: true}, hooks{fault: func(r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		return fail[name]
	}}, pfc.WithRetries(2, time.Millisecond, 2*time.Millisecond))
	ctx := context.Background()
	c := srv.Client
	in := subject(t, 20, 16, boxColors[0])
	job, err := c.SubmitImage(ctx, bytes.NewReader(in), int64(len(in)), nil)
	require.NoError(t, err)
	mu.Lock()
	for _, n := range []string{"Authorize", "Status", "SubmitImage", "CheckImage", "RemoveImage", "DownloadImage"} {
		fail[n] = true
	}
	mu.Unlock()
	calls := []struct {
		ep       string
		call     func() error
		attempts int
		kind     error
	}{
		{"Authorize", func() error { _, err := c.Authorize(ctx); return err }, 3, nil},
		{"Status", func() error { _, err := c.Status(ctx); return err }, 3, nil},
		{"SubmitImage", func() error {
			_, err := c.SubmitImage(ctx, bytes.NewReader(in), int64(len(in)), nil)
			return err
		}, 1, nil},
		{"CheckImage", func() error { _, err := c.CheckImage(ctx, job.ProcessID); return err }, 3, nil},
		{"RemoveImage", func() error { _, err := c.RemoveImage(ctx, job.ProcessID); return err }, 3, nil},
		{"DownloadImage", func() error { _, err := c.DownloadImage(ctx, job.ProcessID, io.Discard); return err },
			1, pfc.ErrJobFailed},
	}
	for _, tt := range calls {
		err := tt.call()
		require.ErrorIs(t, err, pfc.ErrServer, tt.ep)
		var e *bgcontainer.Error
		require.ErrorAs(t, err, &e, tt.ep)
		assert.Equal(t, tt.ep, e.Endpoint)
		assert.Equal(t, 500, e.StatusCode)
		var ae *pfc.APIError
		require.ErrorAs(t, err, &ae, tt.ep)
		assert.Equal(t, tt.attempts, ae.Attempts, tt.ep)
		for _, s := range []error{bgcontainer.ErrNotActivated, bgcontainer.ErrInvalidFile, bgcontainer.ErrJobNotFound,
			bgcontainer.ErrInvalidProcessID, pfc.ErrJobFailed} {
			assert.Equal(t, s == tt.kind, errors.Is(err, s), "%s: %v", tt.ep, s)
		}
	}
	assert.Equal(t, 1, srv.Mock.JobCount(), "the failed SubmitImage was not resent")
}
