package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/colorspace"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/correct"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/resize"
)

// ErrRejected is matched (errors.Is) by every error that means the input or
// the request is outside what the service accepts: the job is REJECTED
// rather than FAILED.
var ErrRejected = imageio.ErrRejected

// ErrUnknownPreset is returned (wrapped, with the name) for a preset that
// is neither built in nor supplied by Request.CustomPresets. It matches
// ErrRejected too.
var ErrUnknownPreset = fmt.Errorf("engine: unknown preset (%w)", imageio.ErrRejected)

// MaxOutputPixels bounds the size a resize may produce. The API allows
// upscales to 20,000 px on the long side, which at extreme aspect ratios
// would need gigabytes; the mock rejects outputs above the API's own input
// limit (200 megapixels) instead.
const MaxOutputPixels = 200_000_000

// Options configure an Engine.
type Options struct {
	// Remover removes backgrounds; nil means the CPU reference
	// (matting.NewCPU). The GPU engine (build tag cuda) plugs in here.
	Remover matting.Remover
}

// Engine runs jobs. It is safe for concurrent use; create it once.
type Engine struct {
	remover  matting.Remover
	detector *faces.Detector
}

// New returns an engine.
func New(o Options) (*Engine, error) {
	d, err := faces.NewDetector()
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	r := o.Remover
	if r == nil {
		r = matting.NewCPU()
	}
	return &Engine{remover: r, detector: d}, nil
}

// Request is what a job asks of the engine. The zero value corrects with AI
// preset selection and keeps the source format, size and background.
type Request struct {
	// Preset is "" or "Universal" (AI preset selection), "none" (no
	// correction), another built-in group name, or a custom preset name.
	Preset string
	// CustomPresets looks up uploaded or mounted preset files by name.
	CustomPresets func(name string) ([]byte, bool)
	// Skip is the non-photo skip mode: "clipart" (also ""), "legacy" or
	// "none". Ignored with AI preset selection.
	Skip string
	// BeautifyMaxAspect, when positive, leaves images whose aspect ratio is
	// above it uncorrected (the correction container's 21:1 rule).
	BeautifyMaxAspect float64

	// OutputType is "jpg" (or "jpeg"), "png", "original" or "", case
	// insensitive. "" keeps the source format, except that a removed
	// background gives PNG.
	OutputType string
	// Quality is the JPEG quality; 0 means 90.
	Quality int
	// PreserveMetadata keeps the source's EXIF, XMP, IPTC and ICC profile.
	PreserveMetadata bool
	// UpdateThumbnail regenerates the EXIF thumbnail from the output.
	UpdateThumbnail bool
	// OutputProfile, when set, is the ICC profile the output's colours are
	// converted to (the container's outputColorSpace:
	// colorspace.SRGBProfile() for srgb, or a profile file), from the
	// source's embedded profile (none: sRGB); the output then embeds it.
	// A profile that is not an RGB matrix/TRC one, at either end, leaves
	// the colours and the source's profile as they are, with a warning.
	OutputProfile []byte

	// Resize holds the size parameters (priority width > height > long >
	// short > scale) and the upscaling mode.
	Resize resize.Request
	// AutoCrop, when set, crops around the single person's head.
	AutoCrop *faces.CropParams
	// AutoCropDetectOnly reports the crop rectangle without cropping.
	AutoCropDetectOnly bool
	// RemoveGlares removes glasses glare.
	RemoveGlares bool

	// Background, when set, removes the background and composites the
	// subject onto it.
	Background *matting.Background
	// MatteMode is the removal mode; "" chooses portrait when a face was
	// found and general otherwise.
	MatteMode matting.Mode
	// Preprocess and SpillReduction are passed to the remover.
	Preprocess, SpillReduction bool
	// MaxOutputLongSide caps the long side of a background-removal result
	// (0 means matting.MaxOutputLongSide, the hosted API's 5000 px).
	MaxOutputLongSide int
	// MaxOutputPixels caps the area of a background-removal result (0
	// means matting.MaxOutputPixels, the hosted API's about 14 MP).
	MaxOutputPixels int64

	// Limits are the input limits; the zero value means
	// imageio.HostedLimits.
	Limits imageio.Limits
}

// Result describes what Process did.
type Result struct {
	// Format is the output format.
	Format imageio.Format
	// Width and Height are the output size.
	Width, Height int
	// OriginalWidth and OriginalHeight are the source's stored size.
	OriginalWidth, OriginalHeight int
	// Scene is the detected scene category (correct.SceneUnknown, -1, when
	// nothing is conclusive).
	Scene correct.Scene
	// Faces are the faces found in the upright source image.
	Faces []faces.Face
	// Noise and RedEye are the detection reports ("low"/"medium"/"high";
	// "none"/"detected").
	Noise, RedEye string
	// Corrected reports whether a colour correction was applied.
	Corrected bool
	// Preset is the name of the preset group used ("" when none applied).
	Preset string
	// GlareFound reports that glare was found and removed.
	GlareFound bool
	// Crop is the auto-crop rectangle in upright source pixels, when one
	// was computed; Cropped says whether it was applied.
	Crop    *image.Rectangle
	Cropped bool
	// Resize is the size plan that was applied.
	Resize resize.Plan
	// BackgroundRemoved reports that the background was replaced.
	BackgroundRemoved bool
	// Warnings are notes for statusText or logs.
	Warnings []string
}

