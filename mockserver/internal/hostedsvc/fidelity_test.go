package hostedsvc

import (
	"bytes"
	"context"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/testimage"
)

// engineProcessor runs the reference engine (no correction, the
// requested format) and keeps each request and output.
type engineProcessor struct {
	eng  *engine.Engine
	mu   sync.Mutex
	reqs []JobRequest
	outs [][]byte
}

func (p *engineProcessor) Process(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error) {
	var out bytes.Buffer
	res, err := p.eng.Process(ctx, src, engine.Request{Preset: "none", OutputType: req.OutputType, Quality: req.Quality},
		io.MultiWriter(dst, &out))
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	p.outs = append(p.outs, out.Bytes())
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &JobResult{Format: string(res.Format), Width: res.Width, Height: res.Height}, nil
}

func (p *engineProcessor) last(t *testing.T) (JobRequest, []byte) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NotEmpty(t, p.reqs, "the processor did not run")
	return p.reqs[len(p.reqs)-1], p.outs[len(p.outs)-1]
}

func newEngineService(t *testing.T, edit func(*settings)) (*Service, *engineProcessor) {
	eng, err := engine.New(engine.Options{})
	require.NoError(t, err)
	p := &engineProcessor{eng: eng}
	s, _ := newServiceWith(t, func(c *settings) {
		c.Deps.Processor = p
		if edit != nil {
			edit(c)
		}
	})
	return s, p
}

// TestResizeModeWithoutASizeIsIgnored: resize is used only when resizing
// is requested: without a size the job completes at the source size and
// the processor is asked for no resize and no mode.
func TestResizeModeWithoutASizeIsIgnored(t *testing.T) {
	t.Parallel()
	s, p := newEngineService(t, nil)
	for _, mode := range []string{"auto", "general", "smallDetails"} {
		id := startJob(t, s, "fileKey="+uploadFile(t, s, pngBytes(t, 1))+"&preset=none&resize="+mode)
		rec, raw := jobRecord(t, s, id)
		require.Equal(t, StatusCompleted, rec.Status, rec.StatusText)
		req, out := p.last(t)
		assert.Equal(t, ResizeRequest{}, req.Resize, mode)
		cfg, err := png.DecodeConfig(bytes.NewReader(out))
		require.NoError(t, err)
		assert.Equal(t, [2]int{64, 64}, [2]int{cfg.Width, cfg.Height}, mode)
		assert.Contains(t, string(raw), `"imageResizeCount":0`)
		assert.Contains(t, string(raw), `"classicResizeCount":0`)
	}
	// With a size, the mode applies.
	id := startJob(t, s, "fileKey="+uploadFile(t, s, pngBytes(t, 2))+"&preset=none&resize=general&long=128")
	_, _ = jobRecord(t, s, id)
	req, _ := p.last(t)
	assert.Equal(t, ResizeRequest{Long: 128, Mode: "general"}, req.Resize)
}

// countingTransport answers every webhook 200 and counts the requests.
type countingTransport struct {
	mu   sync.Mutex
	urls []string
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.urls = append(c.urls, r.URL.String())
	c.mu.Unlock()
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

func (c *countingTransport) sent() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.urls...)
}

// TestNoWebhookWithoutWebhookURL: a job without webhookUrl sends nothing,
// completed or failed; one with it sends its delivery.
func TestNoWebhookWithoutWebhookURL(t *testing.T) {
	t.Parallel()
	hooks := &countingTransport{}
	s, _ := newEngineService(t, func(c *settings) { c.WebhookClient = &http.Client{Transport: hooks} })
	for _, data := range [][]byte{pngBytes(t, 3), append(pngBytes(t, 4)[:40], 0)} { // completed, failed
		id := startJob(t, s, "fileKey="+uploadFile(t, s, data))
		rec, _ := jobRecord(t, s, id)
		require.Contains(t, []string{StatusCompleted, StatusFailed, StatusRejected}, rec.Status)
	}
	assert.Empty(t, hooks.sent(), "no webhookUrl, no delivery")

	id := startJob(t, s, "fileKey="+uploadFile(t, s, pngBytes(t, 5))+"&webhookUrl=https%3A%2F%2Fhook.example%2Fin")
	rec, _ := jobRecord(t, s, id)
	require.Equal(t, StatusCompleted, rec.Status, rec.StatusText)
	assert.Equal(t, []string{"https://hook.example/in"}, hooks.sent())
}

// TestGreyPaletteAnd16BitInputsAreConverted: each is COMPLETED and written
// as an 8-bit RGB(A) PNG, or a three-component JPEG.
func TestGreyPaletteAnd16BitInputsAreConverted(t *testing.T) {
	t.Parallel()
	s, p := newEngineService(t, nil)
	for name, data := range colourModelInputs(t) {
		for _, outType := range []string{"png", "jpg"} {
			id := startJob(t, s, "fileKey="+uploadFile(t, s, data)+"&preset=none&outputType="+outType)
			rec, _ := jobRecord(t, s, id)
			require.Equal(t, StatusCompleted, rec.Status, "%s: %s", name, rec.StatusText)
			_, out := p.last(t)
			if outType == "png" {
				img, err := png.Decode(bytes.NewReader(out))
				require.NoError(t, err, name)
				assert.Contains(t, []color.Model{color.RGBAModel, color.NRGBAModel}, img.ColorModel(), name)
				continue
			}
			img, err := jpeg.Decode(bytes.NewReader(out))
			require.NoError(t, err, name)
			assert.Equal(t, color.YCbCrModel, img.ColorModel(), name)
		}
	}
}

// colourModelInputs are a gradient in the colour models outside 8-bit
// RGB(A) (testimage.ColourModels), keyed by file name.
func colourModelInputs(t *testing.T) map[string][]byte {
	in, err := testimage.ColourModels(48, 40, func(x, y int) uint8 { return uint8(40 + 3*x + 2*y) })
	require.NoError(t, err)
	return in
}
