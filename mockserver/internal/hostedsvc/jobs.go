package hostedsvc

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/resize"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
	"github.com/pfcsdk/pfc-go/mockserver/internal/webhooksend"
)

// Built-in preset groups (values of the preset parameter).
var builtinPresets = []string{"Universal", "none", "Pro", "School and Sports", "Attractions and Cruise Lines"}

func isBuiltinPreset(name string) bool {
	for _, b := range builtinPresets {
		if b == name {
			return true
		}
	}
	return false
}

type job struct {
	id        string
	account   string
	q         *pfcQuery
	fileType  string // the /pfc fileType
	upType    string // the upload's fileType
	input     string // blob name of the job's own link to the upload
	inputSize int64
	bgInput   string // blob name of the background image link, if any
	preset    string // effective preset name
	// presetInput is the blob name of the job's own link to its custom
	// preset file, read only while a worker processes the job (so no job
	// holds the file in memory while it waits or after it ended);
	// presetSHA is that file's SHA-256, for the cache key. presetErr says
	// why the preset is unusable (REJECTED), "" when it is fine.
	presetInput string
	presetSHA   [sha256.Size]byte
	presetErr   string
	base        string
	cacheKey    string

	status     string
	statusText string
	code       int
	createdAt  time.Time
	updatedAt  time.Time
	startedAt  time.Time
	timeTaken  *float64
	dims       *dimensions
	usage      *usage
	detection  *detectionData // full; shown only if requested
	crop       *cropRect
	result     string // blob name of the corrected file
	resultName string // file name in the public URL
	mime       string
	corrected  string // correctedFile URL
	record     []byte // the terminal record, sent as is by /status and webhooks
	delay      *activity.Timer
	expiry     *activity.Timer
}

// outcome is what processing produced, applied to the job by finish.
type outcome struct {
	status      string
	code        int
	text        string
	dims        *dimensions
	usage       usage
	detection   *detectionData
	crop        *cropRect
	tmpResult   string // temporary file holding the result (images)
	passthrough bool   // the result is the input itself (videos)
	ext         string // result extension without dot
	mime        string
}

func (o *outcome) discard() {
	if o.tmpResult != "" {
		_ = os.Remove(o.tmpResult)
	}
}

func rejected(code int, format string, args ...any) *outcome {
	return &outcome{status: StatusRejected, code: code, text: fmt.Sprintf(format, args...)}
}

func failed(code int, format string, args ...any) *outcome {
	return &outcome{status: StatusFailed, code: code, text: fmt.Sprintf(format, args...)}
}

// StartResponse is the answer of GET /pfc.
type StartResponse struct {
	StatusEndpoint string `json:"statusEndpoint"` // <base>/v2/status/<jobID>
}

// StartJob parses and validates a /pfc query and starts a job: from the
// cache (completed at once) or queued for the workers. Validation errors
// (400), including a plain-http webhookUrl, come before anything else; an
// unknown fileKey or bgFileKey is 404.
func (s *Service) StartJob(account string, q url.Values, base string) (*StartResponse, *httpx.Error) {
	pq, aerr := parsePFC(q)
	if aerr != nil {
		return nil, aerr
	}
	j := &job{id: newJobID(), account: account, q: pq, base: base, fileType: pq.fileType, preset: pq.req.Preset}

	var fileSHA, bgSHA [sha256.Size]byte
	s.mu.Lock()
	u, aerr := s.usableUpload(account, pq.fileKey, "fileKey")
	if aerr != nil {
		s.mu.Unlock()
		return nil, aerr
	}
	var bg *upload
	if b := pq.req.Background; b != nil && b.Mode == BackgroundImage {
		if bg, aerr = s.usableUpload(account, pq.bgFileKey, "bgFileKey"); aerr != nil {
			s.mu.Unlock()
			return nil, aerr
		}
	}
	// The job gets its own links to its inputs and preset file: a
	// re-upload, the upload's expiry or the preset's deletion does not
	// change what it processes.
	j.input = "in-" + j.id
	err := s.linkBlob(u.blob, j.input)
	if err == nil && bg != nil {
		j.bgInput = "bg-" + j.id
		err = s.linkBlob(bg.blob, j.bgInput)
		bgSHA = bg.sha
	}
	if err == nil && !isBuiltinPreset(j.preset) {
		j.presetSHA, j.presetErr, err = s.linkPreset(account, j.preset, "ps-"+j.id)
		if j.presetErr == "" {
			j.presetInput = "ps-" + j.id
		}
	}
	j.upType, j.inputSize, fileSHA = u.fileType, u.size, u.sha
	s.mu.Unlock()
	if err != nil {
		s.removeInputs(j)
		if s.closing() { // the data directory is going away
			return nil, httpx.Unavailable()
		}
		return nil, s.internalErr(err)
	}
	if j.presetErr == "" {
		j.cacheKey = cacheKey(j, fileSHA, bgSHA)
	}

	now := s.now()
	j.status, j.createdAt, j.updatedAt = StatusPending, now, now
	statusEndpoint := base + "/v2/status/" + j.id

	s.mu.Lock()
	if pq.cache && j.cacheKey != "" {
		if e := s.cache[j.cacheKey]; e != nil {
			s.jobs[j.id] = j
			s.completeFromCacheLocked(j, e)
			s.mu.Unlock()
			s.started.Add(1)
			return &StartResponse{StatusEndpoint: statusEndpoint}, nil
		}
	}
	s.jobs[j.id] = j
	s.mu.Unlock()
	if !s.enqueue(j, s.jobCost(j)) {
		s.mu.Lock()
		delete(s.jobs, j.id)
		s.mu.Unlock()
		s.removeInputs(j)
		return nil, httpx.Unavailable()
	}
	s.started.Add(1)
	s.log.Info("job queued", "job", j.id, "fileKey", pq.fileKey, "fileType", j.fileType, "preset", j.preset, "ignored", ignoredNames(pq.ignored))
	return &StartResponse{StatusEndpoint: statusEndpoint}, nil
}