// Process runs one job: it reads an image from src, applies req and writes
// the output file to dst. On error nothing useful was written to dst, and
// the caller discards it. Errors matching ErrRejected mean the input or
// request is unacceptable; others mean processing failed.
func (e *Engine) Process(ctx context.Context, src io.Reader, req Request, dst io.Writer) (*Result, error) {
	lim := req.Limits
	if lim == (imageio.Limits{}) {
		lim = imageio.HostedLimits
	}
	format, err := outputFormat(req.OutputType)
	if err != nil {
		return nil, err
	}
	in, err := imageio.Decode(src, lim)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{OriginalWidth: in.OriginalWidth, OriginalHeight: in.OriginalHeight}
	pix := in.Pix

	res.Faces = e.detector.Detect(pix)
	res.Noise = correct.EstimateNoise(pix)
	res.RedEye = faces.RedEye(pix, res.Faces)

	if err := e.correct(pix, req, res); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	if req.RemoveGlares {
		res.GlareFound = faces.RemoveGlare(pix, res.Faces)
	}

	boxes := make([]image.Rectangle, len(res.Faces))
	for i, f := range res.Faces {
		boxes[i] = f.Box
	}
	if req.AutoCrop != nil {
		rect, err := faces.AutoCrop(pix.Rect.Dx(), pix.Rect.Dy(), res.Faces, *req.AutoCrop)
		switch {
		case errors.Is(err, faces.ErrNoFace), errors.Is(err, faces.ErrMultipleFaces):
			res.Warnings = append(res.Warnings, "autocrop skipped: "+err.Error())
		case err != nil:
			return nil, fmt.Errorf("engine: autocrop: %w", err)
		default:
			res.Crop = &rect
			if !req.AutoCropDetectOnly {
				pix = cropCopy(pix, rect)
				res.Cropped = true
				for i := range boxes {
					boxes[i] = boxes[i].Sub(rect.Min).Intersect(pix.Rect)
				}
			}
		}
	}

	plan, err := resize.PlanSize(pix.Rect.Dx(), pix.Rect.Dy(), req.Resize)
	if err != nil {
		return nil, fmt.Errorf("engine: %w (%w)", err, ErrRejected)
	}
	if int64(plan.Width)*int64(plan.Height) > MaxOutputPixels {
		return nil, &imageio.RejectError{Reason: imageio.ReasonMegapixels,
			Detail: fmt.Sprintf("resize to %dx%d exceeds %d megapixels", plan.Width, plan.Height, MaxOutputPixels/1_000_000)}
	}
	res.Resize = plan
	res.Warnings = append(res.Warnings, plan.Warnings...)
	if plan.Resize {
		sx := float64(plan.Width) / float64(pix.Rect.Dx())
		sy := float64(plan.Height) / float64(pix.Rect.Dy())
		pix = resize.Resize(pix, plan.Width, plan.Height, plan.Kernel)
		for i, b := range boxes {
			boxes[i] = image.Rect(int(float64(b.Min.X)*sx), int(float64(b.Min.Y)*sy),
				int(float64(b.Max.X)*sx+0.5), int(float64(b.Max.Y)*sy+0.5))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	if req.Background != nil {
		pix, err = e.replaceBackground(ctx, pix, boxes, req)
		if err != nil {
			return nil, err
		}
		res.BackgroundRemoved = true
		if format == "" && strings.TrimSpace(req.OutputType) == "" {
			format = imageio.FormatPNG
		}
	}
	if format == "" {
		format = in.Format
	}

	var meta *imageio.Metadata
	if req.PreserveMetadata {
		meta = &in.Meta
	}
	if req.OutputProfile != nil {
		converted, err := colorspace.Convert(pix, in.Meta.ICC, req.OutputProfile)
		switch {
		case err != nil:
			res.Warnings = append(res.Warnings, "outputColorSpace: colours left unconverted: "+
				strings.TrimPrefix(err.Error(), "colorspace: "))
		case converted:
			m := imageio.Metadata{}
			if meta != nil {
				m = *meta
			}
			m.ICC = req.OutputProfile
			meta = &m
		}
	}
	if err := imageio.Encode(dst, pix, imageio.EncodeOptions{
		Format: format, Quality: req.Quality, Meta: meta, UpdateThumbnail: req.UpdateThumbnail,
	}); err != nil {
		return nil, fmt.Errorf("engine: encode: %w", err)
	}
	res.Format = format
	res.Width, res.Height = pix.Rect.Dx(), pix.Rect.Dy()
	return res, nil
}

// outputFormat maps the API's outputType to a format; "" means "decide
// later" (source format, or PNG after background removal).
func outputFormat(outputType string) (imageio.Format, error) {
	switch strings.ToLower(strings.TrimSpace(outputType)) {
	case "", "original":
		return "", nil
	case "jpg", "jpeg":
		return imageio.FormatJPEG, nil
	case "png":
		return imageio.FormatPNG, nil
	}
	return "", &imageio.RejectError{Reason: imageio.ReasonFormat, Detail: fmt.Sprintf("unknown output type %q", outputType)}
}

// correct resolves the preset and applies the colour correction in place.
func (e *Engine) correct(pix *image.NRGBA, req Request, res *Result) error {
	ai := correct.IsAISelection(req.Preset)
	var group correct.Group
	switch g, ok := correct.Builtin(req.Preset); {
	case ai:
		group, _ = correct.Builtin(correct.PresetUniversal)
	case ok:
		group = g
	default:
		data, found := lookup(req.CustomPresets, req.Preset)
		if !found {
			return fmt.Errorf("%w %q", ErrUnknownPreset, req.Preset)
		}
		g, warnings, err := correct.ParsePreset(req.Preset, data)
		if err != nil {
			return fmt.Errorf("engine: preset %q: %w (%w)", req.Preset, err, ErrRejected)
		}
		group = g
		res.Warnings = append(res.Warnings, warnings...)
	}

	// The scene is reported even when no correction follows.
	skip := ""
	switch {
	case group.IsIdentity():
		skip = "preset none"
	case req.BeautifyMaxAspect > 0 && aspect(pix.Rect) > req.BeautifyMaxAspect:
		skip = fmt.Sprintf("aspect ratio above %g:1", req.BeautifyMaxAspect)
	case !ai && (req.Skip == "" || req.Skip == "clipart") && correct.IsClipart(pix):
		skip = "clipart skipped (skip=clipart)"
	case !ai && req.Skip == "legacy" && correct.IsLegacySkip(pix):
		skip = "image skipped (skip=legacy)"
	}
	if skip != "" {
		res.Scene = correct.DetectScene(pix, len(res.Faces))
		if !group.IsIdentity() {
			res.Warnings = append(res.Warnings, "correction not applied: "+skip)
		}
		return nil
	}
	scene, params, _ := correct.Auto(pix, group, len(res.Faces))
	res.Scene = scene
	res.Corrected = !params.IsIdentity()
	res.Preset = group.Name
	return nil
}

func lookup(f func(string) ([]byte, bool), name string) ([]byte, bool) {
	if f == nil {
		return nil, false
	}
	return f(name)
}

func aspect(r image.Rectangle) float64 {
	w, h := r.Dx(), r.Dy()
	if w < h {
		w, h = h, w
	}
	if h == 0 {
		return 0
	}
	return float64(w) / float64(h)
}

// replaceBackground removes the background of pix and composites the
// subject onto req.Background, capping the result's long side and area.
func (e *Engine) replaceBackground(ctx context.Context, pix *image.NRGBA, faceBoxes []image.Rectangle, req Request) (*image.NRGBA, error) {
	mode := req.MatteMode
	if mode == "" {
		mode = matting.ModeGeneral
		if len(faceBoxes) > 0 {
			mode = matting.ModePortrait
		}
	}
	// Composite uses the matte's spill-corrected colours when present; a
	// remover with a device (the GPU engine) composites there, reading the
	// image and the matte it kept from the removal.
	_, out, err := matting.RemoveAndComposite(ctx, e.remover, pix, matting.Options{
		Mode: mode, Preprocess: req.Preprocess, SpillReduction: req.SpillReduction, Faces: faceBoxes,
	}, *req.Background)
	if err != nil {
		return nil, fmt.Errorf("engine: background removal and compositing: %w", err)
	}
	long, area := req.MaxOutputLongSide, req.MaxOutputPixels
	if long <= 0 {
		long = matting.MaxOutputLongSide
	}
	if area <= 0 {
		area = matting.MaxOutputPixels
	}
	w, h := out.Rect.Dx(), out.Rect.Dy()
	if nw, nh := matting.FitOutput(w, h, long, area); nw != w || nh != h {
		out = resize.Resize(out, nw, nh, resize.Lanczos3)
	}
	return out, nil
}

// cropCopy returns the pixels of r as a new image at origin (0,0).
func cropCopy(src *image.NRGBA, r image.Rectangle) *image.NRGBA {
	r = r.Intersect(src.Rect)
	dst := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(dst, dst.Rect, src, r.Min, draw.Src)
	return dst
}
