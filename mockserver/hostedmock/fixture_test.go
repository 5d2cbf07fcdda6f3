package hostedmock_test

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
	"net/http"
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
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
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
	reqs  []hostedmock.JobRequest
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

func (p *testProcessor) last() hostedmock.JobRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reqs[len(p.reqs)-1]
}

func (p *testProcessor) Process(ctx context.Context, src io.Reader, req hostedmock.JobRequest, dst io.Writer) (*hostedmock.JobResult, error) {
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
	res := &hostedmock.JobResult{
		Format: req.OutputType, Width: tw, Height: th, OriginalWidth: w, OriginalHeight: h, Scene: 3,
		Faces: []hostedmock.Face{{Confidence: 90, Left: w / 4, Top: h / 4, Width: w / 2, Height: h / 2,
			LeftEye: hostedmock.Point{X: float64(w) * 0.4, Y: float64(h) * 0.4}, RightEye: hostedmock.Point{X: float64(w) * 0.6, Y: float64(h) * 0.4}}},
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
	*hostedmock.TestServer
	clk  *clock.Fake
	proc *testProcessor
	http *http.Client // does not follow redirects
}

func newFixture(t *testing.T, opts ...func(*hostedmock.Options)) *fixture {
	t.Helper()
	f := &fixture{clk: clock.NewFake(t0), proc: &testProcessor{}}
	o := hostedmock.Options{Clock: f.clk, Processor: f.proc, Workers: 2}
	for _, fn := range opts {
		fn(&o)
	}
	f.TestServer = hostedmock.Start(t, &o)
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
