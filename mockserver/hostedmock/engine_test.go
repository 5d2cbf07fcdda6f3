package hostedmock_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
)

// engineFixture runs the mock with its default processor: the reference
// engine.
func engineFixture(t *testing.T) *fixture {
	return newFixture(t, func(o *hostedmock.Options) { o.Processor = nil })
}

func astronautJPEG(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../internal/engine/faces/testdata/astronaut.jpg")
	require.NoError(t, err)
	return b
}

func TestEngineCorrectsWithDetectionData(t *testing.T) {
	t.Parallel()
	f := engineFixture(t)
	j := f.run(t, astronautJPEG(t), "includeDetectionData=true&removeGlares=true")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, 0, j.Code)
	assert.Equal(t, &hosted.Dimensions{Width: 512, Height: 512}, j.OriginalDimensions)
	require.NotNil(t, j.DetectionData)
	assert.Equal(t, 1, j.DetectionData.FacesCount)
	require.Len(t, j.DetectionData.Faces, 1)
	face := j.DetectionData.Faces[0]
	for _, eye := range []hosted.Point{face.LeftEye, face.RightEye} {
		assert.True(t, eye.X >= float64(face.Left) && eye.X <= float64(face.Left+face.Width), "eye inside the face box")
		assert.True(t, eye.Y >= float64(face.Top) && eye.Y <= float64(face.Top+face.Height), "eye inside the face box")
	}
	assert.Equal(t, 1, j.Usage.ImageCorrectionCount)
	assert.Equal(t, 1, j.Usage.RemoveGlaresTotalCount)
	assert.GreaterOrEqual(t, j.Usage.RemoveGlaresTotalCount, j.Usage.RemoveGlaresCount)

	// The corrected file is a real, different JPEG of the same size.
	resp, body := f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(body))
	require.NoError(t, err)
	assert.Equal(t, 512, cfg.Width)
	assert.NotEqual(t, astronautJPEG(t), body)
}

func TestEngineBackgroundAndResize(t *testing.T) {
	t.Parallel()
	f := engineFixture(t)
	j := f.run(t, astronautJPEG(t), "removeBackground=true&bgColor=%23336699&long=256")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, 1, j.Usage.RemoveBackgroundCount)
	assert.Equal(t, 1, j.Usage.ClassicResizeCount)
	resp, body := f.do(t, http.MethodGet, j.CorrectedFile, "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	img, err := png.Decode(bytes.NewReader(body))
	require.NoError(t, err, "background removal without outputType gives PNG")
	assert.Equal(t, image.Rect(0, 0, 256, 256), img.Bounds())
	r, g, b, _ := img.At(1, 1).RGBA()
	assert.Equal(t, [3]uint32{0x33, 0x66, 0x99}, [3]uint32{r >> 8, g >> 8, b >> 8}, "the corner shows the new background")
}

func TestEngineRejectsAndFails(t *testing.T) {
	t.Parallel()
	f := engineFixture(t)
	j := f.run(t, astronautJPEG(t), "preset=NoSuchPreset")
	assert.Equal(t, hosted.StatusRejected, j.Status)
	assert.Contains(t, j.StatusText, "NoSuchPreset")

	data := astronautJPEG(t)
	j = f.run(t, data[:len(data)/2], "cache=false")
	assert.Equal(t, hosted.StatusFailed, j.Status, "a truncated JPEG fails")
}

func TestAutocropDetectOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	j := f.run(t, jpegBytes(t, 80, 64), "autocrop=true&autocropDetectOnly=true")
	require.Equal(t, hosted.StatusCompleted, j.Status)
	assert.Equal(t, &hosted.CropRect{Left: 20, Top: 8, Width: 40, Height: 48}, j.CropRect)
	assert.Equal(t, 1, j.Usage.AutoCropCount)
	assert.True(t, f.proc.last().AutoCrop.DetectOnly)
	j = f.run(t, jpegBytes(t, 80, 64), "autocrop=true")
	assert.Nil(t, j.CropRect, "only in detect-only mode")
}

func TestEngineSmallBackgroundImage(t *testing.T) {
	t.Parallel()
	f := engineFixture(t)
	// A 16x16 background is below the correction limits, but a background
	// is only scaled to cover the subject, so it is accepted.
	bgKey := f.upload(t, "", jpegBytes(t, 16, 16))
	j := f.run(t, astronautJPEG(t), "removeBackground=true&bgFileKey="+bgKey+"&bgShadow=soft&long=128")
	require.Equal(t, hosted.StatusCompleted, j.Status, j.StatusText)
	assert.Equal(t, 1, j.Usage.RemoveBackgroundCount)
}
