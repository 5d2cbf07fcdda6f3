package hostedjob

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// JobStatus is the state of a correction job as reported by GET /status/{jobID}.
type JobStatus string

// The job states the service reports.
const (
	StatusPending    JobStatus = "PENDING"
	StatusProcessing JobStatus = "PROCESSING"
	StatusCompleted  JobStatus = "COMPLETED"
	StatusFailed     JobStatus = "FAILED"
	StatusRejected   JobStatus = "REJECTED"
)

// Terminal reports whether no further transition follows s: COMPLETED,
// FAILED and REJECTED are terminal; PENDING, PROCESSING and any state this
// SDK does not know are not, so polling goes on until the deadline.
func (s JobStatus) Terminal() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusRejected:
		return true
	}
	return false
}

// Job is the correction job record: the body of GET /status/{jobID} and of
// every webhook delivery. Field names and JSON types follow the API exactly.
type Job struct {
	// ID is the job identifier (the wire's _id), the jobID of /status.
	ID string `json:"_id"`
	// Status is PENDING, PROCESSING, COMPLETED, FAILED or REJECTED.
	Status JobStatus `json:"status"`
	// StatusText is detail about processing or about an error; it may be
	// empty. For FAILED and REJECTED jobs it says why.
	StatusText string `json:"statusText"`
	// Code is the numeric result code: 0 when completed. The API does not
	// list the other codes.
	Code int `json:"code"`
	// CreatedAt is when the job was created.
	CreatedAt Timestamp `json:"createdAt"`
	// UpdatedAt is when the job last changed.
	UpdatedAt Timestamp `json:"updatedAt"`
	// CorrectedFile is the URL of the corrected file, present once Status
	// is COMPLETED. It is public (no API key is sent to it; see Download).
	CorrectedFile string `json:"correctedFile,omitempty"`
	// Usage holds the job's billing counters.
	Usage *Usage `json:"usage,omitempty"`
	// AIServer is present in completed responses; the API does not say
	// what it means.
	AIServer *bool `json:"aiserver,omitempty"`
	// TimeTaken is the processing time in seconds (fractional).
	TimeTaken *float64 `json:"timeTaken,omitempty"`
	// OriginalDimensions is the pixel size of the source image.
	OriginalDimensions *Dimensions `json:"originalDimensions,omitempty"`
	// DetectionData is present only for jobs started with
	// includeDetectionData=true (CorrectionOptions.WithDetectionData).
	DetectionData *DetectionData `json:"detectionData,omitempty"`
	// CropRect is the auto-crop rectangle of a job started with
	// autocropDetectOnly=true. The API documents the mode but not the
	// field; this SDK and its mock name it cropRect.
	CropRect *CropRect `json:"cropRect,omitempty"`
}

// Usage holds the per-job billing counters.
// The service guarantees RemoveGlaresTotalCount >= RemoveGlaresCount.
type Usage struct {
	// Size is the job's size class.
	Size string `json:"size"`
	// ImageCorrectionCount counts image corrections.
	ImageCorrectionCount int `json:"imageCorrectionCount"`
	// ImageResizeCount counts AI resizes.
	ImageResizeCount int `json:"imageResizeCount"`
	// ClassicResizeCount counts classic resizes.
	ClassicResizeCount int `json:"classicResizeCount"`
	// GlaresDetectorCount counts the runs of the glare detection model; it
	// may differ from the correction count where detection and correction
	// are billed separately.
	GlaresDetectorCount int `json:"glaresDetectorCount"`
	// VideoCorrectionCount counts video corrections.
	VideoCorrectionCount int `json:"videoCorrectionCount"`
	// RemoveBackgroundCount counts background removals.
	RemoveBackgroundCount int `json:"removeBackgroundCount"`
	// RemoveGlaresCount counts the images in which glare was detected and
	// corrected: a subset of RemoveGlaresTotalCount.
	RemoveGlaresCount int `json:"removeGlaresCount"`
	// AutoCropCount counts auto crops.
	AutoCropCount int `json:"autoCropCount"`
	// RemoveGlaresTotalCount counts the images submitted with
	// removeGlares=true, whether or not glare was found.
	RemoveGlaresTotalCount int `json:"removeGlaresTotalCount"`
}

