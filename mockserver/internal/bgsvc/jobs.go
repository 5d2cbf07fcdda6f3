package bgsvc

import (
	"errors"
	"image/color"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/jobqueue"
)

// Job states as /CheckImage reports them.
const (
	StatusQueued     = "queued"
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// SubmitMessage is the message of the SubmitImage answer.
const SubmitMessage = "Image processing started"

type job struct {
	id   string
	name string // original_name
	opts options
	qjob *jobqueue.Job // its entry in the shared queue; Cancel stops it

	status     string
	input      string // blob name of the input
	result     string // blob name of the PNG once completed
	errText    string // failed only
	startedAt  time.Time
	finishedAt time.Time

	delay   *activity.Timer // the ProcessingDelay, once the engine returned
	pending string          // the result PNG (a temporary file) waiting out the delay
	// releaseBudget gives back the memory budget the delay holds.
	releaseBudget func()
}

// Upload is a received file part waiting for Submit, which takes it over.
type Upload struct {
	temp *blobstore.Temp
}

// Discard removes the received file; Submit does it itself.
func (u *Upload) Discard() {
	if u != nil && u.temp != nil {
		u.temp.Discard()
		u.temp = nil
	}
}

// ReceiveFile streams a file part into the service's storage, at most
// Config.MaxFileBytes (413 beyond). Reading errors of r are 400
// invalid_body. The handler checks the activation first.
func (s *Service) ReceiveFile(r io.Reader) (*Upload, *httpx.Error) {
	t, err := s.store.Receive(r, s.cfg.MaxFileBytes)
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, blobstore.ErrTooLarge):
		return nil, httpx.ParamError(http.StatusRequestEntityTooLarge, httpx.CodePayloadTooLarge, ParamFile,
			"larger than %d bytes", s.cfg.MaxFileBytes)
	case errors.As(err, &mbe):
		return nil, httpx.Errorf(http.StatusRequestEntityTooLarge, httpx.CodePayloadTooLarge,
			"the body is larger than %d bytes", mbe.Limit)
	case err != nil && s.closing.Err() != nil:
		return nil, unavailable() // cut off by Close
	case errors.Is(err, blobstore.ErrRead):
		return nil, httpx.Errorf(http.StatusBadRequest, httpx.CodeInvalidBody, "reading the file part failed")
	case err != nil:
		return nil, s.internalErr(err)
	}
	return &Upload{temp: t}, nil
}

// SubmitRequest is a POST /SubmitImage. Empty strings mean absent form
// fields; the query flags are nil when absent.
type SubmitRequest struct {
	// File is the received file part; nil means none (422). Submit takes
	// it over: it is stored or discarded.
	File *Upload
	// FileName is the file part's file name (original_name).
	FileName string
	// Mode is the form field mode.
	Mode string
	// Preprocessing and Postprocessing are the query parameters, nil when
	// absent. A flag given must be "true" or "false" (any case): an empty
	// value (?preprocessing=) is 400 invalid_parameter like any other.
	Preprocessing, Postprocessing *string
	// PreprocessingConfig is the form field preprocessing_config.
	PreprocessingConfig string
}

// SubmitResponse is the answer of POST /SubmitImage.
type SubmitResponse struct {
	Status               string `json:"status"`
	ProcessID            string `json:"process_id"`
	Mode                 string `json:"mode"`
	PreprocessingEnabled string `json:"preprocessing_enabled"`
	Message              string `json:"message"`
}

