package hosted

import (
	"github.com/pfcsdk/pfc-go/internal/hostedjob"
)

// The job record is defined once, in an internal package shared with the
// webhook package, so that a webhook receiver decodes deliveries into the
// same types without importing this client. The aliases below are those
// types; their fields are listed in each comment.

// JobStatus is the state of a correction job as reported by GET
// /status/{jobID}. Its method Terminal reports whether no further
// transition follows: true for COMPLETED, FAILED and REJECTED; false for
// PENDING, PROCESSING and any state this SDK does not know, so polling goes
// on until the deadline.
type JobStatus = hostedjob.JobStatus

// The job states the service reports.
const (
	StatusPending    JobStatus = hostedjob.StatusPending
	StatusProcessing JobStatus = hostedjob.StatusProcessing
	StatusCompleted  JobStatus = hostedjob.StatusCompleted
	StatusFailed     JobStatus = hostedjob.StatusFailed
	StatusRejected   JobStatus = hostedjob.StatusRejected
)

// Job is the correction job record: the body of GET /status/{jobID} and of
// every webhook delivery, with the API's field names. Fields: ID (the
// wire's _id), Status, StatusText (why, for FAILED and REJECTED), Code (0
// when completed), CreatedAt and UpdatedAt (Timestamp), CorrectedFile (the
// public URL of the result once COMPLETED; see Download), Usage (*Usage),
// AIServer (*bool), TimeTaken (*float64, seconds), OriginalDimensions
// (*Dimensions), DetectionData (*DetectionData, with includeDetectionData)
// and CropRect (*CropRect, with autocropDetectOnly).
type Job = hostedjob.Job

// Usage holds the per-job billing counters, all int but Size (the job's
// size class, a string): ImageCorrectionCount, ImageResizeCount,
// ClassicResizeCount, GlaresDetectorCount, VideoCorrectionCount,
// RemoveBackgroundCount, AutoCropCount, RemoveGlaresTotalCount (images
// submitted with removeGlares=true) and RemoveGlaresCount (those in which
// glare was found and corrected, never more than the total).
type Usage = hostedjob.Usage

// Dimensions is a pixel size: Width and Height (int).
type Dimensions = hostedjob.Dimensions

// CropRect is a crop rectangle in source pixels: Left, Top, Width and
// Height (int).
type CropRect = hostedjob.CropRect

// DetectionData is what the service detected in the image, present only
// for jobs started with includeDetectionData=true: FacesCount (int), Faces
// ([]Face), Scene (int; the API does not list the values), Noise and
// RedEye (strings as the service words them), Warnings ([]any, kept as
// decoded JSON because their shape is not documented), Message and Status
// (the detector's, strings).
type DetectionData = hostedjob.DetectionData

// Face is one detected face, in source pixels: Confidence, Angle, Blink,
// Smile, YawAngle (int scores and angles), the box Left, Top, Width and
// Height (int), and LeftEye and RightEye (Point, the eyes' centres).
type Face = hostedjob.Face

// Point is a position in source pixels: X from the left edge and Y from
// the top edge (float64).
type Point = hostedjob.Point

// TimestampLayout is the wire form of job timestamps: ISO 8601 in UTC with
// milliseconds, as in 2026-11-22T10:04:05.123Z.
const TimestampLayout = hostedjob.TimestampLayout

// Timestamp is a time (it embeds time.Time) that marshals as
// TimestampLayout, and an empty string when zero. It accepts any RFC 3339
// time, or an empty string, when unmarshalling, so a service that drops the
// milliseconds still decodes.
type Timestamp = hostedjob.Timestamp