// ignoredNames lists the parameters a job ignores, for the log.
func ignoredNames(ig []pfcdoc.Ignored) []string {
	names := make([]string, len(ig))
	for i, x := range ig {
		names[i] = x.Name
	}
	return names
}

// usableUpload returns the uploaded file behind key. Called with s.mu held.
func (s *Service) usableUpload(account, key, param string) (*upload, *httpx.Error) {
	u := s.uploads[key]
	if u == nil || u.account != account {
		return nil, notFound(param, "%s: no upload with this key (unknown or expired)", param)
	}
	if !u.uploaded {
		return nil, notFound(param, "%s: nothing has been uploaded to this key's URL yet", param)
	}
	return u, nil
}

func (s *Service) linkBlob(src, dst string) error {
	p, err := s.store.Path(src)
	if err != nil {
		return err
	}
	_, err = s.store.Link(p, dst)
	return err
}

func (s *Service) readBlob(name string, limit int64) ([]byte, error) {
	p, err := s.store.Path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

func (s *Service) removeInputs(j *job) {
	for _, b := range []string{j.input, j.bgInput, j.presetInput} {
		if b != "" {
			_ = s.store.Remove(b)
		}
	}
}

// jobCost is what j counts against the memory budget, in bytes: the
// pixels of its image (by its header) and, when the job resizes, of the
// resized image too (a small image upscaled to 14000×14000 costs what a
// large one does), plus those of its background image, at
// imageio.BudgetPixelBytes each (at most MaxInt64); 0 for what is not a
// readable JPEG or PNG (the job fails its checks before decoding).
func (s *Service) jobCost(j *job) int64 {
	var px int64
	if p, err := s.store.Path(j.input); err == nil {
		if hdr, ok := imageio.FileHeader(p); ok {
			px += resizeCost(hdr, j.q.req.Resize)
		}
	}
	if j.bgInput != "" {
		if p, err := s.store.Path(j.bgInput); err == nil {
			hdr, _ := imageio.FileHeader(p)
			px += hdr.Cost()
		}
	}
	return pixelBytes(px)
}

// pixelBytes is px pixels at imageio.BudgetPixelBytes each, at most
// MaxInt64: a PNG header may claim a billion by a billion pixels.
func pixelBytes(px int64) int64 {
	if px > math.MaxInt64/imageio.BudgetPixelBytes {
		return math.MaxInt64
	}
	return px * imageio.BudgetPixelBytes
}

// resizeCost is what an image costs under the resize r: its own cost
// (imageio.Header.Cost), plus the pixels of the resized image when the
// size changes.
func resizeCost(hdr imageio.Header, r ResizeRequest) int64 {
	cost := hdr.Cost()
	plan, err := resize.PlanSize(hdr.Width, hdr.Height, resize.Request{Width: r.Width, Height: r.Height,
		Long: r.Long, Short: r.Short, Scale: r.Scale, Mode: resize.Mode(r.Mode)})
	if err == nil && plan.Resize {
		cost += int64(plan.Width) * int64(plan.Height)
	}
	return cost
}

// runJob processes a job on a worker; ctx ends when the server closes.
func (s *Service) runJob(ctx context.Context, j *job) {
	s.mu.Lock()
	now := s.now()
	j.status, j.startedAt, j.updatedAt = StatusProcessing, now, now
	s.mu.Unlock()
	s.log.Info("job processing", "job", j.id)

	out := s.process(ctx, j)

	s.mu.Lock()
	defer s.mu.Unlock()
	if out.status == StatusRejected || s.cfg.ProcessingDelay <= 0 {
		s.finishLocked(j, out)
		return
	}
	j.delay = s.tracker.AfterFunc(s.cfg.ProcessingDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.finishLocked(j, out)
	})
	if j.delay == nil { // closing
		out.discard()
		s.removeInputs(j)
	}
}