// Dimensions is a pixel size.
type Dimensions struct {
	// Width is the width in pixels.
	Width int `json:"width"`
	// Height is the height in pixels.
	Height int `json:"height"`
}

// CropRect is a crop rectangle in source pixels.
type CropRect struct {
	// Left is the rectangle's left edge, in pixels from the image's left.
	Left int `json:"left"`
	// Top is the rectangle's top edge, in pixels from the image's top.
	Top int `json:"top"`
	// Width is the rectangle's width.
	Width int `json:"width"`
	// Height is the rectangle's height.
	Height int `json:"height"`
}

// DetectionData is what the service detected in the image; it is present
// only for jobs started with includeDetectionData=true.
type DetectionData struct {
	// FacesCount is the number of faces found.
	FacesCount int `json:"facesCount"`
	// Faces are the faces found.
	Faces []Face `json:"faces"`
	// Scene is the scene category (the API does not list the values).
	Scene int `json:"scene"`
	// Noise is the detected noise level, as the service words it.
	Noise string `json:"noise"`
	// RedEye is the red-eye detection result, as the service words it.
	RedEye string `json:"redEye"`
	// Warnings are the service's warnings; their shape is not documented,
	// so each element is kept as decoded JSON.
	Warnings []any `json:"warnings"`
	// Message is the detector's message.
	Message string `json:"message"`
	// Status is the detector's status.
	Status string `json:"status"`
}

// Face is one detected face. Box fields are pixels in the source image.
type Face struct {
	// Confidence is the detector's confidence.
	Confidence int `json:"confidence"`
	// Angle is the face's in-plane rotation.
	Angle int `json:"angle"`
	// Blink is the detector's blink score.
	Blink int `json:"blink"`
	// Smile is the detector's smile score.
	Smile int `json:"smile"`
	// YawAngle is the face's turn to the side.
	YawAngle int `json:"yawAngle"`
	// Left is the face box's left edge.
	Left int `json:"left"`
	// Top is the face box's top edge.
	Top int `json:"top"`
	// Width is the face box's width.
	Width int `json:"width"`
	// Height is the face box's height.
	Height int `json:"height"`
	// LeftEye is the centre of the left eye.
	LeftEye Point `json:"leftEye"`
	// RightEye is the centre of the right eye.
	RightEye Point `json:"rightEye"`
}

// Point is a position in source pixels.
type Point struct {
	// X is the distance from the left edge.
	X float64 `json:"x"`
	// Y is the distance from the top edge.
	Y float64 `json:"y"`
}

// TimestampLayout is the wire form of job timestamps: ISO 8601 in UTC with
// milliseconds, as in 2026-11-22T10:04:05.123Z.
const TimestampLayout = "2006-01-02T15:04:05.000Z07:00"

// Timestamp is a time that marshals as TimestampLayout. It accepts any
// RFC 3339 time when unmarshalling, so a service that drops the
// milliseconds still decodes.
type Timestamp struct{ time.Time }

// MarshalJSON encodes t in UTC with exactly three fractional digits.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte(`""`), nil
	}
	return json.Marshal(t.UTC().Format(TimestampLayout))
}

// UnmarshalJSON accepts an RFC 3339 string (any fraction) or an empty string.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s, ok := plainJSONString(b)
	if !ok {
		if err := json.Unmarshal(b, &s); err != nil {
			// Not the decoder's error as is: it quotes a whole number.
			return fmt.Errorf("pfc: timestamp: %w", apierr.DecodeError(err, nil))
		}
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// The value is not quoted (it comes from the server and may echo a
		// secret), and neither is time.Parse's error, which quotes it.
		return fmt.Errorf("pfc: timestamp: a %d-byte value that is not an RFC 3339 time", len(s))
	}
	t.Time = parsed
	return nil
}

// plainJSONString returns the contents of b when b is a JSON string of
// printable ASCII without escapes (every timestamp the service writes),
// which json.Unmarshal would return unchanged; ok is false for anything
// else, left to json.Unmarshal.
func plainJSONString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	for _, c := range b[1 : len(b)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(b[1 : len(b)-1]), true
}
