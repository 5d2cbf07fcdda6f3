package bgsvc

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "lic-0123456789-secret"

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// newService returns an activated service on a fake clock; edit adjusts
// the config first.
func newService(t *testing.T, edit func(*settings)) (*Service, *clock.Fake) {
	t.Helper()
	fc := clock.NewFake(t0)
	cfg := settings{Config{LicenseKey: testKey, Clock: fc, Workers: 2}, Deps{WorkDir: t.TempDir()}}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg.Config, cfg.Deps)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	st, e := s.Authorize(testKey)
	require.Nil(t, e)
	require.Equal(t, Licensed, st.Status)
	return s, fc
}

// subjectPNG is a w×h light-grey backdrop with a dark red box in the
// middle: an easy general-mode subject.
func subjectPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{R: 225, G: 228, B: 230, A: 255}
			if x > w/3 && x < 2*w/3 && y > h/4 && y < 3*h/4 {
				c = color.NRGBA{R: 150, G: 20, B: 30, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

func upload(t testing.TB, s *Service, data []byte) *Upload {
	t.Helper()
	u, e := s.ReceiveFile(bytes.NewReader(data))
	require.Nil(t, e)
	return u
}

// submit submits data with the given parameters and requires success.
func submit(t testing.TB, s *Service, data []byte, req SubmitRequest) *SubmitResponse {
	t.Helper()
	req.File = upload(t, s, data)
	if req.FileName == "" {
		req.FileName = "photo.png"
	}
	r, e := s.Submit(req)
	require.Nil(t, e)
	return r
}

func waitIdle(t testing.TB, s *Service) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, s.WaitIdle(ctx))
}

func check(t testing.TB, s *Service, id string) *CheckResponse {
	t.Helper()
	r, e := s.Check(id)
	require.Nil(t, e)
	return r
}

// download reads a completed job's PNG.
func download(t testing.TB, s *Service, id string) image.Image {
	t.Helper()
	d, e := s.Download(id)
	require.Nil(t, e)
	require.False(t, d.Processing)
	defer d.File.Close()
	data, err := io.ReadAll(d.File)
	require.NoError(t, err)
	require.Equal(t, d.Size, int64(len(data)))
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	return img
}

func requireErr(t testing.TB, e *httpx.Error, status int, code, param string) {
	t.Helper()
	require.NotNil(t, e)
	require.Equal(t, status, e.Status, e.Message)
	require.Equal(t, code, e.Code, e.Message)
	require.Equal(t, param, e.Parameter, e.Message)
}

func fileCount(t testing.TB, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	n := 0
	for _, e := range ents {
		if !e.IsDir() {
			n++
		}
	}
	return n
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer = streamtest.SyncBuffer
