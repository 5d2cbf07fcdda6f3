package pfccontainer_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestMockEndpoints: every endpoint of the seed through the client:
// PUT /pfc (JPEG and PNG, sniffed or given), GET /pfc/{imageKey}, the
// download from /output, GET /version and the health check.
func TestMockEndpoints(t *testing.T) {
	t.Parallel()
	ts, c, _ := start(t, nil)
	ctx := t.Context()

	for _, tc := range []struct {
		name, ct, ext, format string
		data                  []byte
	}{
		{"jpeg sniffed", "", ".jpg", "jpeg", jpegOf(t, 96, 64, 1)},
		{"png given", "image/png", ".png", "png", pngOf(t, 96, 64, 2)},
	} {
		key, err := c.Upload(ctx, bytes.NewReader(tc.data), int64(len(tc.data)), tc.ct)
		require.NoError(t, err, tc.name)
		assert.True(t, strings.HasSuffix(key, tc.ext), key)
		assert.FileExists(t, filepath.Join(ts.Mock.InputDir(), key))

		corr, err := c.GetCorrection(ctx, key, nil)
		require.NoError(t, err, tc.name)
		assert.True(t, strings.HasPrefix(corr.CorrectedURL, ts.URL+"/output/"), corr.CorrectedURL)
		assert.GreaterOrEqual(t, int(corr.Scene), -1)
		var out bytes.Buffer
		n, err := c.Download(ctx, corr, &out)
		require.NoError(t, err)
		assert.Equal(t, int64(out.Len()), n)
		format, w, h := decodeConfig(t, out.Bytes())
		assert.Equal(t, tc.format, format, "the source format is kept")
		assert.Equal(t, []int{96, 64}, []int{w, h})
		assert.FileExists(t, filepath.Join(ts.Mock.OutputDir(), corr.FileName()))
	}

	v, err := c.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, "10.7.2.1269", v.SDKVersion)
	assert.True(t, v.HasFeature("direct-file-mode"))
	assert.Contains(t, string(v.Raw), `"PFC_SITE_URL"`)
	require.NoError(t, c.Health(ctx))

	// One call, file in, file out.
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "in.jpg"), filepath.Join(dir, "out.png")
	require.NoError(t, os.WriteFile(src, jpegOf(t, 80, 60, 3), 0o644))
	corr, err := c.CorrectFile(ctx, src, dst, pfccontainer.NewCorrection().WithOutput(pfc.OutputPNG, 0).WithWidth(40), nil)
	require.NoError(t, err)
	assert.NotEmpty(t, corr.CorrectedURL)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	format, w, h := decodeConfig(t, got)
	assert.Equal(t, "png", format)
	assert.Equal(t, []int{40, 30}, []int{w, h})
}

