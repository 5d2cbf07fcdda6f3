package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/pfc"
)

// photoJPEG is an ordinary w×h 8-bit JPEG: a subject on a gradient.
func photoJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{R: uint8(40 + x%200), G: uint8(60 + y%180), B: 120, A: 255}
			if dx, dy := x-w/2, y-h/2; dx*dx+dy*dy < h*h/9 {
				c = color.NRGBA{R: 220, G: 90, B: uint8(30 + (x+y)%40), A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}))
	return b.Bytes()
}

// bgClient is an activated client of the background-removal mock at url.
func bgClient(t *testing.T, url string) *bgcontainer.Client {
	t.Helper()
	c, err := bgcontainer.NewClient("test-license-key", pfc.WithBaseURL(url))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	st, err := c.Authorize(t.Context())
	require.NoError(t, err)
	require.True(t, st.IsLicensed())
	return c
}

// submitRefused submits img to the background-removal mock at url and
// returns the refusal, which must be 404 invalid_file.
func submitRefused(t *testing.T, url string, img []byte) *bgcontainer.Error {
	t.Helper()
	_, err := bgClient(t, url).SubmitImage(t.Context(), bytes.NewReader(img), int64(len(img)), nil)
	require.ErrorIs(t, err, bgcontainer.ErrInvalidFile)
	var be *bgcontainer.Error
	require.True(t, errors.As(err, &be), "%T", err)
	assert.Equal(t, "invalid_file", be.Code)
	return be
}

// TestRunMemoryBudgetRefusalNamesTheFlag: under -memory-budget 10MB an
// ordinary 400×300 JPEG is over the whole budget of both container mocks
// (about 70 MB to remove its background, 19 MB to correct it): each
// refuses it with the code it answered before (404 invalid_file, 503
// processingPFCErrorMessage) and a message that names -memory-budget as
// what to raise, and the budget in the size given.
func TestRunMemoryBudgetRefusalNamesTheFlag(t *testing.T) {
	t.Parallel()
	cmd := startCommand(t, 2, "-hosted-addr", "", "-container-addr", "127.0.0.1:0", "-bg-addr", "127.0.0.1:0",
		"-memory-budget", "10MB", "-data-dir", t.TempDir())
	require.Equal(t, []string{"container", "bg"}, cmd.names)
	img := photoJPEG(t, 400, 300)

	be := submitRefused(t, cmd.urls[1], img)
	t.Logf("bg: %s", be.Message)
	assert.Contains(t, be.Message, "400x300: decoding and processing this JPEG would hold about 7", be.Message)
	assert.Contains(t, be.Message, "more than the memory budget of 10 MB; raise bgmock.Options.MemoryBudget (pfc-mockserver: -memory-budget)")

	status, code, msg := correctRaw(t, cmd.urls[0], img)
	t.Logf("container: %s", msg)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "processingPFCErrorMessage", code)
	assert.Contains(t, msg, "more than the memory budget of 10 MB; raise pfcmock.Options.MemoryBudget (pfc-mockserver: -memory-budget)")
	cmd.cancel()
	assert.Equal(t, 0, <-cmd.done)
}

