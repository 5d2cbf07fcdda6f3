package hostedmock_test

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/jpeg"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

func TestPFCValidation(t *testing.T) {
	t.Parallel()
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
		{k + "removeBackground=true&bgColor=red&bgShadow=long", "invalid_parameter", "bgShadow", 400},
		// Ignored parameters still need valid values.
		{k + "bgColor=notacolor", "invalid_parameter", "bgColor", 400},
		{k + "bgShadow=long", "invalid_parameter", "bgShadow", 400},
		{k + "bgColor=", "invalid_parameter", "bgColor", 400},
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

// TestPFCIgnoresWhatTheServiceIgnores: the background parameters without
// removeBackground=true, bgShadow outside the image and colour modes
// (pfcdoc.Background.Resolve), and autocropDetectOnly and the auto-crop
// values without autocrop=true are accepted and ignored, as hosted.Plan
// reports them, not a 400; an ignored bgFileKey is not even looked up.
func TestPFCIgnoresWhatTheServiceIgnores(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	img := jpegBytes(t, 64, 48)
	cases := []struct {
		query  string
		mode   string // "" = background kept
		shadow string
	}{
		{"bgColor=red", "", ""},
		{"bgColor=transparent", "", ""},
		{"bgColor=%23112233&bgShadow=hard", "", ""},
		{"bgGenerativePrompt=beach", "", ""},
		{"bgFileKey=unknown-key", "", ""},
		{"bgShadow=soft", "", ""},
		{"removeBackground=false&bgColor=red&bgShadow=soft", "", ""},
		{"removeBackground=true&bgShadow=soft", "transparent", ""},
		{"removeBackground=true&bgColor=transparent&bgShadow=floating", "transparent", ""},
		{"removeBackground=true&bgGenerativePrompt=sky&bgShadow=soft", "generative", ""},
		{"removeBackground=true&bgColor=navy&bgShadow=soft", "color", "soft"},
		{"autocropDetectOnly=true", "", ""},
		{"autocropSize=1.5&cropARW=4&autocropTopHeadGap=0.1", "", ""},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			j := f.run(t, img, "cache=false&"+c.query)
			require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
			r := f.proc.last()
			assert.Nil(t, r.AutoCrop)
			assert.Zero(t, j.Usage.AutoCropCount)
			if c.mode == "" {
				assert.Nil(t, r.Background)
				assert.Equal(t, "jpg", r.OutputType)
				assert.Zero(t, j.Usage.RemoveBackgroundCount)
				return
			}
			require.NotNil(t, r.Background)
			assert.Equal(t, c.mode, r.Background.Mode)
			assert.Equal(t, c.shadow, r.Background.Shadow)
			assert.Equal(t, 1, j.Usage.RemoveBackgroundCount)
		})
	}
}

func TestPFCPrioritiesAndDefaults(t *testing.T) {
	t.Parallel()
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
	assert.Equal(t, hostedmock.ResizeRequest{Width: 80, Mode: "smallDetails"}, r.Resize)
	assert.Equal(t, "clipart", r.Skip)
	assert.False(t, r.PreserveMetadata)
	assert.Equal(t, 70, r.Quality)

	f.run(t, img, "preset=School%20and%20Sports&height=40&long=60&scale=50")
	r = f.proc.last()
	assert.Equal(t, "School and Sports", r.Preset)
	assert.Equal(t, hostedmock.ResizeRequest{Height: 40, Mode: "auto"}, r.Resize)
	f.run(t, img, "preset=none&short=40&scale=50&skip=legacy")
	assert.Equal(t, hostedmock.ResizeRequest{Short: 40, Mode: "auto"}, f.proc.last().Resize)
	assert.Equal(t, "legacy", f.proc.last().Skip)
	f.run(t, img, "scale=200&cache=false")
	assert.Equal(t, hostedmock.ResizeRequest{Scale: 200, Mode: "auto"}, f.proc.last().Resize)

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
	t.Parallel()
	gate := make(chan struct{})
	entry := make(chan struct{}, 4)
	f := newFixture(t, func(o *hostedmock.Options) {
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
	t.Parallel()
	f := newFixture(t)
	resp, b := f.api(t, http.MethodGet, "/status/0123456789abcdef01234567")
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
	resp, b = f.api(t, http.MethodGet, "/status/a/b")
	requireError(t, resp, b, http.StatusNotFound, "not_found", "")
}

func TestRetention(t *testing.T) {
	t.Parallel()
	for _, retention := range []time.Duration{0, 72 * time.Hour} {
		t.Run(fmt.Sprint(retention), func(t *testing.T) {
			f := newFixture(t, func(o *hostedmock.Options) { o.Retention = retention })
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
	t.Parallel()
	for _, d := range []time.Duration{time.Hour, 24*time.Hour - time.Second, 7*24*time.Hour + time.Second, -time.Hour} {
		_, err := hostedmock.New(hostedmock.Options{Retention: d})
		require.ErrorIs(t, err, mockserver.ErrInvalidOptions, d)
		assert.Contains(t, err.Error(), "Retention")
	}
	for _, d := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour} {
		h, err := hostedmock.New(hostedmock.Options{Retention: d})
		require.NoError(t, err)
		require.NoError(t, h.Close())
		_, err = os.Stat(h.DataDir())
		assert.ErrorIs(t, err, os.ErrNotExist, "Close removes the data directory")
	}
	_, err := hostedmock.New(hostedmock.Options{APIKeys: []string{}})
	require.ErrorIs(t, err, mockserver.ErrInvalidOptions)
}

func TestCache(t *testing.T) {
	t.Parallel()
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
	require.ErrorIs(t, err, pfc.ErrNotFound)
	again := f.run(t, img, "width=100")
	assert.Equal(t, 4, f.proc.calls(), "still cached: the last use was 23 h ago")
	assert.True(t, strings.HasPrefix(again.StatusText, "cache hit"))
	f.Advance(25 * time.Hour)
	f.run(t, img, "width=100")
	assert.Equal(t, 5, f.proc.calls(), "expired with the last job that used it")
}

func TestVideoPassthrough(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	f.proc.err = &hostedmock.RejectError{Code: 1234, Reason: "no faces to crop"}
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
