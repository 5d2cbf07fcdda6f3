package hostedmock

import (
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
)

// Processor corrects one image for a job of the hosted mock. The mock
// calls it only for inputs that passed its own checks (format, file type,
// pixel limits, preset, size for background removal), with every /pfc
// default and priority rule already applied; videos never reach it.
//
// Its one method, Process(ctx, src io.Reader, req JobRequest, dst
// io.Writer) (*JobResult, error), reads the source image (JPEG or PNG)
// from src and writes the corrected file to dst in req.OutputType. An
// error matching *RejectError makes the job REJECTED; any other error (or
// a panic) makes it FAILED. ctx is cancelled when the server closes.
type Processor = hostedsvc.Processor

// ProcessorFunc adapts a function to Processor: ProcessorFunc(f).Process
// calls f.
type ProcessorFunc = hostedsvc.ProcessorFunc

// JobRequest is a /pfc request with every default filled in and every
// priority rule applied, as a Processor gets it: the service's own type,
// the one the mock's parser fills, its cache key encodes and the engine
// adapter reads. Its fields (Preset, PresetData, SourceFormat, OutputType,
// Quality, Resize, AutoCrop, Background, Skip and one per plain
// parameter such as RemoveGlares) are listed with their values and
// defaults in docs/mockserver.md, "Processors and the engine".
type JobRequest = hostedsvc.JobRequest

// ResizeRequest is the effective resize of a JobRequest: Width, Height,
// Long, Short (pixels) and Scale (percent), at most one of them set, and
// Mode, the upscaling mode ("auto", "general" or "smallDetails"). Its
// Requested method reports whether a size is set.
type ResizeRequest = hostedsvc.ResizeRequest

// AutoCropRequest holds the auto-crop settings of a JobRequest:
// DetectOnly (report the crop rectangle without cropping) and the desktop
// editor's decimal values, parsed, as *float64 (nil when not given, the
// engine's default applies): Size (autocropSize), X (autocropX), Y
// (autocropY), AspectWidth (cropARW), AspectHeight (cropARH) and
// TopHeadGap (autocropTopHeadGap).
type AutoCropRequest = hostedsvc.AutoCropRequest

// Background modes of BackgroundRequest.Mode, by the API's priority.
const (
	BackgroundGenerative  = hostedsvc.BackgroundGenerative
	BackgroundImage       = hostedsvc.BackgroundImage
	BackgroundColor       = hostedsvc.BackgroundColor
	BackgroundTransparent = hostedsvc.BackgroundTransparent
)

// BackgroundRequest is the effective background replacement of a
// JobRequest. Its fields: Mode string (BackgroundGenerative,
// BackgroundImage, BackgroundColor or BackgroundTransparent); Color
// color.NRGBA (the colour mode); Prompt string (the generative mode);
// OpenImage func() (io.ReadCloser, error), which opens the uploaded
// background image, a JPEG or PNG, for the caller to close (the image
// mode); Shadow string, "", "soft", "hard" or "floating" (image and
// colour modes).
type BackgroundRequest = hostedsvc.BackgroundRequest

// JobResult is what a Processor reports about the corrected image. Its
// fields: Format string ("jpg" or "png", "jpeg" accepted; empty means
// the requested OutputType); Width, Height int (the output size);
// OriginalWidth, OriginalHeight int (the source size; zero means the
// mock's own reading); Scene int; Faces []Face (source pixels);
// GlareFound bool; Crop *image.Rectangle (the auto-crop rectangle, nil
// without one); Resized, AIResize bool (a changed size, and whether an AI
// upscale); Corrected bool (a colour correction applied); Noise, RedEye
// string (detection summaries); Warnings []string.
type JobResult = hostedsvc.JobResult

// Face is one detected face of a JobResult, as the job record's
// detectionData shows it: Confidence, Angle, Blink, Smile, YawAngle int;
// the box Left, Top, Width, Height int in source pixels; LeftEye and
// RightEye Point.
type Face = hostedsvc.Face

// Point is an eye position of a Face in source pixels: X, Y float64.
type Point = hostedsvc.Point

// RejectError, returned by a Processor, makes the job REJECTED instead of
// FAILED: the input is outside what the service accepts. Its fields: Code
// int, the job record's code (0 means 1000, rejected by the processor);
// Reason string, the record's statusText; Err error, optional, returned
// by Unwrap.
type RejectError = hostedsvc.RejectError
