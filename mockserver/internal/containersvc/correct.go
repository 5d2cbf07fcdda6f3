package containersvc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/colorspace"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/correct"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/faces"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/resize"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/jobqueue"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// BeautifyMaxAspect: above this aspect ratio the correction is not applied
// (documented: "Beautify corrections are not applied to images with aspect
// ratio above 21:1"); the image is still written, resized and converted.
const BeautifyMaxAspect = 21

// Correction is the answer of GET /pfc/{imageKey}.
type Correction struct {
	// CorrectedURL is PFC_SITE_URL + "/output/" + the output file name.
	CorrectedURL string `json:"corrected_url"`
	// Scene is the detected scene category, -1 when unknown.
	Scene int `json:"scene"`
}

// Correct corrects the image key (GET /pfc/{imageKey}) with the options in
// q, writes the result to output/ and returns its URL and the scene. key is
// an upload's imageKey or, in direct file mode, the name of a file placed
// in input/. Checks run in this order, each with its row's log line:
//
//  1. key empty: 400 noIdMessage;
//  2. key fails the sanity check (separators, "..", control characters,
//     a leading dot, more than MaxKeyLength bytes): 400 invalidIdMessage;
//  3. a malformed query: 400 invalidParameterMessage, or
//     unknownOutputTypeMessage for an output type other than JPEG, jpg or
//     PNG (case insensitive);
//  4. no such file in input/: 400 unknownImageIdMessage;
//  5. preset neither in presets/ nor built in: 400 unknownPresetMessage;
//     an outputColorSpace ICC profile not in presets/: 400
//     invalidParameterMessage;
//  6. output temporary file not creatable: 503 temporaryOutputFileMessage;
//     not writable ("couldn't write image", e.g. disk full): 503
//     temporaryOutputFileMessage; not closable or not renamable: 503
//     temporaryCloseOutputFileMessage;
//  7. the engine fails or rejects the image (short side under 32 px,
//     not a JPEG or PNG, corrupt): 503 processingPFCErrorMessage.
//
// With no valid licence in sdk_license the output is a byte copy of the
// input (scene -1) and licenseMessage says why.
func (s *Service) Correct(ctx context.Context, key string, q url.Values) (*Correction, *httpx.Error) {
	if key == "" {
		return nil, s.errRow(slog.LevelDebug, MsgNoID, http.StatusBadRequest, "no image key given")
	}
	if !safeName(key) {
		return nil, s.errRow(slog.LevelDebug, MsgInvalidID, http.StatusBadRequest,
			"the image key fails the sanity check (a plain file name of at most "+strconv.Itoa(MaxKeyLength)+
				" bytes without separators, \"..\", control characters or a leading dot)")
	}
	req, perr := s.cfg.parseRequest(q)
	if perr != nil {
		id := MsgInvalidParameter
		if perr.Code == MsgUnknownOutputType {
			id = MsgUnknownOutputType
		}
		s.logID(slog.LevelDebug, id, "status", perr.Status, "detail", perr.Message, "parameter", perr.Parameter)
		return nil, perr
	}
	inPath := filepath.Join(s.mounts.Input, key)
	if fi, err := os.Stat(inPath); err != nil || !fi.Mode().IsRegular() {
		return nil, s.errRow(slog.LevelDebug, MsgUnknownImageID, http.StatusBadRequest,
			"unknown image key "+strconv.Quote(key), "imageKey", key)
	}
	s.touch(DirInput, key, false)
	ereq, herr := s.engineRequest(req)
	if herr != nil {
		return nil, herr
	}

	// The correction waits its turn in the queue (Workers, MemoryBudget),
	// costed by the image's header: what decoding and correcting it hold
	// (imageio.Header.MemoryCost). What is no JPEG or PNG, or has a size
	// the engine's limits reject, costs nothing: the engine refuses it from
	// the header before it decodes a pixel (without a licence it is a byte
	// copy), so a 33-byte file claiming 20000×20000 neither waits to run
	// alone nor holds back the corrections behind it. What would hold more
	// than the whole budget is refused here as the engine refuses an image
	// over its limits, unless there is no licence (it is copied then).
	hdr, _ := imageio.FileHeader(inPath)
	work := correctionWork(hdr, ereq)
	cost := hdr.MemoryCost(work)
	if ereq.Limits.Check(hdr.Width, hdr.Height) != nil {
		cost = 0
	} else if err := hdr.CheckBudget(work, s.cfg.MemoryBudget, s.deps.BudgetName); err != nil && s.LicenseError() == nil {
		return nil, s.errRow(slog.LevelError, MsgProcessingPFCError, http.StatusServiceUnavailable,
			"processing failed: "+strings.TrimPrefix(err.Error(), "imageio: "), "imageKey", key)
	}
	var (
		res    *Correction
		runErr *httpx.Error
	)
	qj, err := s.queue.Submit(cost, func(context.Context) {
		// run watches ctx and s.ctx itself; the queue's own context ends
		// only with them (Cancel below, Close after s.cancel).
		res, runErr = s.run(ctx, key, inPath, req, ereq)
	})
	if err != nil {
		return nil, errShuttingDown()
	}
	select {
	case <-qj.Done():
	case <-ctx.Done():
	case <-s.ctx.Done():
	}
	qj.Cancel() // out of the queue if still there; a run sees ctx or s.ctx ended
	<-qj.Done()
	switch {
	case qj.State() == jobqueue.Cancelled && s.ctx.Err() != nil:
		return nil, errShuttingDown()
	case qj.State() == jobqueue.Cancelled:
		return nil, httpx.Errorf(http.StatusServiceUnavailable, httpx.CodeUnavailable, "the request ended while waiting for the engine")
	case res == nil && runErr == nil: // run panicked (the queue logged the panic)
		return nil, httpx.Internal(s.log, errors.New("the correction ended without a result"))
	}
	return res, runErr
}

