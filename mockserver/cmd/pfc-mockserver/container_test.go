package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestBinaryContainer starts the command as a child process with only
// the correction container mock, on a free port with PFC_* settings from the environment
// and an explicit -container-root, corrects an image over the wire with
// the pfccontainer client (rebasing corrected_url: PFC_SITE_URL names a
// host the test cannot reach), uses direct file mode on the root's
// input/output, and checks the JSON log lines on stderr.
func TestBinaryContainer(t *testing.T) {
	root := filepath.Join(t.TempDir(), "mounts")
	cmd := childCommand("-hosted-addr", "", "-bg-addr", "", "-container-addr", "127.0.0.1:0", "-container-root", root)
	cmd.Env = append(cmd.Env, "PFC_SITE_URL=http://pfc.invalid:8081", "PFC_LOG_LEVEL=DEBUG", "PFC_IMG_CACHE_TTL=5")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "container: ")
	require.True(t, ok, line)
	require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), line)

	c, err := pfccontainer.NewClient(pfc.WithBaseURL(base))
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	c = c.RebaseCorrectedURLs()
	ctx := context.Background()

	v, err := c.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, "10.7.2.1269", v.SDKVersion)
	assert.Contains(t, string(v.Raw), `"PFC_IMG_CACHE_TTL":"5"`)

	img := testJPEG(t)
	key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err)
	corr, err := c.GetCorrection(ctx, key, pfccontainer.NewCorrection().WithOutput(pfc.OutputPNG, 0).WithWidth(40))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(corr.ReportedURL, "http://pfc.invalid:8081/output/"), corr.ReportedURL)
	var got bytes.Buffer
	_, err = c.Download(ctx, corr, &got)
	require.NoError(t, err)
	cfg, format, err := image.DecodeConfig(&got)
	require.NoError(t, err)
	assert.Equal(t, "png", format)
	assert.Equal(t, 40, cfg.Width)

	// Direct file mode on the root the command created (licensed).
	src := filepath.Join(t.TempDir(), "direct.jpg")
	require.NoError(t, os.WriteFile(src, img, 0o644))
	corr, err = c.Direct(filepath.Join(root, "input"), filepath.Join(root, "output")).CorrectFile(ctx, src, "", nil, nil)
	require.NoError(t, err)
	outPath := corr.Path
	assert.Equal(t, filepath.Join(root, "output"), filepath.Dir(outPath))
	assert.True(t, strings.HasSuffix(outPath, "-direct.jpg"), "named after the call's copy in input/: %s", outPath)
	assert.FileExists(t, outPath)

	// A malformed value is refused with its log line.
	_, err = c.GetCorrection(ctx, key, &pfccontainer.CorrectionOptions{Preset: "nope"})
	assert.ErrorIs(t, err, pfccontainer.ErrUnknownPreset)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	exited = true
	require.NoError(t, err, stderr.String())
	logs := stderr.String()
	for _, id := range []string{"startedMessage", "uploadedMessage", "correctedMessage", "unknownPresetMessage"} {
		assert.Contains(t, logs, `"msg":"`+id+`"`, id)
	}
	assert.Contains(t, logs, `"level":"debug"`)
	assert.DirExists(t, filepath.Join(root, "sdk_license"), "an explicit root is kept")
}

// testJPEG is a 64x48 photo-like JPEG.
func testJPEG(t *testing.T) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, color.NRGBA{R: uint8(60 + x*2), G: uint8(90 + y*2), B: uint8(70 + (x+y)%5), A: 255})
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}))
	return b.Bytes()
}

// TestContainerRunsShareADataDir: two runs on one -data-dir each have a
// private container tree; the first to exit removes its own only (a
// fixed <data-dir>/container was removed under the other).
func TestContainerRunsShareADataDir(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	_, cancelA, doneA := startBackend(t, "container", "-data-dir", dataDir, "-hosted-addr", "", "-bg-addr", "", "-container-addr", "127.0.0.1:0")
	baseB, cancelB, doneB := startBackend(t, "container", "-data-dir", dataDir, "-hosted-addr", "", "-bg-addr", "", "-container-addr", "127.0.0.1:0")
	cancelA()
	require.Equal(t, 0, <-doneA)

	c, err := pfccontainer.NewClient(pfc.WithBaseURL(baseB))
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	img := testJPEG(t)
	_, err = c.Upload(context.Background(), bytes.NewReader(img), int64(len(img)), "")
	require.NoError(t, err, "the second run's tree survived the first's exit")

	cancelB()
	require.Equal(t, 0, <-doneB)
	left, err := os.ReadDir(dataDir)
	require.NoError(t, err)
	assert.Empty(t, left, "each run removed its own tree")
}

// TestRunContainerCorrectedURLOpens: with PFC_SITE_URL unset the
// correction container's corrected_url is on the listener's own URL, so
// that the printed URL opens as it is, with no rebasing.
func TestRunContainerCorrectedURLOpens(t *testing.T) {
	t.Parallel()
	if os.Getenv("PFC_SITE_URL") != "" {
		t.Skip("PFC_SITE_URL is set in the environment")
	}
	base, cancel, done := startBackend(t, "container", "-hosted-addr", "", "-bg-addr", "",
		"-container-addr", "127.0.0.1:0", "-data-dir", t.TempDir())
	client := &http.Client{}
	defer client.CloseIdleConnections()
	do := func(method, url string, body []byte) []byte {
		req, err := http.NewRequest(method, url, bytes.NewReader(body))
		require.NoError(t, err)
		if body != nil {
			req.Header.Set("Content-Type", "image/jpeg")
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s %s: %s", method, url, b)
		return b
	}
	var up struct{ ImageKey string }
	require.NoError(t, json.Unmarshal(do(http.MethodPut, base+"/pfc", testJPEG(t)), &up))
	var corr struct {
		CorrectedURL string `json:"corrected_url"`
	}
	require.NoError(t, json.Unmarshal(do(http.MethodGet, base+"/pfc/"+up.ImageKey, nil), &corr))
	require.True(t, strings.HasPrefix(corr.CorrectedURL, base+"/output/"), "corrected_url %s, listener %s", corr.CorrectedURL, base)
	_, err := jpeg.DecodeConfig(bytes.NewReader(do(http.MethodGet, corr.CorrectedURL, nil)))
	require.NoError(t, err, "the corrected file opens as printed")
	cancel()
	assert.Equal(t, 0, <-done)
}