// TestMockEveryOption: each query parameter of the seed has its effect on
// the mock (sizes, formats, presets, colour space, flags), sent as the
// client encodes it.
func TestMockEveryOption(t *testing.T) {
	t.Parallel()
	ts, c, logs := start(t, nil)
	ctx := t.Context()
	presets := ts.Mock.PresetsDir()
	require.NoError(t, os.WriteFile(filepath.Join(presets, "Warm.preset"), []byte("vibrance = 0.5\n"), 0o644))
	group := filepath.Join(presets, "Studio AI")
	require.NoError(t, os.MkdirAll(group, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(group, "default.preset"), []byte("contrast = 0.1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(presets, "display.icc"), []byte("icc"), 0o644))
	img := jpegOf(t, 120, 80, 4)
	key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)

	for _, tc := range []struct {
		name   string
		o      *pfccontainer.CorrectionOptions
		format string
		w, h   int
	}{
		{"width", pfccontainer.NewCorrection().WithWidth(60), "jpeg", 60, 40},
		{"height", pfccontainer.NewCorrection().WithHeight(40), "jpeg", 60, 40},
		{"long", pfccontainer.NewCorrection().WithLong(90), "jpeg", 90, 60},
		{"short", pfccontainer.NewCorrection().WithShort(40), "jpeg", 60, 40},
		{"scale", pfccontainer.NewCorrection().WithScale(50), "jpeg", 60, 40},
		{"priority: width over scale", &pfccontainer.CorrectionOptions{Width: 60, Scale: 200}, "jpeg", 60, 40},
		{"png output", pfccontainer.NewCorrection().WithOutput(pfc.OutputPNG, 0), "png", 120, 80},
		{"jpg output quality", pfccontainer.NewCorrection().WithOutput("jpg", 40), "jpeg", 120, 80},
		{"mounted preset", pfccontainer.NewCorrection().WithPreset("Warm"), "jpeg", 120, 80},
		{"AI preset group", pfccontainer.NewCorrection().WithPreset("Studio AI"), "jpeg", 120, 80},
		{"built-in preset", pfccontainer.NewCorrection().WithPreset("School and Sports").WithSkip(pfc.SkipNone), "jpeg", 120, 80},
		{"srgb", pfccontainer.NewCorrection().WithColorSpace(pfccontainer.ColorSpaceSRGB), "jpeg", 120, 80},
		{"ICC profile", pfccontainer.NewCorrection().WithColorSpace("display.icc"), "jpeg", 120, 80},
		{"autocrop", pfccontainer.NewCorrection().WithAutocrop(), "jpeg", 0, 0},
		{"skip-exif-software", pfccontainer.NewCorrection().WithSkipEXIFSoftware("Photoshop"), "jpeg", 120, 80},
		{"composite off", pfccontainer.NewCorrection().WithComposite(false), "jpeg", 120, 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			corr, err := c.GetCorrection(ctx, key, tc.o)
			require.NoError(t, err)
			var out bytes.Buffer
			_, err = c.Download(ctx, corr, &out)
			require.NoError(t, err)
			format, w, h := decodeConfig(t, out.Bytes())
			assert.Equal(t, tc.format, format)
			if tc.w != 0 {
				assert.Equal(t, []int{tc.w, tc.h}, []int{w, h})
			}
		})
	}

	// preserveInputFileName: the output takes the input's name.
	corr, err := c.GetCorrection(ctx, key, pfccontainer.NewCorrection().WithPreserveInputFileName(true))
	require.NoError(t, err)
	assert.Equal(t, key, corr.FileName())
	// enableComposite reaches the mock (reported in its log line).
	var composite []any
	for _, l := range logs.lines(t, "correctedMessage") {
		composite = append(composite, l["enableComposite"])
	}
	assert.Contains(t, composite, false)
	assert.Contains(t, composite, true)
}

// TestMockRebaseFromUnreachableSiteURL: with the container's default
// PFC_SITE_URL (http://localhost), corrected_url is not reachable from the
// test; the rebasing client downloads from the base URL instead.
func TestMockRebaseFromUnreachableSiteURL(t *testing.T) {
	t.Parallel()
	ts, c, _ := start(t, &pfcmock.Options{SiteURL: "http://localhost"})
	img := jpegOf(t, 64, 48, 5)
	key, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	corr, err := c.GetCorrection(t.Context(), key, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(corr.CorrectedURL, "http://localhost/output/"))

	rc := c.RebaseCorrectedURLs()
	corr, err = rc.GetCorrection(t.Context(), key, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(corr.CorrectedURL, ts.URL+"/output/"), corr.CorrectedURL)
	assert.True(t, strings.HasPrefix(corr.ReportedURL, "http://localhost/output/"))
	var out bytes.Buffer
	_, err = rc.Download(t.Context(), corr, &out)
	require.NoError(t, err)
	format, _, _ := decodeConfig(t, out.Bytes())
	assert.Equal(t, "jpeg", format)

	// The output route: 404 for a file that is not there, HEAD works.
	resp, err := ts.Server.Client().Head(ts.URL + "/output/" + corr.FileName())
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	_, err = rc.Download(t.Context(), &pfccontainer.Correction{CorrectedURL: ts.URL + "/output/nothing.jpg"}, &out)
	assert.ErrorIs(t, err, pfc.ErrNotFound)
}

// TestCorrectOneCall: Correct is the one-call flow of hosted.Correct's
// shape (reader in, writer out): upload, GET /pfc/{imageKey}, download;
// bad arguments are refused together before anything is sent, and flow's
// MaxDownloadSize bounds the download.
func TestCorrectOneCall(t *testing.T) {
	t.Parallel()
	ts, c, _ := start(t, nil)
	ctx := t.Context()
	img := pngOf(t, 80, 60, 3)

	var out bytes.Buffer
	corr, err := c.Correct(ctx, bytes.NewReader(img), int64(len(img)), pfccontainer.NewCorrection().WithWidth(40), &out, nil)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(corr.CorrectedURL, ts.URL+"/output/"), corr.CorrectedURL)
	format, w, _ := decodeConfig(t, out.Bytes())
	assert.Equal(t, "png", format)
	assert.Equal(t, 40, w)

	_, err = c.Correct(ctx, nil, -1, &pfccontainer.CorrectionOptions{OutputType: "gif"}, nil, &pfc.FlowOptions{KeepJob: true})
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	for _, f := range []string{"src", "size", "dst", "KeepJob"} {
		assert.Contains(t, err.Error(), f)
	}

	_, err = c.Correct(ctx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, &pfc.FlowOptions{MaxDownloadSize: 10})
	assert.ErrorIs(t, err, pfc.ErrDownloadTooLarge)
}

// TestDirectCorrectFileFlow: Direct.CorrectFile takes the flow options of
// the other flows and refuses the controls direct file mode has no use
// for, before anything is placed.
func TestDirectCorrectFileFlow(t *testing.T) {
	t.Parallel()
	ts, c, _ := start(t, nil)
	d := c.Direct(ts.Mock.InputDir(), ts.Mock.OutputDir())
	src := filepath.Join(t.TempDir(), "in.png")
	require.NoError(t, os.WriteFile(src, pngOf(t, 64, 48, 4), 0o644))

	_, err := d.CorrectFile(t.Context(), src, "", nil, &pfc.FlowOptions{MaxDownloadSize: 10})
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.Contains(t, err.Error(), "MaxDownloadSize")
	entries, _ := os.ReadDir(ts.Mock.InputDir())
	assert.Empty(t, entries, "nothing placed")

	corr, err := d.CorrectFile(t.Context(), src, "", nil, &pfc.FlowOptions{})
	require.NoError(t, err)
	assert.FileExists(t, corr.Path)
}