// Submit validates a request and queues its job.
func (s *Service) Submit(req SubmitRequest) (*SubmitResponse, *httpx.Error) {
	defer req.File.Discard()
	if e := s.CheckActivated(); e != nil {
		return nil, e
	}
	if req.File == nil || req.File.temp == nil {
		return nil, httpx.ParamError(http.StatusUnprocessableEntity, httpx.CodeUnprocessable, ParamFile, "is required (a multipart file part)")
	}
	opts, e := parseOptions(req.Mode, req.Preprocessing, req.Postprocessing, req.PreprocessingConfig)
	if e != nil {
		return nil, e
	}
	cost, e := s.checkImage(req.File.temp.Path, opts)
	if e != nil {
		return nil, e
	}
	j := &job{id: httpx.NewUUID(), name: req.FileName, opts: opts, status: StatusQueued}
	j.input = "in-" + j.id
	if _, err := s.store.Commit(req.File.temp.Path, j.input); err != nil {
		return nil, s.internalErr(err)
	}
	req.File.temp = nil
	s.mu.Lock()
	s.jobs[j.id] = j
	if !s.enqueueLocked(j, cost) {
		delete(s.jobs, j.id)
		s.mu.Unlock()
		_ = s.store.Remove(j.input)
		return nil, unavailable()
	}
	s.mu.Unlock()
	s.started.Add(1)
	s.log.Info("job queued", "process_id", j.id, "mode", string(opts.mode))
	pre := "false"
	if opts.preprocessing {
		pre = "true"
	}
	return &SubmitResponse{Status: StatusProcessing, ProcessID: j.id, Mode: string(opts.mode),
		PreprocessingEnabled: pre, Message: SubmitMessage}, nil
}

// checkImage answers 404 invalid_file unless path starts as a JPEG or PNG
// whose header the engine can read, within the limits and the memory
// budget; it returns the image's cost in the queue's memory budget, in
// bytes (what decoding and removing its background under o hold, see
// work).
func (s *Service) checkImage(path string, o options) (int64, *httpx.Error) {
	invalid := func(format string, args ...any) *httpx.Error {
		e := httpx.Errorf(http.StatusNotFound, CodeInvalidFile, "file: "+format, args...)
		e.Parameter = ParamFile
		return e
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, s.internalErr(err)
	}
	defer f.Close()
	hdr, ok, err := imageio.ReadHeader(f)
	switch {
	case !ok:
		return 0, invalid("not a JPEG or PNG image")
	case err != nil:
		return 0, invalid("unreadable %s header", hdr.Format)
	case hdr.ColorModel == color.CMYKModel:
		return 0, invalid("CMYK JPEG is not supported")
	}
	w := s.work(hdr, o)
	err = s.cfg.Limits.Check(hdr.Width, hdr.Height)
	if err == nil {
		err = hdr.CheckBudget(w, s.cfg.MemoryBudget, s.cfg.BudgetName)
	}
	if err != nil {
		var re *imageio.RejectError
		if errors.As(err, &re) {
			return 0, invalid("%s", re.Detail)
		}
		return 0, invalid("size out of limits")
	}
	return hdr.MemoryCost(w), nil
}

// Background removal's memory, measured with runtime.MemStats on 4 and 16
// MP images with the CPU engine (matting.NewCPU): beside the decoded image
// it holds the matte, its unrefined copy, the subject's alpha and the
// composite (7 bytes a pixel), the spill-corrected foreground with
// postprocessing (4 more), and the analysis image and its planes (at most
// 1.5 MP, about 64 MiB); the result scaled down to MaxOutputLongSide is
// extra. The same model stands for a GPU engine (not measured there).
const (
	mattePerPixel       = 7
	spillPerPixel       = 4
	matteFixed    int64 = 64 << 20
)

// work is what removing the background of the image of hdr under o holds
// beside the decoded image.
func (s *Service) work(hdr imageio.Header, o options) imageio.Work {
	w := imageio.Work{PerPixel: mattePerPixel, Fixed: matteFixed}
	if o.postprocessing {
		w.PerPixel += spillPerPixel
	}
	if max(hdr.Width, hdr.Height) > s.cfg.MaxOutputLongSide {
		nw, nh := matting.FitLongSide(hdr.Width, hdr.Height, s.cfg.MaxOutputLongSide)
		w.Extra = imageio.ResizeBytes(nw, nh, false)
	}
	return w
}

// lookup validates id and returns its job. Called with s.mu held.
func (s *Service) lookupLocked(id string) (*job, *httpx.Error) {
	if !validUUID(id) {
		return nil, invalidParam(ParamProcessID, "must be a UUID (8-4-4-4-12 hexadecimal digits), got %q", clip(id))
	}
	j := s.jobs[id]
	if j == nil {
		return nil, jobNotFound(id)
	}
	return j, nil
}

// CheckResponse is the answer of GET /CheckImage/{process_id}.
type CheckResponse struct {
	Status       string `json:"status"`
	OriginalName string `json:"original_name"`
	Mode         string `json:"mode"`
	// ProcessingTime is in seconds, present only when completed.
	ProcessingTime *float64 `json:"processing_time,omitempty"`
	// Error is present only when failed.
	Error string `json:"error,omitempty"`
}

