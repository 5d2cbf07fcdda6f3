package containersvc

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

var (
	engineOnce sync.Once
	sharedEng  *engine.Engine
	engineErr  error
)

// testEngine is one engine for all tests (loading the face cascades is the
// slow part).
func testEngine(t *testing.T) *engine.Engine {
	engineOnce.Do(func() { sharedEng, engineErr = engine.New(engine.Options{}) })
	require.NoError(t, engineErr)
	return sharedEng
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct{ streamtest.SyncBuffer }

// lines decodes the JSON log lines.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	return out
}

// find returns the first line with message id id.
func (b *syncBuffer) find(t *testing.T, id string) map[string]any {
	for _, l := range b.lines(t) {
		if l["msg"] == id {
			return l
		}
	}
	return nil
}

type fixture struct {
	svc   *Service
	logs  *syncBuffer
	clock *clock.Fake
	root  string
}

// newFixture starts a Service on a fresh root with a valid licence, debug
// logging and a fake clock; mutate adjusts the config first.
func newFixture(t *testing.T, mutate func(*Config)) *fixture {
	t.Helper()
	return newFixtureNamed(t, "", mutate)
}

// newFixtureNamed is newFixture with Deps.BudgetName set to budgetName.
func newFixtureNamed(t *testing.T, budgetName string, mutate func(*Config)) *fixture {
	t.Helper()
	f := &fixture{logs: &syncBuffer{}, clock: clock.NewFake(t0), root: filepath.Join(t.TempDir(), "container")}
	m, _, err := PrepareRoot(f.root)
	require.NoError(t, err)
	require.NoError(t, WriteLicense(m.License, NewLicense("tests", time.Time{})))
	cfg := Config{Root: f.root, LogLevel: "debug", LogWriter: f.logs, Clock: f.clock}
	if mutate != nil {
		mutate(&cfg)
	}
	f.svc, err = New(cfg, Deps{Engine: testEngine(t), BudgetName: budgetName})
	require.NoError(t, err)
	t.Cleanup(f.svc.Close)
	return f
}

// photo returns a w x h test image with gentle gradients (a photo to the
// clipart detector).
func photo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8((x*7 + y*13) % 5)
			img.Set(x, y, color.NRGBA{R: uint8(60 + 120*x/w + int(n)), G: uint8(90 + 80*y/h), B: uint8(70 + int(n)*2), A: 255})
		}
	}
	return img
}

func jpegBytes(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, photo(w, h), &jpeg.Options{Quality: 90}))
	return b.Bytes()
}

func pngBytes(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, photo(w, h)))
	return b.Bytes()
}

// placeInput writes data as input/name, as a user does in direct file mode.
func (f *fixture) placeInput(t *testing.T, name string, data []byte) {
	require.NoError(t, os.WriteFile(filepath.Join(f.svc.Mounts().Input, name), data, 0o644))
}

// outputName is the file name of a corrected_url.
func outputName(t *testing.T, correctedURL string) string {
	i := strings.Index(correctedURL, OutputPrefix)
	require.GreaterOrEqual(t, i, 0, correctedURL)
	return correctedURL[i+len(OutputPrefix):]
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}
