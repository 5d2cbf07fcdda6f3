package mockserver

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
)

// HostedProcessor corrects one image for a job of the hosted mock. The
// mock calls it only for inputs that passed its own checks (format, file
// type, pixel limits, preset, size for background removal), with every
// /pfc default and priority rule already applied; videos never reach it.
//
// Process reads the source image (JPEG or PNG) from src and writes the
// corrected file to dst in req.OutputType. An error matching
// *HostedRejectError makes the job REJECTED; any other error (or a panic)
// makes it FAILED. ctx is cancelled when the server closes.
type HostedProcessor interface {
	Process(ctx context.Context, src io.Reader, req HostedJobRequest, dst io.Writer) (*HostedJobResult, error)
}

// HostedProcessorFunc adapts a function to HostedProcessor.
type HostedProcessorFunc func(ctx context.Context, src io.Reader, req HostedJobRequest, dst io.Writer) (*HostedJobResult, error)

// Process calls f.
func (f HostedProcessorFunc) Process(ctx context.Context, src io.Reader, req HostedJobRequest, dst io.Writer) (*HostedJobResult, error) {
	return f(ctx, src, req, dst)
}

// HostedJobRequest is a /pfc request with every default filled in and
// every priority rule applied, as a HostedProcessor gets it.
type HostedJobRequest struct {
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
	Quality int
	// Resize holds at most one non-zero size: the winner of the priority
	// width > height > long > short > scale.
	Resize HostedResizeRequest
	// AutoCrop is nil unless autocrop=true.
	AutoCrop *HostedAutoCropRequest
	// Skip is the non-photo skip mode: "clipart" (default), "legacy" or
	// "none"; empty while AI preset selection is active, which ignores it.
	Skip string
	// RemoveGlares enables glare detection and removal.
	RemoveGlares bool
	// Background is nil unless removeBackground=true.
	Background *HostedBackgroundRequest
	// PreserveMetadata keeps EXIF, IPTC, XMP and colour profiles.
	PreserveMetadata bool
	// UpdateThumbnail regenerates the embedded JPEG thumbnail.
	UpdateThumbnail bool
	// IncludeDetectionData reports whether the record will show the
	// detection results (the processor may fill them regardless).
	IncludeDetectionData bool
}

// HostedResizeRequest is the effective resize of a HostedJobRequest: at
// most one of the sizes is set.
type HostedResizeRequest struct {
	Width, Height, Long, Short int // pixels
	Scale                      int // percent
	// Mode is the upscaling mode: "auto", "general" or "smallDetails".
	Mode string
}

// Requested reports whether a size is set.
func (r HostedResizeRequest) Requested() bool {
	return r.Width != 0 || r.Height != 0 || r.Long != 0 || r.Short != 0 || r.Scale != 0
}

// HostedAutoCropRequest holds the auto-crop settings of a
// HostedJobRequest; nil fields were not given (the engine's defaults
// apply).
type HostedAutoCropRequest struct {
	// DetectOnly reports the crop rectangle without cropping.
	DetectOnly bool
	// Size (autocropSize), X (autocropX), Y (autocropY), AspectWidth
	// (cropARW), AspectHeight (cropARH) and TopHeadGap (autocropTopHeadGap)
	// are the desktop editor's decimal values, parsed.
	Size, X, Y, AspectWidth, AspectHeight, TopHeadGap *float64
}

// Background modes of HostedBackgroundRequest.Mode, by the API's
// priority.
const (
	HostedBackgroundGenerative  = "generative"
	HostedBackgroundImage       = "image"
	HostedBackgroundColor       = "color"
	HostedBackgroundTransparent = "transparent"
)

// HostedBackgroundRequest is the effective background replacement of a
// HostedJobRequest.
type HostedBackgroundRequest struct {
	// Mode is HostedBackgroundGenerative, HostedBackgroundImage,
	// HostedBackgroundColor or HostedBackgroundTransparent.
	Mode string
	// Color is the solid colour (HostedBackgroundColor).
	Color color.NRGBA
	// Prompt is the generative prompt (HostedBackgroundGenerative).
	Prompt string
	// OpenImage opens the uploaded background image, a JPEG or PNG
	// (HostedBackgroundImage). The caller closes it.
	OpenImage func() (io.ReadCloser, error)
	// Shadow is "", "soft", "hard" or "floating" (image and colour modes).
	Shadow string
}

