package hostedsvc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
)

// process checks the input and runs the processor. It holds no lock.
func (s *Service) process(ctx context.Context, j *job) *outcome {
	inPath, err := s.store.Path(j.input)
	if err != nil {
		return failed(JobCodeProcessingFailed, "input file unavailable")
	}
	f, err := os.Open(inPath)
	if err != nil {
		return failed(JobCodeProcessingFailed, "input file unavailable")
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	imgFormat, isImage := imageio.Sniff(head)
	container, isVideo := imageio.SniffVideo(head)

	if j.fileType != j.upType {
		return rejected(JobCodeFileTypeMismatch, "fileType=%s does not match the upload, which was requested with fileType=%s", j.fileType, j.upType)
	}
	if j.fileType == FileTypeVideo {
		switch {
		case isImage:
			return rejected(JobCodeFileTypeMismatch, "the file is a %s image, not a video; use fileType=image", imgFormat)
		case !isVideo:
			return rejected(JobCodeFormat, "unsupported video format: MP4 or MOV expected")
		}
		out := &outcome{status: StatusCompleted, passthrough: true, ext: container,
			usage: usage{Size: "video", VideoCorrectionCount: 1}}
		out.mime = "video/mp4"
		if container == imageio.ContainerMOV {
			out.mime = "video/quicktime"
		}
		if w, h, ok := videoDimensions(f, j.inputSize); ok {
			out.dims = &dimensions{Width: w, Height: h}
		}
		return out
	}

	if !isImage {
		if isVideo {
			return rejected(JobCodeFileTypeMismatch, "the file is a video; use fileType=video")
		}
		return rejected(JobCodeFormat, "unsupported image format: JPEG or PNG expected")
	}
	src := io.NewSectionReader(f, 0, j.inputSize)
	var cfg image.Config
	if imgFormat == imageio.FormatJPEG {
		cfg, err = jpeg.DecodeConfig(src)
	} else {
		cfg, err = png.DecodeConfig(src)
	}
	var jpegUnsupported jpeg.UnsupportedError
	var pngUnsupported png.UnsupportedError
	switch {
	case errors.As(err, &jpegUnsupported) || errors.As(err, &pngUnsupported):
		// A variant the decoder cannot read (arithmetic coding...): the
		// engine rejects those too.
		return rejected(JobCodeFormat, "unsupported %s variant: %v", imgFormat, err)
	case err != nil && isDiskError(err):
		return failed(JobCodeProcessingFailed, "%s", s.diskFailure(j, "input file unavailable", err))
	case err != nil:
		return failed(JobCodeProcessingFailed, "corrupt %s file: %v", imgFormat, err)
	}
	// From here on the records carry originalDimensions.
	dims := &dimensions{Width: cfg.Width, Height: cfg.Height}
	reject := func(code int, format string, args ...any) *outcome {
		o := rejected(code, format, args...)
		o.dims = dims
		return o
	}
	fail := func(code int, format string, args ...any) *outcome {
		o := failed(code, format, args...)
		o.dims = dims
		return o
	}
	if cfg.ColorModel == color.CMYKModel {
		return reject(JobCodeFormat, "CMYK JPEG is not supported: RGB or RGBA images only")
	}
	if err := InputLimits(j.preset, j.q.req.AutoCrop != nil, j.q.req.RemoveGlares).Check(cfg.Width, cfg.Height); err != nil {
		return reject(JobCodeDimensions, "%s", rejectText(err))
	}
	if j.q.req.Background != nil && j.inputSize > MaxBackgroundRemovalBytes {
		return reject(JobCodeFileTooLarge, "background removal needs an input below 30 MB; this file has %d bytes", j.inputSize)
	}
	if j.presetErr != "" {
		return reject(JobCodeUnknownPreset, "%s", j.presetErr)
	}
	var bgPath string
	if j.bgInput != "" {
		bgPath, _ = s.store.Path(j.bgInput)
		if !isImageFile(bgPath) {
			return reject(JobCodeBackgroundImage, "bgFileKey: the background must be a JPEG or PNG image")
		}
	}
	if s.cfg.Deps.Processor == nil {
		return fail(JobCodeNoEngine, "no image processor is configured in this mock server")
	}

	srcFormat := "jpg"
	if imgFormat == imageio.FormatPNG {
		srcFormat = "png"
	}
	req := buildRequest(j, srcFormat, bgPath)
	if j.presetInput != "" {
		// Read only now, so that a job holds no preset file in memory
		// while it waits in the queue or after it ended.
		if req.PresetData, err = s.readBlob(j.presetInput, MaxPresetBytes); err != nil {
			return fail(JobCodeProcessingFailed, "%s", s.diskFailure(j, "reading the preset file failed", err))
		}
	}
	tmp, err := s.store.CreateTemp()
	if err != nil {
		return fail(JobCodeProcessingFailed, "%s", s.diskFailure(j, textStoringFailed, err))
	}
	out := &writeErrs{w: tmp}
	bw := bufio.NewWriterSize(out, 1<<16)
	res, err := s.callProcessor(ctx, bufio.NewReaderSize(io.NewSectionReader(f, 0, j.inputSize), 1<<16), req, bw)
	if err == nil {
		err = bw.Flush()
	}
	cerr := tmp.Close()
	if err == nil {
		err = cerr
	}
	if err == nil && res == nil {
		err = errors.New("the processor returned no result")
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		switch {
		case ctx.Err() != nil:
			return fail(JobCodeShutdown, "the server shut down while the job ran")
		case out.err != nil || cerr != nil:
			return fail(JobCodeProcessingFailed, "%s", s.diskFailure(j, textStoringFailed, err))
		case isReject(err):
			code := JobCodeRejected
			if re, ok := asReject(err); ok && re.Code != 0 {
				code = re.Code
			}
			return reject(code, "%s", rejectText(err))
		case isDiskError(err):
			return fail(JobCodeProcessingFailed, "%s", s.diskFailure(j, textServerFileFailed, err))
		default:
			return fail(JobCodeProcessingFailed, "processing failed: %v", err)
		}
	}
	return imageOutcome(req, res, dims, tmp.Name())
}

// statusTexts of the failures of the mock's own files.
const (
	textStoringFailed    = "storing the result failed"
	textServerFileFailed = "processing failed: a file of the server could not be read"
)

// diskFailure logs err, a failure of the mock's own files, and returns
// text, the job's statusText for it: the error names paths of the
// server's disk, which the record (/status, webhooks) must not show.
func (s *Service) diskFailure(j *job, text string, err error) string {
	s.log.Error("job failed on the server's disk", "job", j.id, "statusText", text, "error", err)
	return text
}

// isDiskError reports whether err is a file system error, which names a
// path.
func isDiskError(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se)
}

