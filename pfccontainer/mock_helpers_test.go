package pfccontainer_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// Helpers of the tests against the in-process container mock
// (pfcmock.Start), the one HTTP test double of the
// *_mock_test.go files.

// start starts the mock with opts (logs captured, debug level unless set)
// and returns it with its client (two fast retries) and the log sink.
func start(t *testing.T, opts *pfcmock.Options) (*pfcmock.TestServer, *pfccontainer.Client, *logSink) {
	t.Helper()
	var o pfcmock.Options
	if opts != nil {
		o = *opts
	}
	logs := &logSink{}
	o.LogWriter = logs
	if o.LogLevel == "" {
		o.LogLevel = "debug"
	}
	ts := pfcmock.Start(t, &o, pfc.WithRetries(2, time.Millisecond, 2*time.Millisecond))
	return ts, ts.Client, logs
}

// logSink collects the container's JSON log lines.
type logSink struct{ streamtest.SyncBuffer }

// lines returns the decoded lines whose msg is id ("" for all).
func (l *logSink) lines(t *testing.T, id string) []map[string]any {
	t.Helper()
	text := l.String()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		if id == "" || m["msg"] == id {
			out = append(out, m)
		}
	}
	return out
}

// photo is a w x h photo-like image (gentle gradients, a little noise),
// varied by seed so that images are distinct.
func photo(w, h, seed int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := (x*7 + y*13 + seed) % 5
			img.Set(x, y, color.NRGBA{R: uint8(60 + 120*x/w + n), G: uint8(90 + 80*y/h + seed%7), B: uint8(70 + n*2), A: 255})
		}
	}
	return img
}

func jpegOf(t testing.TB, w, h, seed int) []byte {
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, photo(w, h, seed), &jpeg.Options{Quality: 90}))
	return b.Bytes()
}

func pngOf(t testing.TB, w, h, seed int) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, photo(w, h, seed)))
	return b.Bytes()
}

// decodeConfig returns the format and size of an encoded image.
func decodeConfig(t *testing.T, b []byte) (string, int, int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	require.NoError(t, err)
	return format, cfg.Width, cfg.Height
}

// imageConfig decodes the header of an encoded image.
func imageConfig(b []byte) (string, image.Config, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	return format, cfg, err
}

// pathOf is the Path of corr, "" for nil.
func pathOf(corr *pfccontainer.Correction) string {
	if corr == nil {
		return ""
	}
	return corr.Path
}
