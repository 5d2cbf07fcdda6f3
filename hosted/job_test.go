package hosted_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
)

// seedRecord is a completed job record written out by hand from the API
// documentation (seed 000, "Correction job"), not produced by this SDK:
// it pins every wire name against the documentation instead of a round
// trip through the SDK's own types.
const seedRecord = `{
  "_id": "6650f0c2a1b2c3d4e5f60718",
  "status": "COMPLETED",
  "statusText": "",
  "code": 0,
  "createdAt": "2026-11-22T10:04:05.123Z",
  "updatedAt": "2026-11-22T10:04:09.987Z",
  "correctedFile": "https://files.example.com/out/6650f0c2.jpg",
  "usage": {
    "size": "M",
    "imageCorrectionCount": 1,
    "imageResizeCount": 2,
    "classicResizeCount": 3,
    "glaresDetectorCount": 4,
    "videoCorrectionCount": 5,
    "removeBackgroundCount": 6,
    "removeGlaresCount": 7,
    "autoCropCount": 8,
    "removeGlaresTotalCount": 9
  },
  "aiserver": true,
  "timeTaken": 3.75,
  "originalDimensions": {"width": 4000, "height": 3000},
  "detectionData": {
    "facesCount": 1,
    "faces": [{
      "confidence": 98, "angle": -3, "blink": 1, "smile": 64, "yawAngle": 12,
      "left": 1500, "top": 800, "width": 600, "height": 700,
      "leftEye": {"x": 1650.5, "y": 1010.25},
      "rightEye": {"x": 1890, "y": 1005.75}
    }],
    "scene": 2,
    "noise": "low",
    "redEye": "none",
    "warnings": ["underexposed"],
    "message": "ok",
    "status": "done"
  }
}`

func TestJobDecodesTheSeedRecord(t *testing.T) {
	t.Parallel()
	dec := json.NewDecoder(strings.NewReader(seedRecord))
	dec.DisallowUnknownFields() // every documented field has a home
	var j hosted.Job
	require.NoError(t, dec.Decode(&j))

	assert.Equal(t, "6650f0c2a1b2c3d4e5f60718", j.ID)
	assert.Equal(t, hosted.StatusCompleted, j.Status)
	assert.Equal(t, time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC), j.CreatedAt.Time.UTC())
	assert.Equal(t, time.Date(2026, 11, 22, 10, 4, 9, 987e6, time.UTC), j.UpdatedAt.Time.UTC())
	assert.Equal(t, "https://files.example.com/out/6650f0c2.jpg", j.CorrectedFile)
	require.NotNil(t, j.AIServer)
	assert.True(t, *j.AIServer)
	require.NotNil(t, j.TimeTaken)
	assert.InDelta(t, 3.75, *j.TimeTaken, 1e-9)
	assert.Equal(t, &hosted.Dimensions{Width: 4000, Height: 3000}, j.OriginalDimensions)
	assert.Equal(t, &hosted.Usage{
		Size: "M", ImageCorrectionCount: 1, ImageResizeCount: 2, ClassicResizeCount: 3,
		GlaresDetectorCount: 4, VideoCorrectionCount: 5, RemoveBackgroundCount: 6,
		RemoveGlaresCount: 7, AutoCropCount: 8, RemoveGlaresTotalCount: 9,
	}, j.Usage)

	d := j.DetectionData
	require.NotNil(t, d)
	assert.Equal(t, 1, d.FacesCount)
	assert.Equal(t, 2, d.Scene)
	assert.Equal(t, "low", d.Noise)
	assert.Equal(t, "none", d.RedEye)
	assert.Equal(t, []any{"underexposed"}, d.Warnings)
	assert.Equal(t, "ok", d.Message)
	assert.Equal(t, "done", d.Status)
	require.Len(t, d.Faces, 1)
	assert.Equal(t, hosted.Face{
		Confidence: 98, Angle: -3, Blink: 1, Smile: 64, YawAngle: 12,
		Left: 1500, Top: 800, Width: 600, Height: 700,
		LeftEye:  hosted.Point{X: 1650.5, Y: 1010.25},
		RightEye: hosted.Point{X: 1890, Y: 1005.75},
	}, d.Faces[0])

	// Encoding writes the timestamps back with milliseconds in UTC, as the
	// documentation shows them.
	out, err := json.Marshal(j)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"createdAt":"2026-11-22T10:04:05.123Z"`)
}

// A record as the service sends it while the job runs: no correctedFile,
// usage, aiserver, timeTaken or detectionData.
func TestJobDecodesAPendingRecord(t *testing.T) {
	t.Parallel()
	var j hosted.Job
	require.NoError(t, json.Unmarshal([]byte(`{"_id":"a","status":"PENDING","statusText":"","code":0,
		"createdAt":"2026-11-22T10:04:05.000Z","updatedAt":"2026-11-22T10:04:05.000Z"}`), &j))
	assert.False(t, j.Status.Terminal())
	assert.Nil(t, j.AIServer)
	assert.Nil(t, j.TimeTaken)
	assert.Nil(t, j.Usage)
	assert.Nil(t, j.DetectionData)
}