// writeErrs remembers the error of its writer, telling a failure to
// store the result from the processor's own.
type writeErrs struct {
	w   io.Writer
	err error
}

func (e *writeErrs) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// InputLimits returns the size limits of a job's input image. The hosted API
// documentation's correction limits (imageio.HostedLimits: larger than 32x32,
// long side at most 100,000, aspect below 21:1, below 200 megapixels) apply to
// correction, retouching (glare removal), creative filters and auto
// cropping, that is to every job but one with preset=none, no autocrop and
// no removeGlares (a resize, background removal or format conversion),
// which is held only to imageio.MemoryLimits. AI upscaling's own limits
// apply in the resize plan either way.
func InputLimits(preset string, autocrop, removeGlares bool) imageio.Limits {
	if preset == "none" && !autocrop && !removeGlares {
		return imageio.MemoryLimits
	}
	return imageio.HostedLimits
}

// callProcessor runs the Processor; a panic in it fails the job instead
// of the server.
func (s *Service) callProcessor(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (res *JobResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("hostedsvc: the processor panicked: %v", p)
		}
	}()
	return s.cfg.Deps.Processor.Process(ctx, src, req, dst)
}

func isReject(err error) bool {
	_, ok := asReject(err)
	return ok || errors.Is(err, imageio.ErrRejected)
}

