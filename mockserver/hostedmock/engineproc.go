package hostedmock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/resize"
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// engineProcessor is the reference engine e as the hosted mock's
// processor.
func engineProcessor(e *engine.Engine) Processor {
	return ProcessorFunc(func(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error) {
		ereq, err := engineRequest(req)
		if err != nil {
			return nil, err
		}
		res, err := e.Process(ctx, src, ereq, dst)
		if err != nil {
			if errors.Is(err, engine.ErrRejected) {
				return nil, &RejectError{Reason: strings.TrimPrefix(err.Error(), "imageio: "), Err: err}
			}
			return nil, err
		}
		return jobResult(res), nil
	})
}

// engineRequest is req as the engine takes it: the fields tagged `param`
// are copied by name (pfcdoc.CopyParams), the others here.
func engineRequest(req JobRequest) (engine.Request, error) {
	er := engine.Request{
		Preset:     req.Preset,
		Skip:       req.Skip,
		OutputType: req.OutputType,
		Resize: resize.Request{
			Width: req.Resize.Width, Height: req.Resize.Height,
			Long: req.Resize.Long, Short: req.Resize.Short, Scale: req.Resize.Scale,
			Mode: resize.Mode(req.Resize.Mode),
		},
		Limits: hostedsvc.InputLimits(req.Preset, req.AutoCrop != nil, req.RemoveGlares),
	}
	if err := pfcdoc.CopyParams(&er, &req); err != nil {
		return er, err
	}
	if req.PresetData != nil {
		name, data := req.Preset, req.PresetData
		er.CustomPresets = func(n string) ([]byte, bool) { return data, n == name }
	}
	if ac := req.AutoCrop; ac != nil {
		p := faces.DefaultCropParams()
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&p.Size, ac.Size)
		set(&p.X, ac.X)
		set(&p.Y, ac.Y)
		set(&p.ARW, ac.AspectWidth)
		set(&p.ARH, ac.AspectHeight)
		set(&p.TopHeadGap, ac.TopHeadGap)
		if err := p.Validate(); err != nil {
			return er, &RejectError{Reason: err.Error(), Err: err}
		}
		er.AutoCrop = &p
		er.AutoCropDetectOnly = ac.DetectOnly
	}
	if bg := req.Background; bg != nil {
		b, err := background(bg)
		if err != nil {
			return er, err
		}
		er.Background = b
	}
	return er, nil
}

// backgroundLimits bound a background image: it is only scaled to cover the
// subject, so the correction limits (33 px sides, 21:1) don't apply; the
// pixel cap still guards memory.
var backgroundLimits = imageio.MemoryLimits

func background(bg *BackgroundRequest) (*matting.Background, error) {
	b := &matting.Background{Shadow: matting.Shadow(bg.Shadow)}
	switch bg.Mode {
	case BackgroundGenerative:
		b.Kind, b.Prompt = matting.Generative, bg.Prompt
	case BackgroundColor:
		b.Kind, b.Color = matting.Color, bg.Color
	case BackgroundTransparent:
		b.Kind = matting.Transparent
	case BackgroundImage:
		if bg.OpenImage == nil {
			return nil, fmt.Errorf("mockserver: background image mode without an image")
		}
		rc, err := bg.OpenImage()
		if err != nil {
			return nil, fmt.Errorf("mockserver: opening the background image: %w", err)
		}
		defer rc.Close()
		img, err := imageio.Decode(rc, backgroundLimits)
		if err != nil {
			if errors.Is(err, imageio.ErrRejected) {
				return nil, &RejectError{Reason: "background image: " + err.Error(), Err: err}
			}
			return nil, fmt.Errorf("mockserver: background image: %w", err)
		}
		b.Kind, b.Image = matting.Image, img.Pix
	default:
		return nil, fmt.Errorf("mockserver: unknown background mode %q", bg.Mode)
	}
	return b, nil
}

func jobResult(r *engine.Result) *JobResult {
	jr := &JobResult{
		Format:         string(r.Format),
		Width:          r.Width,
		Height:         r.Height,
		OriginalWidth:  r.OriginalWidth,
		OriginalHeight: r.OriginalHeight,
		Scene:          int(r.Scene),
		GlareFound:     r.GlareFound,
		Crop:           r.Crop,
		Resized:        r.Resize.Resize,
		AIResize:       r.Resize.AI,
		Corrected:      r.Corrected,
		Noise:          r.Noise,
		RedEye:         r.RedEye,
		Warnings:       r.Warnings,
	}
	if r.Format == imageio.FormatJPEG {
		jr.Format = "jpg"
	}
	for _, f := range r.Faces {
		jr.Faces = append(jr.Faces, Face{
			Confidence: f.Confidence, Angle: f.Angle, Blink: f.Blink, Smile: f.Smile, YawAngle: f.YawAngle,
			Left: f.Box.Min.X, Top: f.Box.Min.Y, Width: f.Box.Dx(), Height: f.Box.Dy(),
			LeftEye:  Point{X: f.LeftEye.X, Y: f.LeftEye.Y},
			RightEye: Point{X: f.RightEye.X, Y: f.RightEye.Y},
		})
	}
	return jr
}
