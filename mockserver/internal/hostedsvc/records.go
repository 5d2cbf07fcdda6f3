package hostedsvc

import (
	"github.com/pfcsdk/pfc-go/internal/hostedjob"
)

// The mock's own wire types. They are written out from the API
// documentation (its "Correction job" tables), not taken from the
// client's hosted.Job, so that a misspelt wire name on either side fails
// a test instead of passing both suites (TestJobRecordMatchesTheSeed
// checks them against a record written out by hand from the API documentation).

// Job states (the record's status).
const (
	StatusPending    = "PENDING"
	StatusProcessing = "PROCESSING"
	StatusCompleted  = "COMPLETED"
	StatusFailed     = "FAILED"
	StatusRejected   = "REJECTED"
)

// terminal reports whether status is a final state.
func terminal(status string) bool {
	return status == StatusCompleted || status == StatusFailed || status == StatusRejected
}

// record is the correction job record: the body of GET /status/{jobID}
// and of the webhook.
type record struct {
	ID                 string         `json:"_id"`
	Status             string         `json:"status"`
	StatusText         string         `json:"statusText"`
	Code               int            `json:"code"`
	CreatedAt          Timestamp      `json:"createdAt"`
	UpdatedAt          Timestamp      `json:"updatedAt"`
	CorrectedFile      string         `json:"correctedFile,omitempty"`
	Usage              *usage         `json:"usage,omitempty"`
	AIServer           *bool          `json:"aiserver,omitempty"`
	TimeTaken          *float64       `json:"timeTaken,omitempty"`
	OriginalDimensions *dimensions    `json:"originalDimensions,omitempty"`
	DetectionData      *detectionData `json:"detectionData,omitempty"`
	// CropRect is the mock's field for autocropDetectOnly=true (the API
	// documents the mode, not where the rectangle is reported).
	CropRect *cropRect `json:"cropRect,omitempty"`
}

// usage holds the per-job counters.
type usage struct {
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

// dimensions is originalDimensions.
type dimensions struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// cropRect is an auto-crop rectangle in source pixels.
type cropRect struct {
	Left   int `json:"left"`
	Top    int `json:"top"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// detectionData is shown only for jobs started with
// includeDetectionData=true.
type detectionData struct {
	FacesCount int      `json:"facesCount"`
	Faces      []Face   `json:"faces"`
	Scene      int      `json:"scene"`
	Noise      string   `json:"noise"`
	RedEye     string   `json:"redEye"`
	Warnings   []string `json:"warnings"`
	Message    string   `json:"message"`
	Status     string   `json:"status"`
}

// Face is one detected face of detectionData; the box is in source
// pixels.
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

// Point is an eye position in source pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Timestamp is a record time: the clients' own type (hosted.Timestamp),
// so that a test decodes the mock's answers into it. It marshals in UTC
// with exactly three fractional digits, e.g. 2026-11-22T10:04:05.123Z.
type Timestamp = hostedjob.Timestamp