// rejectText is the statusText for a rejection error: the detail, without
// package prefixes.
func rejectText(err error) string {
	if re, ok := asReject(err); ok {
		return re.Reason
	}
	var ie *imageio.RejectError
	if errors.As(err, &ie) {
		return fmt.Sprintf("rejected (%s): %s", ie.Reason, ie.Detail)
	}
	return err.Error()
}

func isImageFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.ReadAt(head, 0)
	_, ok := imageio.Sniff(head[:n])
	return ok
}

// buildRequest is the processor's request of j: the parsed one with the
// source's format, the output type resolved and the background image to
// open (Mode image).
func buildRequest(j *job, srcFormat, bgPath string) JobRequest {
	req := j.q.req
	req.SourceFormat = srcFormat
	switch req.OutputType {
	case "jpg", "png":
	case "original":
		req.OutputType = srcFormat
	default:
		req.OutputType = srcFormat
		if req.Background != nil {
			req.OutputType = "png"
		}
	}
	if b := req.Background; b != nil && b.Mode == BackgroundImage {
		img := *b
		img.OpenImage = func() (io.ReadCloser, error) { return os.Open(bgPath) }
		req.Background = &img
	}
	return req
}

func imageOutcome(req JobRequest, res *JobResult, dims *dimensions, tmp string) *outcome {
	out := &outcome{status: StatusCompleted, tmpResult: tmp, dims: dims}
	format := strings.ToLower(res.Format)
	if format == "" {
		format = req.OutputType
	}
	switch format {
	case "jpg", "jpeg":
		out.ext, out.mime = "jpg", "image/jpeg"
	case "png":
		out.ext, out.mime = "png", "image/png"
	default:
		out.ext, out.mime = "bin", "application/octet-stream"
	}
	if res.OriginalWidth > 0 && res.OriginalHeight > 0 {
		out.dims = &dimensions{Width: res.OriginalWidth, Height: res.OriginalHeight}
	}
	u := usage{Size: sizeClass(out.dims.Width, out.dims.Height)}
	if res.Corrected {
		u.ImageCorrectionCount = 1
	}
	if res.Resized {
		if res.AIResize {
			u.ImageResizeCount = 1
		} else {
			u.ClassicResizeCount = 1
		}
	}
	if req.RemoveGlares {
		u.GlaresDetectorCount = 1
		u.RemoveGlaresTotalCount = 1
		if res.GlareFound {
			u.RemoveGlaresCount = 1
		}
	}
	if req.Background != nil {
		u.RemoveBackgroundCount = 1
	}
	if req.AutoCrop != nil && res.Crop != nil {
		u.AutoCropCount = 1
	}
	out.usage = u
	faces := res.Faces
	if faces == nil {
		faces = []Face{}
	}
	warnings := res.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	out.detection = &detectionData{FacesCount: len(faces), Faces: faces, Scene: res.Scene,
		Noise: res.Noise, RedEye: res.RedEye, Warnings: warnings, Status: "OK"}
	if req.AutoCrop != nil && req.AutoCrop.DetectOnly && res.Crop != nil {
		r := res.Crop.Canon()
		out.crop = &cropRect{Left: r.Min.X, Top: r.Min.Y, Width: r.Dx(), Height: r.Dy()}
	}
	return out
}

// sizeClass is the usage "size" of an image: S up to 2 megapixels, M up
// to 8, L up to 24, XL above.
func sizeClass(w, h int) string {
	switch mp := int64(w) * int64(h); {
	case mp <= 2_000_000:
		return "S"
	case mp <= 8_000_000:
		return "M"
	case mp <= 24_000_000:
		return "L"
	}
	return "XL"
}
