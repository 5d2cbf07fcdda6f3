package hostedsvc

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
)

// Processor corrects one image. The mock's job runner calls it for every
// image job that passed the input checks; videos never reach it. It mirrors
// the engine's Process so the engine is plugged in with a thin adapter.
//
// Process reads the source image (JPEG or PNG) from src and writes the
// corrected file to dst in req.OutputType. An error that is (errors.As) a
// *RejectError makes the job REJECTED; any other error makes it FAILED.
// ctx is cancelled when the server closes.
type Processor interface {
	Process(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error)
}

// ProcessorFunc adapts a function to Processor.
type ProcessorFunc func(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error)

// Process calls f.
func (f ProcessorFunc) Process(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error) {
	return f(ctx, src, req, dst)
}

// JobRequest is a /pfc request with every default filled in and every
// priority rule applied. It is the hosted mock's one request type: the
// query parser fills it, the cache key is its encoding, the Processor and
// the engine adapter read it. A field tagged `param:"name"` is a plain
// parameter that the parser sets from its table entry (pfcdoc.Hosted)
// and the engine adapter copies to the engine's field of the same name
// (",mock": one the engine does not take); a new plain parameter is such
// a field and its table entry.
type JobRequest struct {
	// Preset is "Universal" (AI preset selection, also when omitted),
	// "none", "Pro", "School and Sports", "Attractions and Cruise Lines", or
	// the name of an uploaded custom preset.
	Preset string
	// PresetData is the uploaded file of a custom preset; nil for the
	// built-in groups and "none".
	PresetData []byte
	// SourceFormat is the input's format: "jpg" or "png".
	SourceFormat string
	// OutputType is the format to write, resolved: "jpg" or "png".
	// (outputType=original and an omitted outputType become the source
	// format, or "png" when the background is removed and outputType was
	// omitted.)
	OutputType string
	// Quality is the JPEG quality, 40..100 (90 when omitted).
	Quality int `param:"outputQuality"`
	// Resize holds at most one non-zero size: the winner of the priority
	// width > height > long > short > scale.
	Resize ResizeRequest
	// AutoCrop is nil unless autocrop=true.
	AutoCrop *AutoCropRequest
	// Skip is the non-photo skip mode: "clipart" (default), "legacy" or
	// "none"; empty while AI preset selection is active, which ignores it.
	Skip string
	// RemoveGlares enables glare detection and removal.
	RemoveGlares bool `param:"removeGlares"`
	// Background is nil unless removeBackground=true.
	Background *BackgroundRequest
	// PreserveMetadata keeps EXIF, IPTC, XMP and colour profiles.
	PreserveMetadata bool `param:"preserveMetadata"`
	// UpdateThumbnail regenerates the embedded JPEG thumbnail.
	UpdateThumbnail bool `param:"updateThumbnail"`
	// IncludeDetectionData reports whether the record will show the
	// detection results (the Processor may fill them regardless).
	IncludeDetectionData bool `param:"includeDetectionData,mock"`
}

// ResizeRequest is the effective resize: at most one of the sizes is set.
type ResizeRequest struct {
	Width, Height, Long, Short int // pixels
	Scale                      int // percent
	// Mode is the upscaling mode: "auto", "general" or "smallDetails".
	Mode string
}

// Requested reports whether a size is set.
func (r ResizeRequest) Requested() bool {
	return r.Width != 0 || r.Height != 0 || r.Long != 0 || r.Short != 0 || r.Scale != 0
}

// AutoCropRequest holds the auto-crop settings; nil fields were not given
// (the engine's defaults apply).
type AutoCropRequest struct {
	// DetectOnly reports the crop rectangle without cropping.
	DetectOnly bool
	// Size (autocropSize), X (autocropX), Y (autocropY), AspectWidth
	// (cropARW), AspectHeight (cropARH) and TopHeadGap (autocropTopHeadGap)
	// are the desktop editor's decimal values, parsed.
	Size, X, Y, AspectWidth, AspectHeight, TopHeadGap *float64
}

// Background modes of BackgroundRequest.Mode, by the API's priority.
const (
	BackgroundGenerative  = "generative"
	BackgroundImage       = "image"
	BackgroundColor       = "color"
	BackgroundTransparent = "transparent"
)

// BackgroundRequest is the effective background replacement.
type BackgroundRequest struct {
	// Mode is BackgroundGenerative, BackgroundImage, BackgroundColor or
	// BackgroundTransparent.
	Mode string
	// Color is the solid colour (Mode color).
	Color color.NRGBA
	// Prompt is the generative prompt (Mode generative).
	Prompt string
	// OpenImage opens the uploaded background image, a JPEG or PNG
	// (Mode image). The caller closes it.
	OpenImage func() (io.ReadCloser, error) `json:"-"`
	// Shadow is "", "soft", "hard" or "floating" (image and color modes).
	Shadow string
}

// JobResult is what the Processor reports about a corrected image; it
// mirrors the engine's Result.
type JobResult struct {
	// Format is the written format, "jpg" or "png" ("jpeg" is accepted);
	// empty means the requested OutputType.
	Format string
	// Width and Height are the output size.
	Width, Height int
	// OriginalWidth and OriginalHeight are the source size (the record's
	// originalDimensions); zero means the mock's own reading of the header.
	OriginalWidth, OriginalHeight int
	// Scene is the detected scene category.
	Scene int
	// Faces are the detected faces, in source pixels.
	Faces []Face
	// GlareFound reports glasses glare found (and removed).
	GlareFound bool
	// Crop is the auto-crop rectangle in source pixels, nil without one.
	Crop *image.Rectangle
	// Resized reports a changed output size; AIResize tells an AI upscale
	// (usage.imageResizeCount) from a classic resize (classicResizeCount).
	Resized, AIResize bool
	// Corrected reports that a colour correction was applied
	// (usage.imageCorrectionCount).
	Corrected bool
	// Noise and RedEye are the detection summaries.
	Noise, RedEye string
	// Warnings are notes for detectionData.warnings.
	Warnings []string
}

// RejectError makes a job REJECTED instead of FAILED: the input is outside
// what the service accepts.
type RejectError struct {
	// Code is the job record's code; 0 means JobCodeRejected.
	Code int
	// Reason becomes the record's statusText.
	Reason string
	// Err is an optional underlying error.
	Err error
}

// Error returns "mockserver: rejected: <reason>[: <err>]" (the hosted mock
// makes this type public as hostedmock.RejectError).
func (e *RejectError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("mockserver: rejected: %s: %v", e.Reason, e.Err)
	}
	return "mockserver: rejected: " + e.Reason
}

// Unwrap returns Err.
func (e *RejectError) Unwrap() error { return e.Err }

// asReject returns the *RejectError in err's chain, if any.
func asReject(err error) (*RejectError, bool) {
	var re *RejectError
	ok := errors.As(err, &re)
	return re, ok
}