// HostedJobResult is what a HostedProcessor reports about the corrected
// image.
type HostedJobResult struct {
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
	Faces []hosted.Face
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

// HostedRejectError, returned by a HostedProcessor, makes the job
// REJECTED instead of FAILED: the input is outside what the service
// accepts.
type HostedRejectError struct {
	// Code is the job record's code; 0 means 1000 (rejected by the
	// processor).
	Code int
	// Reason becomes the record's statusText.
	Reason string
	// Err is an optional underlying error.
	Err error
}

// Error returns "mockserver: rejected: <reason>[: <err>]".
func (e *HostedRejectError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("mockserver: rejected: %s: %v", e.Reason, e.Err)
	}
	return "mockserver: rejected: " + e.Reason
}

// Unwrap returns Err.
func (e *HostedRejectError) Unwrap() error { return e.Err }

// serviceProcessor adapts a HostedProcessor to the service's own types.
func serviceProcessor(p HostedProcessor) hostedsvc.Processor {
	return hostedsvc.ProcessorFunc(func(ctx context.Context, src io.Reader, req hostedsvc.JobRequest, dst io.Writer) (*hostedsvc.JobResult, error) {
		res, err := p.Process(ctx, src, publicRequest(req), dst)
		if err != nil {
			var re *HostedRejectError
			if errors.As(err, &re) {
				return nil, &hostedsvc.RejectError{Code: re.Code, Reason: re.Reason, Err: err}
			}
			return nil, err
		}
		if res == nil {
			return nil, nil
		}
		return &hostedsvc.JobResult{
			Format: res.Format, Width: res.Width, Height: res.Height,
			OriginalWidth: res.OriginalWidth, OriginalHeight: res.OriginalHeight,
			Scene: res.Scene, Faces: serviceFaces(res.Faces), GlareFound: res.GlareFound, Crop: res.Crop,
			Resized: res.Resized, AIResize: res.AIResize, Corrected: res.Corrected,
			Noise: res.Noise, RedEye: res.RedEye, Warnings: res.Warnings,
		}, nil
	})
}

func serviceFaces(faces []hosted.Face) []hostedsvc.Face {
	if faces == nil {
		return nil
	}
	out := make([]hostedsvc.Face, len(faces))
	for i, f := range faces {
		out[i] = hostedsvc.Face{Confidence: f.Confidence, Angle: f.Angle, Blink: f.Blink, Smile: f.Smile,
			YawAngle: f.YawAngle, Left: f.Left, Top: f.Top, Width: f.Width, Height: f.Height,
			LeftEye: hostedsvc.Point(f.LeftEye), RightEye: hostedsvc.Point(f.RightEye)}
	}
	return out
}

func publicRequest(r hostedsvc.JobRequest) HostedJobRequest {
	out := HostedJobRequest{
		Preset: r.Preset, PresetData: r.PresetData, SourceFormat: r.SourceFormat,
		OutputType: r.OutputType, Quality: r.Quality, Resize: HostedResizeRequest(r.Resize),
		Skip: r.Skip, RemoveGlares: r.RemoveGlares, PreserveMetadata: r.PreserveMetadata,
		UpdateThumbnail: r.UpdateThumbnail, IncludeDetectionData: r.IncludeDetectionData,
	}
	if r.AutoCrop != nil {
		ac := HostedAutoCropRequest(*r.AutoCrop)
		out.AutoCrop = &ac
	}
	if b := r.Background; b != nil {
		out.Background = &HostedBackgroundRequest{Mode: b.Mode, Color: b.Color,
			Prompt: b.Prompt, OpenImage: b.OpenImage, Shadow: b.Shadow}
	}
	return out
}