// Check reports a job's state (GET /CheckImage/{process_id}).
func (s *Service) Check(id string) (*CheckResponse, *httpx.Error) {
	if e := s.CheckActivated(); e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j, e := s.lookupLocked(id)
	if e != nil {
		return nil, e
	}
	r := &CheckResponse{Status: j.status, OriginalName: j.name, Mode: string(j.opts.mode)}
	switch j.status {
	case StatusCompleted:
		t := j.finishedAt.Sub(j.startedAt).Seconds()
		r.ProcessingTime = &t
	case StatusFailed:
		r.Error = j.errText
	}
	return r, nil
}

// Download is the outcome of GET /DownloadImage/{process_id}: either the
// job is still queued or processing (the handler answers a final HTTP 102)
// or File is the PNG.
type Download struct {
	// Processing is true while the job is queued or processing.
	Processing bool
	// File is the result PNG, open for reading; the caller closes it. It
	// stays readable if the job is removed meanwhile.
	File *os.File
	// Size is the file's length in bytes.
	Size int64
	// ModTime is when the job completed.
	ModTime time.Time
}

// Download returns a job's result. A failed job is 500 (the documented
// "Processing failed"), an unknown or removed one 404.
func (s *Service) Download(id string) (*Download, *httpx.Error) {
	if e := s.CheckActivated(); e != nil {
		return nil, e
	}
	s.mu.Lock()
	j, e := s.lookupLocked(id)
	if e != nil {
		s.mu.Unlock()
		return nil, e
	}
	status, result, errText, mod := j.status, j.result, j.errText, j.finishedAt
	s.mu.Unlock()
	switch status {
	case StatusQueued, StatusProcessing:
		return &Download{Processing: true}, nil
	case StatusFailed:
		return nil, httpx.Errorf(http.StatusInternalServerError, httpx.CodeInternal, "processing failed: %s", errText)
	}
	p, err := s.store.Path(result)
	if err != nil {
		return nil, s.internalErr(err)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, jobNotFound(id) // removed meanwhile
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, s.internalErr(err)
	}
	return &Download{File: f, Size: st.Size(), ModTime: mod}, nil
}

// RemoveResponse is the answer of DELETE /RemoveImage/{process_id}.
type RemoveResponse struct {
	Status         string `json:"status"`
	ProcessID      string `json:"process_id"`
	FilesDeleted   int    `json:"files_deleted"`
	PreviousStatus string `json:"previous_status"`
}

// Remove deletes a job and its files, cancelling it if it is queued or
// processing. PreviousStatus is processing, completed or failed, the
// documented values: a queued job reports processing. Later calls for the
// id are 404.
func (s *Service) Remove(id string) (*RemoveResponse, *httpx.Error) {
	if e := s.CheckActivated(); e != nil {
		return nil, e
	}
	s.mu.Lock()
	j, e := s.lookupLocked(id)
	if e != nil {
		s.mu.Unlock()
		return nil, e
	}
	delete(s.jobs, id)
	prev := j.status
	if prev == StatusQueued {
		// The documentation's previous_status takes processing, completed
		// or failed only: a job still waiting for a worker is processing.
		prev = StatusProcessing
	}
	if j.qjob != nil {
		j.qjob.Cancel() // a queued job never runs; a running engine is cancelled
	}
	var pending string
	if j.delay.Stop() { // its callback will not run to store or discard it
		pending = j.pending
		j.release()
	}
	j.pending = ""
	blobs := []string{j.input, j.result}
	s.mu.Unlock()

	n := 0
	if pending != "" {
		if err := os.Remove(pending); err == nil {
			n++
		}
	}
	for _, b := range blobs {
		if b == "" {
			continue
		}
		if p, err := s.store.Path(b); err == nil {
			if err := os.Remove(p); err == nil {
				n++
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, s.internalErr(err)
			}
		}
	}
	s.log.Info("job removed", "process_id", id, "previous_status", prev, "files_deleted", n)
	return &RemoveResponse{Status: "deleted", ProcessID: id, FilesDeleted: n, PreviousStatus: prev}, nil
}