// correctRaw uploads img to the correction container mock at base and
// corrects it, returning the correction's status, code and message.
func correctRaw(t *testing.T, base string, img []byte) (int, string, string) {
	t.Helper()
	client := &http.Client{}
	defer client.CloseIdleConnections()
	do := func(method, url string, body io.Reader) (int, []byte) {
		req, err := http.NewRequestWithContext(t.Context(), method, url, body)
		require.NoError(t, err)
		if body != nil {
			req.Header.Set("Content-Type", "image/jpeg")
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, b
	}
	st, b := do(http.MethodPut, base+"/pfc", bytes.NewReader(img))
	require.Equal(t, http.StatusOK, st, string(b))
	var up struct{ ImageKey string }
	require.NoError(t, json.Unmarshal(b, &up))
	st, b = do(http.MethodGet, base+"/pfc/"+up.ImageKey, nil)
	var e struct{ Code, Message string }
	require.NoError(t, json.Unmarshal(b, &e), string(b))
	return st, e.Code, e.Message
}

// TestRunPixelBudgetIsADeprecatedAlias: -pixel-budget N still works, as
// -memory-budget of N × 6 bytes (imageio.BudgetPixelBytes): 10,000,000
// pixels are a 60 MB budget, which refuses the 400×300 JPEG's background
// removal (about 70 MB), naming -memory-budget; a warning line on stderr
// says how it converted.
func TestRunPixelBudgetIsADeprecatedAlias(t *testing.T) {
	t.Parallel()
	cmd := startCommand(t, 1, "-hosted-addr", "", "-container-addr", "", "-bg-addr", "127.0.0.1:0",
		"-pixel-budget", "10000000", "-data-dir", t.TempDir())
	be := submitRefused(t, cmd.urls[0], photoJPEG(t, 400, 300))
	assert.Contains(t, be.Message, "more than the memory budget of 60 MB; raise bgmock.Options.MemoryBudget (pfc-mockserver: -memory-budget)")
	cmd.cancel()
	assert.Equal(t, 0, <-cmd.done)

	var warned bool
	for _, l := range strings.Split(strings.TrimSpace(cmd.stderr.String()), "\n") {
		var rec struct{ Level, Msg string }
		require.NoError(t, json.Unmarshal([]byte(l), &rec), l)
		if strings.Contains(rec.Msg, "-pixel-budget is deprecated") {
			warned = true
			assert.Equal(t, "warning", rec.Level)
			assert.Contains(t, rec.Msg, "6 bytes a pixel")
			assert.Contains(t, rec.Msg, "-pixel-budget 10000000 is -memory-budget 60MB")
		}
	}
	assert.True(t, warned, "a deprecation line on stderr:\n%s", cmd.stderr.String())
}

// TestRunDefaultBudgetTakesAnOrdinaryImage: under the default budget a
// 400×300 JPEG's background is removed; no deprecation line is logged.
func TestRunDefaultBudgetTakesAnOrdinaryImage(t *testing.T) {
	t.Parallel()
	cmd := startCommand(t, 1, "-hosted-addr", "", "-container-addr", "", "-bg-addr", "127.0.0.1:0", "-data-dir", t.TempDir())
	c := bgClient(t, cmd.urls[0])
	img := photoJPEG(t, 400, 300)
	job, err := c.SubmitImage(t.Context(), bytes.NewReader(img), int64(len(img)), nil)
	require.NoError(t, err)
	res, err := c.WaitImage(t.Context(), job.ProcessID, &pfc.WaitOptions{MinDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, bgcontainer.StatusCompleted, res.Status)
	cmd.cancel()
	assert.Equal(t, 0, <-cmd.done)
	assert.NotContains(t, cmd.stderr.String(), "deprecated")
}

// TestRunBudgetFlagErrors: a malformed, negative, zero or overflowing
// budget, or both flags at once, stops the command with status 2 and an
// error naming the flag.
func TestRunBudgetFlagErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"garbage":               {[]string{"-memory-budget", "lots"}, `invalid value "lots" for flag -memory-budget`},
		"unknown unit":          {[]string{"-memory-budget", "2XB"}, `flag -memory-budget: unknown unit "XB"`},
		"negative":              {[]string{"-memory-budget", "-1GB"}, "flag -memory-budget: must be positive"},
		"zero":                  {[]string{"-memory-budget", "0"}, "flag -memory-budget: must be positive"},
		"overflow":              {[]string{"-memory-budget", "10000000TB"}, "flag -memory-budget: 10000000TB is too large"},
		"empty":                 {[]string{"-memory-budget", ""}, "flag -memory-budget: empty"},
		"pixels zero":           {[]string{"-pixel-budget", "0"}, "-pixel-budget must be positive, got 0"},
		"pixels negative":       {[]string{"-pixel-budget", "-5"}, "-pixel-budget must be positive, got -5"},
		"pixels overflow":       {[]string{"-pixel-budget", "2000000000000000000"}, "-pixel-budget 2000000000000000000 is too large"},
		"pixels not a number":   {[]string{"-pixel-budget", "2GB"}, `invalid value "2GB" for flag -pixel-budget`},
		"both flags, any order": {[]string{"-memory-budget", "1GB", "-pixel-budget", "100"}, "-pixel-budget and -memory-budget both given"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Cancelled: a value taken by mistake serves, then stops (0).
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var stdout, stderr bytes.Buffer
			code := run(ctx, append(tc.args, "-container-addr", "", "-bg-addr", "", "-hosted-addr", "127.0.0.1:0"), &stdout, &stderr)
			assert.Equal(t, 2, code, stderr.String())
			assert.Empty(t, stdout.String(), "nothing served")
			assert.Contains(t, stderr.String(), tc.want)
		})
	}
}