// correctionWork is what correcting the image of hdr under req holds
// beside the decoded image: the engine's work, plus the resized output and
// its flattening onto white when a transparent image becomes a JPEG. An
// image that EXIF may turn is planned both ways up.
func correctionWork(hdr imageio.Header, req engine.Request) imageio.Work {
	w := imageio.CorrectionWork
	out := strings.ToLower(strings.TrimSpace(req.OutputType))
	flatten := hdr.Alpha && (out == "jpeg" || out == "jpg")
	sizes := [][2]int{{hdr.Width, hdr.Height}}
	if hdr.Rotated {
		sizes = append(sizes, [2]int{hdr.Height, hdr.Width})
	}
	for _, sz := range sizes {
		plan, err := resize.PlanSize(sz[0], sz[1], req.Resize)
		if err == nil && plan.Resize {
			w.Extra = max(w.Extra, imageio.ResizeBytes(plan.Width, plan.Height, flatten))
		} else if flatten {
			w.Extra = max(w.Extra, 4*hdr.Pixels())
		}
	}
	return w
}

func errShuttingDown() *httpx.Error {
	return httpx.Errorf(http.StatusServiceUnavailable, httpx.CodeUnavailable, "the server is shutting down")
}

// engineRequest resolves the preset and colour space of req.
func (s *Service) engineRequest(req *Request) (engine.Request, *httpx.Error) {
	er := engine.Request{
		Preset:            req.Preset,
		Skip:              req.Skip,
		BeautifyMaxAspect: BeautifyMaxAspect,
		OutputType:        req.OutputType,
		PreserveMetadata:  true,
		Limits:            imageio.ContainerLimits,
	}
	if err := pfcdoc.CopyParams(&er, req); err != nil {
		return er, httpx.Errorf(http.StatusInternalServerError, httpx.CodeInternal, "%v", err)
	}
	if req.Preset != "" {
		data, ok, err := lookupPreset(s.mounts.Presets, req.Preset)
		switch {
		case err != nil:
			return er, s.errRow(slog.LevelDebug, MsgUnknownPreset, http.StatusBadRequest,
				"preset "+strconv.Quote(req.Preset)+" could not be read", "error", err.Error())
		case ok:
			name := req.Preset
			er.CustomPresets = func(n string) ([]byte, bool) { return data, n == name }
			if isBuiltinPreset(name) {
				// A mounted file overrides the built-in group of that name.
				er.Preset = "mounted preset " + name
				er.CustomPresets = func(n string) ([]byte, bool) { return data, n == er.Preset }
			}
		case !isBuiltinPreset(req.Preset):
			return er, s.errRow(slog.LevelDebug, MsgUnknownPreset, http.StatusBadRequest,
				"preset "+strconv.Quote(req.Preset)+" is not uploaded or mounted", "preset", req.Preset)
		}
	}
	switch cs := req.ColorSpace; cs {
	case "original":
	case "srgb":
		er.OutputProfile = colorspace.SRGBProfile()
	default:
		prof, err := readProfile(filepath.Join(s.mounts.Presets, cs))
		if err != nil {
			e := paramError("outputColorSpace", "ICC profile %q is not in /presets", cs)
			if !errors.Is(err, os.ErrNotExist) {
				e = paramError("outputColorSpace", "ICC profile %q in /presets cannot be read: %v", cs, err)
			}
			s.logID(slog.LevelDebug, MsgInvalidParameter, "status", e.Status, "detail", e.Message, "parameter", e.Parameter)
			return er, e
		}
		er.OutputProfile = prof
	}
	switch req.ResizeParam {
	case "width":
		er.Resize.Width = req.ResizeValue
	case "height":
		er.Resize.Height = req.ResizeValue
	case "long":
		er.Resize.Long = req.ResizeValue
	case "short":
		er.Resize.Short = req.ResizeValue
	case "scale":
		er.Resize.Scale = req.ResizeValue
	}
	if req.Autocrop {
		p := faces.DefaultCropParams()
		er.AutoCrop = &p
	}
	return er, nil
}