// finishLocked applies out to j: the job becomes terminal, its result is
// published, the record is frozen, retention starts, and the webhook goes
// out. Called with s.mu held.
func (s *Service) finishLocked(j *job, out *outcome) {
	if s.jobs[j.id] != j {
		out.discard()
		s.removeInputs(j)
		return
	}
	now := s.now()
	if out.status == StatusCompleted {
		j.resultName = "corrected." + out.ext
		j.result = "r-" + j.id + "." + out.ext
		var err error
		if out.passthrough {
			err = s.linkBlob(j.input, j.result)
		} else {
			_, err = s.store.Commit(out.tmpResult, j.result)
		}
		if err != nil {
			out.discard()
			out = failed(JobCodeProcessingFailed, "%s", s.diskFailure(j, textStoringFailed, err))
			j.result = ""
		}
	}
	s.removeInputs(j)
	j.status, j.code, j.statusText, j.updatedAt = out.status, out.code, out.text, now
	taken := now.Sub(j.startedAt).Seconds()
	j.timeTaken = &taken
	j.dims = out.dims
	u := out.usage
	if u.Size == "" && out.dims != nil {
		u.Size = sizeClass(out.dims.Width, out.dims.Height)
	}
	j.usage = &u
	j.detection, j.crop = out.detection, out.crop
	j.mime = out.mime
	if j.status == StatusCompleted {
		j.corrected = j.base + FilesRoute + j.id + "/" + j.resultName
		if j.cacheKey != "" {
			s.storeCacheLocked(j)
		}
	}
	s.publishLocked(j)
	s.log.Info("job finished", "job", j.id, "status", string(j.status), "code", j.code, "statusText", j.statusText)
}

// publishLocked freezes the record, starts retention and sends the
// webhook. Called with s.mu held.
func (s *Service) publishLocked(j *job) {
	rec, err := httpx.Marshal(s.recordLocked(j))
	if err != nil {
		// record has only marshalable fields.
		rec = []byte(`{"_id":"` + j.id + `","status":"FAILED"}`)
	}
	j.record = rec
	j.expiry = s.tracker.AfterFunc(s.cfg.Retention, func() { s.expireJob(j) })
	if hook := j.q.webhookURL; hook != "" && (j.status == StatusCompleted || j.status == StatusFailed) {
		s.webhook.Send(webhooksend.Delivery{URL: hook, Secret: []byte(j.account), EventID: "evt_" + j.id, Body: j.record})
	}
}

func (s *Service) expireJob(j *job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[j.id] != j {
		return
	}
	delete(s.jobs, j.id)
	if j.result != "" {
		_ = s.store.Remove(j.result)
	}
	s.log.Info("job expired", "job", j.id)
}

// recordLocked builds the job record. Called with s.mu held.
func (s *Service) recordLocked(j *job) record {
	rec := record{
		ID: j.id, Status: j.status, StatusText: j.statusText, Code: j.code,
		CreatedAt: Timestamp{Time: j.createdAt}, UpdatedAt: Timestamp{Time: j.updatedAt},
	}
	if !terminal(j.status) {
		return rec
	}
	rec.TimeTaken = j.timeTaken
	rec.Usage = j.usage
	rec.OriginalDimensions = j.dims
	if j.status == StatusCompleted {
		rec.CorrectedFile = j.corrected
		ai := true
		rec.AIServer = &ai
		if j.q.req.IncludeDetectionData {
			rec.DetectionData = j.detection
		}
		rec.CropRect = j.crop
	}
	return rec
}

// JobView is what GET /status needs to answer.
type JobView struct {
	Status        string // the job's state
	Record        []byte // the JSON record, as /status and webhooks send it
	CorrectedFile string // the result URL once COMPLETED
}

// JobStatus returns the record of a job of account (GET /status/{jobID}).
func (s *Service) JobStatus(account, id string) (*JobView, *httpx.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[id]
	if j == nil || j.account != account {
		return nil, notFound("", "job %s not found (unknown, or deleted after the retention period)", id)
	}
	rec := j.record
	if rec == nil {
		var err error
		if rec, err = httpx.Marshal(s.recordLocked(j)); err != nil {
			return nil, s.internalErr(err)
		}
	}
	return &JobView{Status: j.status, Record: rec, CorrectedFile: j.corrected}, nil
}

// ResultFile is an open corrected file.
type ResultFile struct {
	*os.File
	Name     string    // the file name in the public URL
	MIMEType string    // its Content-Type
	ModTime  time.Time // when the job ended
}

// OpenResult opens the corrected file of job id, published as name. No
// credentials are needed: the URL is the secret.
func (s *Service) OpenResult(id, name string) (*ResultFile, *httpx.Error) {
	s.mu.Lock()
	j := s.jobs[id]
	if j == nil || j.status != StatusCompleted || j.resultName != name || j.result == "" {
		s.mu.Unlock()
		return nil, notFound("", "file not found (unknown, or deleted after the retention period)")
	}
	p, err := s.store.Path(j.result)
	mime, mod := j.mime, j.updatedAt
	s.mu.Unlock()
	if err != nil {
		return nil, s.internalErr(err)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, notFound("", "file not found (unknown, or deleted after the retention period)")
	}
	return &ResultFile{File: f, Name: name, MIMEType: mime, ModTime: mod}, nil
}
