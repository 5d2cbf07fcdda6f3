package hosted

import (
	"encoding/json"
	"fmt"
	"time"
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
	ID                 string         `json:"_id"`
	Status             JobStatus      `json:"status"`
	StatusText         string         `json:"statusText"`
	Code               int            `json:"code"`
	CreatedAt          Timestamp      `json:"createdAt"`
	UpdatedAt          Timestamp      `json:"updatedAt"`
	CorrectedFile      string         `json:"correctedFile,omitempty"`
	Usage              *Usage         `json:"usage,omitempty"`
	AIServer           *bool          `json:"aiserver,omitempty"`
	TimeTaken          *float64       `json:"timeTaken,omitempty"`
	OriginalDimensions *Dimensions    `json:"originalDimensions,omitempty"`
	DetectionData      *DetectionData `json:"detectionData,omitempty"`
	// CropRect is the auto-crop rectangle of a job started with
	// autocropDetectOnly=true. The API documents the mode but not the
	// field; this SDK and its mock name it cropRect.
	CropRect *CropRect `json:"cropRect,omitempty"`
}

// Usage holds the per-job billing counters.
// The service guarantees RemoveGlaresTotalCount >= RemoveGlaresCount.
type Usage struct {
	Size                   string `json:"size"`
	ImageCorrectionCount   int    `json:"imageCorrectionCount"`
	ImageResizeCount       int    `json:"imageResizeCount"`
	ClassicResizeCount     int    `json:"classicResizeCount"`
	GlaresDetectorCount    int    `json:"glaresDetectorCount"`
	VideoCorrectionCount   int    `json:"videoCorrectionCount"`
	RemoveBackgroundCount  int    `json:"removeBackgroundCount"`
	RemoveGlaresCount      int    `json:"removeGlaresCount"`
	AutoCropCount          int    `json:"autoCropCount"`
	RemoveGlaresTotalCount int    `json:"removeGlaresTotalCount"`
}

// Dimensions is a pixel size.
type Dimensions struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// CropRect is a crop rectangle in source pixels.
type CropRect struct {
	Left   int `json:"left"`
	Top    int `json:"top"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// DetectionData is what the service detected in the image; it is present
// only for jobs started with includeDetectionData=true.
type DetectionData struct {
	FacesCount int    `json:"facesCount"`
	Faces      []Face `json:"faces"`
	Scene      int    `json:"scene"`
	Noise      string `json:"noise"`
	RedEye     string `json:"redEye"`
	Warnings   []any  `json:"warnings"`
	Message    string `json:"message"`
	Status     string `json:"status"`
}

// Face is one detected face. Box fields are pixels in the source image.
type Face struct {
	Confidence int   `json:"confidence"`
	Angle      int   `json:"angle"`
	Blink      int   `json:"blink"`
	Smile      int   `json:"smile"`
	YawAngle   int   `json:"yawAngle"`
	Left       int   `json:"left"`
	Top        int   `json:"top"`
	Width      int   `json:"width"`
	Height     int   `json:"height"`
	LeftEye    Point `json:"leftEye"`
	RightEye   Point `json:"rightEye"`
}

// Point is a position in source pixels.
type Point struct {
	X float64 `json:"x"`
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
			return fmt.Errorf("pfc: timestamp: %w", err)
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