// run produces the output file. It holds a worker slot.
func (s *Service) run(ctx context.Context, key, inPath string, req *Request, ereq engine.Request) (*Correction, *httpx.Error) {
	in, err := os.Open(inPath)
	if err != nil {
		return nil, s.errRow(slog.LevelDebug, MsgUnknownImageID, http.StatusBadRequest,
			"unknown image key "+strconv.Quote(key), "imageKey", key)
	}
	defer in.Close()

	licErr := s.LicenseError()
	if licErr == nil {
		if sw := skippedBySoftware(exifSoftware(in), req.SkipEXIFSoftware); sw != "" {
			s.logID(slog.LevelInfo, MsgSkipped, "imageKey", key, "reason", "edited by "+sw+" (skip-exif-software)")
			ereq.Preset, ereq.CustomPresets = correct.PresetNone, nil
		}
	} else {
		s.logID(slog.LevelWarn, MsgLicense, "imageKey", key,
			"detail", "no valid licence in /sdk_license: the image is returned unchanged", "reason", licErr.Error())
	}

	tmp, err := s.createTemp(s.mounts.Output, ".out-*")
	if err != nil {
		return nil, s.errRow(slog.LevelError, MsgTemporaryOutputFile, http.StatusServiceUnavailable,
			"the output file could not be created (is output/ writable, is the disk full?)", "imageKey", key, "error", err.Error())
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(fileWriter{tmp}, 1<<16)
	scene, ext := int(correct.SceneUnknown), filepath.Ext(key)
	if licErr != nil {
		_, err = io.Copy(bw, in)
	} else {
		var res *engine.Result
		pctx, release := mergeCtx(ctx, s.ctx)
		res, err = s.engine.Process(pctx, bufio.NewReaderSize(in, 1<<16), ereq, bw)
		release()
		if err == nil {
			scene, ext = int(res.Scene), res.Format.Extension()
			for _, w := range res.Warnings {
				s.logID(slog.LevelInfo, MsgSkipped, "imageKey", key, "reason", w)
			}
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	var we *writeError
	switch {
	case errors.As(err, &we):
		return nil, s.errRow(slog.LevelError, MsgTemporaryOutputFile, http.StatusServiceUnavailable,
			"couldn't write image", "imageKey", key, "error", we.err.Error())
	case err != nil && (ctx.Err() != nil || s.ctx.Err() != nil):
		// The request ended or the server is closing: not the engine's
		// failure, and nobody waits for the answer.
		return nil, httpx.Errorf(http.StatusServiceUnavailable, httpx.CodeUnavailable, "the correction was cancelled")
	case err != nil:
		return nil, s.errRow(slog.LevelError, MsgProcessingPFCError, http.StatusServiceUnavailable,
			"processing failed: "+strings.TrimPrefix(err.Error(), "imageio: "), "imageKey", key)
	}
	if err := tmp.Close(); err != nil {
		return nil, s.errRow(slog.LevelError, MsgTemporaryCloseOutput, http.StatusServiceUnavailable,
			"the output file could not be closed", "imageKey", key, "error", err.Error())
	}
	name := key
	if !req.PreserveInputFileName {
		name = newName() + ext
	}
	if err := s.rename(tmp.Name(), filepath.Join(s.mounts.Output, name)); err != nil {
		return nil, s.errRow(slog.LevelError, MsgTemporaryCloseOutput, http.StatusServiceUnavailable,
			"the output file could not be stored", "imageKey", key, "error", err.Error())
	}
	committed = true
	s.touch(DirOutput, name, true)
	out := &Correction{CorrectedURL: s.cfg.SiteURL + OutputPrefix + url.PathEscape(name), Scene: scene}
	s.logID(slog.LevelDebug, MsgCorrected, "imageKey", key, "output", name, "scene", scene,
		"enableComposite", req.EnableComposite)
	return out, nil
}

// MaxProfileBytes bounds an outputColorSpace profile file (the largest
// profile a JPEG's APP2 segments can carry is about 16 MB).
const MaxProfileBytes = 16 << 20

// readProfile reads an ICC profile file from /presets: a regular file of
// at most MaxProfileBytes. What it holds is the engine's to judge.
func readProfile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, os.ErrNotExist
	case fi.Size() > MaxProfileBytes:
		return nil, fmt.Errorf("larger than %d bytes", MaxProfileBytes)
	}
	return io.ReadAll(io.LimitReader(f, MaxProfileBytes+1))
}

// mergeCtx returns ctx, also cancelled when stop is, and its release.
func mergeCtx(ctx, stop context.Context) (context.Context, func()) {
	c, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(stop, cancel)
	return c, func() { unhook(); cancel() }
}
