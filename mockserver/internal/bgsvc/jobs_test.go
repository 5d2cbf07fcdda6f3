package bgsvc

import (
	"bytes"
	"context"
	"errors"
	"image"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/jobqueue"
)

func TestSubmitErrors(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, func(c *settings) { c.MaxFileBytes = 4096 })
	good := subjectPNG(t, 40, 30)
	tests := []struct {
		name   string
		data   []byte // nil: no file part
		req    SubmitRequest
		status int
		code   string
		param  string
	}{
		{name: "no file", status: http.StatusUnprocessableEntity, code: httpx.CodeUnprocessable, param: ParamFile},
		{name: "bad mode", data: good, req: SubmitRequest{Mode: "auto"}, status: 400, code: httpx.CodeInvalidParameter, param: ParamMode},
		{name: "bad preprocessing", data: good, req: SubmitRequest{Preprocessing: flag("on")}, status: 400, code: httpx.CodeInvalidParameter, param: ParamPreprocessing},
		{name: "empty preprocessing", data: good, req: SubmitRequest{Preprocessing: flag("")}, status: 400, code: httpx.CodeInvalidParameter, param: ParamPreprocessing},
		{name: "empty postprocessing", data: good, req: SubmitRequest{Postprocessing: flag("")}, status: 400, code: httpx.CodeInvalidParameter, param: ParamPostprocessing},
		{name: "bad postprocessing", data: good, req: SubmitRequest{Postprocessing: flag("yes")}, status: 400, code: httpx.CodeInvalidParameter, param: ParamPostprocessing},
		{name: "bad config", data: good, req: SubmitRequest{PreprocessingConfig: "{"}, status: 400, code: httpx.CodeInvalidParameter, param: ParamPreprocessingConfig},
		{name: "text file", data: []byte("hello, not an image"), status: 404, code: CodeInvalidFile, param: ParamFile},
		{name: "empty file", data: []byte{}, status: 404, code: CodeInvalidFile, param: ParamFile},
		{name: "png magic only", data: good[:12], status: 404, code: CodeInvalidFile, param: ParamFile},
		{name: "missing file wins over bad mode", req: SubmitRequest{Mode: "x"}, status: 422, code: httpx.CodeUnprocessable, param: ParamFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := tt.req
			if tt.data != nil {
				req.File = upload(t, s, tt.data)
			}
			_, e := s.Submit(req)
			requireErr(t, e, tt.status, tt.code, tt.param)
		})
	}

	_, e := s.ReceiveFile(bytes.NewReader(make([]byte, 4097)))
	requireErr(t, e, http.StatusRequestEntityTooLarge, httpx.CodePayloadTooLarge, ParamFile)
	_, e = s.ReceiveFile(errReader{})
	requireErr(t, e, http.StatusBadRequest, httpx.CodeInvalidBody, "")
	waitIdle(t, s)
	assert.Zero(t, fileCount(t, s.cfg.WorkDir+"/.tmp"), "refused files are not kept")
	assert.Zero(t, fileCount(t, s.cfg.WorkDir))
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestInvalidAndUnknownIDs(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, nil)
	for _, id := range []string{"", "abc", "123e4567e89b12d3a456426614174000"} {
		_, e := s.Check(id)
		requireErr(t, e, 400, httpx.CodeInvalidParameter, ParamProcessID)
		_, e = s.Download(id)
		requireErr(t, e, 400, httpx.CodeInvalidParameter, ParamProcessID)
		_, e = s.Remove(id)
		requireErr(t, e, 400, httpx.CodeInvalidParameter, ParamProcessID)
	}
	id := httpx.NewUUID()
	_, e := s.Check(id)
	requireErr(t, e, 404, httpx.CodeNotFound, ParamProcessID)
	_, e = s.Download(id)
	requireErr(t, e, 404, httpx.CodeNotFound, ParamProcessID)
	_, e = s.Remove(id)
	requireErr(t, e, 404, httpx.CodeNotFound, ParamProcessID)
}

// TestJobLifecycle walks one job through processing (held by the delay on
// the fake clock) to completed, download and removal.
func TestJobLifecycle(t *testing.T) {
	t.Parallel()
	s, fc := newService(t, func(c *settings) { c.ProcessingDelay = 3 * time.Second })
	in := subjectPNG(t, 64, 48)
	r := submit(t, s, in, SubmitRequest{FileName: "shoe.png", Preprocessing: flag("true"), Postprocessing: flag("true")})
	assert.Equal(t, StatusProcessing, r.Status)
	assert.True(t, validUUID(r.ProcessID))
	assert.Equal(t, ModeGeneral, r.Mode)
	assert.Equal(t, "true", r.PreprocessingEnabled)
	assert.Equal(t, SubmitMessage, r.Message)

	waitIdle(t, s)
	c := check(t, s, r.ProcessID)
	assert.Equal(t, &CheckResponse{Status: StatusProcessing, OriginalName: "shoe.png", Mode: ModeGeneral}, c)
	d, e := s.Download(r.ProcessID)
	require.Nil(t, e)
	assert.True(t, d.Processing)
	assert.Nil(t, d.File)

	fc.Advance(3 * time.Second)
	waitIdle(t, s)
	c = check(t, s, r.ProcessID)
	assert.Equal(t, StatusCompleted, c.Status)
	require.NotNil(t, c.ProcessingTime)
	assert.InDelta(t, 3.0, *c.ProcessingTime, 1e-9)
	assert.Empty(t, c.Error)

	img := download(t, s, r.ProcessID)
	assert.Equal(t, image.Rect(0, 0, 64, 48), img.Bounds())
	_, _, _, aCorner := img.At(1, 1).RGBA()
	_, _, _, aCentre := img.At(32, 24).RGBA()
	assert.Zero(t, aCorner, "backdrop is transparent")
	assert.Equal(t, uint32(0xffff), aCentre, "subject is opaque")

	rm, e := s.Remove(r.ProcessID)
	require.Nil(t, e)
	assert.Equal(t, &RemoveResponse{Status: "deleted", ProcessID: r.ProcessID, FilesDeleted: 2, PreviousStatus: StatusCompleted}, rm)
	_, e = s.Check(r.ProcessID)
	requireErr(t, e, 404, httpx.CodeNotFound, ParamProcessID)
	_, e = s.Download(r.ProcessID)
	requireErr(t, e, 404, httpx.CodeNotFound, ParamProcessID)
	_, e = s.Remove(r.ProcessID)
	requireErr(t, e, 404, httpx.CodeNotFound, ParamProcessID)
	assert.Zero(t, fileCount(t, s.cfg.WorkDir))
}

// TestRemoveDuringTheDelayDeletesTheResult: a job whose engine has
// returned but whose ProcessingDelay runs already has its result on disk;
// removing it deletes that file too (it stayed in the store's temporary
// directory, and files_deleted said 1).
func TestRemoveDuringTheDelayDeletesTheResult(t *testing.T) {
	t.Parallel()
	s, fc := newService(t, func(c *settings) { c.ProcessingDelay = time.Minute })
	r := submit(t, s, subjectPNG(t, 64, 48), SubmitRequest{FileName: "a.png"})
	waitIdle(t, s)
	require.Equal(t, 1, fileCount(t, filepath.Join(s.cfg.WorkDir, ".tmp")), "the result waits out the delay")

	rm, e := s.Remove(r.ProcessID)
	require.Nil(t, e)
	assert.Equal(t, 2, rm.FilesDeleted, "input and pending result")
	assert.Equal(t, StatusProcessing, rm.PreviousStatus)
	fc.Advance(time.Minute)
	waitIdle(t, s)
	assert.Zero(t, fileCount(t, s.cfg.WorkDir))
	assert.Zero(t, fileCount(t, filepath.Join(s.cfg.WorkDir, ".tmp")))
}

// TestCloseDiscardsResultsInTheDelay: Close stops the delays, so the
// results they would have stored are discarded, not left behind.
func TestCloseDiscardsResultsInTheDelay(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, func(c *settings) { c.ProcessingDelay = time.Minute })
	submit(t, s, subjectPNG(t, 64, 48), SubmitRequest{FileName: "a.png"})
	waitIdle(t, s)
	require.Equal(t, 1, fileCount(t, filepath.Join(s.cfg.WorkDir, ".tmp")))
	s.Close()
	assert.Zero(t, fileCount(t, filepath.Join(s.cfg.WorkDir, ".tmp")))
}

// TestQueueAndRemoval: with the one worker held by a running engine,
// later jobs stay queued; removing jobs in each state cancels them and
// frees the worker. The ProcessingDelay does not hold a worker.
func TestQueueAndRemoval(t *testing.T) {
	t.Parallel()
	gate := &gateRemover{started: make(chan struct{}), release: make(chan struct{})}
	s, fc := newService(t, func(c *settings) { c.Workers = 1; c.ProcessingDelay = time.Second; c.Remover = gate })
	in := subjectPNG(t, 40, 30)
	a := submit(t, s, in, SubmitRequest{})
	<-gate.started // a holds the worker
	b := submit(t, s, in, SubmitRequest{Mode: "portrait"})
	c := submit(t, s, in, SubmitRequest{})
	assert.Equal(t, StatusProcessing, check(t, s, a.ProcessID).Status)
	assert.Equal(t, StatusQueued, check(t, s, b.ProcessID).Status)
	assert.Equal(t, ModePortrait, check(t, s, b.ProcessID).Mode)
	d, e := s.Download(b.ProcessID)
	require.Nil(t, e)
	assert.True(t, d.Processing, "a queued job answers 102 too")

	rm, e := s.Remove(b.ProcessID)
	require.Nil(t, e)
	assert.Equal(t, StatusProcessing, rm.PreviousStatus, "previous_status takes the documented values only")
	assert.Equal(t, 1, rm.FilesDeleted)

	rm, e = s.Remove(a.ProcessID) // its engine is cancelled
	require.Nil(t, e)
	assert.Equal(t, StatusProcessing, rm.PreviousStatus)
	assert.Equal(t, 1, rm.FilesDeleted)

	close(gate.release)
	waitIdle(t, s) // c got the worker, its engine ran; it waits for the delay
	assert.Equal(t, StatusProcessing, check(t, s, c.ProcessID).Status)
	rm2 := submit(t, s, in, SubmitRequest{}) // the worker is free during c's delay
	waitIdle(t, s)
	assert.Equal(t, StatusProcessing, check(t, s, rm2.ProcessID).Status)
	fc.Advance(time.Second)
	waitIdle(t, s)
	assert.Equal(t, StatusCompleted, check(t, s, c.ProcessID).Status)
	assert.Equal(t, StatusCompleted, check(t, s, rm2.ProcessID).Status)
	assert.Equal(t, jobqueue.Stats{}, s.queue.Stats())
}

// gateRemover holds the first job's engine until release is closed (or
// its context ends); the others run the CPU engine at once.
type gateRemover struct {
	once             sync.Once
	started, release chan struct{}
}

func (g *gateRemover) RemoveBackground(ctx context.Context, pix *image.NRGBA, o matting.Options) (*matting.Matte, error) {
	first := false
	g.once.Do(func() { first = true; close(g.started) })
	if first {
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return matting.NewCPU().RemoveBackground(ctx, pix, o)
}

// blockingRemover blocks until its context ends, to remove a job while its
// engine runs.
type blockingRemover struct{ started chan struct{} }

func (b blockingRemover) RemoveBackground(ctx context.Context, _ *image.NRGBA, _ matting.Options) (*matting.Matte, error) {
	close(b.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestRemoveCancelsRunningEngine(t *testing.T) {
	t.Parallel()
	br := blockingRemover{started: make(chan struct{})}
	s, _ := newService(t, func(c *settings) { c.Workers = 1; c.Remover = br })
	r := submit(t, s, subjectPNG(t, 40, 30), SubmitRequest{})
	<-br.started
	rm, e := s.Remove(r.ProcessID)
	require.Nil(t, e)
	assert.Equal(t, StatusProcessing, rm.PreviousStatus)
	waitIdle(t, s) // the engine returned
	assert.Equal(t, jobqueue.Stats{}, s.queue.Stats(), "the worker is free again")
	assert.Zero(t, fileCount(t, s.cfg.WorkDir))
}

type failingRemover struct{}

func (failingRemover) RemoveBackground(context.Context, *image.NRGBA, matting.Options) (*matting.Matte, error) {
	return nil, errors.New("out of GPU memory")
}

type panickingRemover struct{}

func (panickingRemover) RemoveBackground(context.Context, *image.NRGBA, matting.Options) (*matting.Matte, error) {
	panic("boom")
}

func TestFailedJobs(t *testing.T) {
	t.Parallel()
	good := subjectPNG(t, 40, 30)
	tests := []struct {
		name    string
		remover matting.Remover
		data    []byte
		wantErr string
	}{
		{name: "truncated png", data: good[:len(good)/2], wantErr: "decoding the image failed"},
		{name: "engine error", remover: failingRemover{}, data: good, wantErr: "out of GPU memory"},
		{name: "engine panic", remover: panickingRemover{}, data: good, wantErr: "panicked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newService(t, func(c *settings) { c.Remover = tt.remover })
			r := submit(t, s, tt.data, SubmitRequest{})
			waitIdle(t, s)
			c := check(t, s, r.ProcessID)
			assert.Equal(t, StatusFailed, c.Status)
			assert.Contains(t, c.Error, tt.wantErr)
			assert.Nil(t, c.ProcessingTime)
			assert.NotContains(t, c.Error, s.cfg.WorkDir)
			_, e := s.Download(r.ProcessID)
			requireErr(t, e, http.StatusInternalServerError, httpx.CodeInternal, "")
			assert.Contains(t, e.Message, tt.wantErr)
			rm, e := s.Remove(r.ProcessID)
			require.Nil(t, e)
			assert.Equal(t, StatusFailed, rm.PreviousStatus)
			assert.Equal(t, 1, rm.FilesDeleted)
		})
	}
}

// TestModesAndFlags runs the engine with every mode and processing flag:
// each result has the input's size, a transparent backdrop and an opaque
// subject.
func TestModesAndFlags(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, nil)
	in := subjectPNG(t, 60, 45)
	reqs := []SubmitRequest{
		{Mode: "general"},
		{Mode: "portrait"},
		{Mode: "portrait", Preprocessing: flag("true"), PreprocessingConfig: `{"detect_faces": false}`},
		{Mode: "general", Preprocessing: flag("true"), Postprocessing: flag("true"), PreprocessingConfig: `{"denoise": false}`},
		{Mode: "general", Preprocessing: flag("false"), PreprocessingConfig: `{"unknown": 1}`},
	}
	for _, req := range reqs {
		r := submit(t, s, in, req)
		assert.Equal(t, req.Mode, r.Mode)
		assert.Equal(t, req.Preprocessing != nil && strings.ToLower(*req.Preprocessing) == "true", r.PreprocessingEnabled == "true")
		waitIdle(t, s)
		require.Equal(t, StatusCompleted, check(t, s, r.ProcessID).Status, "%+v", req)
		img := download(t, s, r.ProcessID)
		assert.Equal(t, image.Rect(0, 0, 60, 45), img.Bounds())
		_, _, _, a := img.At(0, 0).RGBA()
		assert.Zero(t, a, "%+v", req)
	}
}

func TestOutputLongSideLimit(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, func(c *settings) { c.MaxOutputLongSide = 32 })
	r := submit(t, s, subjectPNG(t, 64, 48), SubmitRequest{})
	waitIdle(t, s)
	require.Equal(t, StatusCompleted, check(t, s, r.ProcessID).Status)
	assert.Equal(t, image.Rect(0, 0, 32, 24), download(t, s, r.ProcessID).Bounds())
}

func TestPixelLimitIsInvalidFile(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, func(c *settings) { c.Limits.PixelsBelow = 1000 })
	_, e := s.Submit(SubmitRequest{File: upload(t, s, subjectPNG(t, 40, 30))})
	requireErr(t, e, 404, CodeInvalidFile, ParamFile)
	assert.True(t, strings.HasPrefix(e.Message, "file: "), e.Message)
}

// TestConcurrentSubmissions: many jobs at once all complete with distinct
// ids and results of their own size.
func TestConcurrentSubmissions(t *testing.T) {
	t.Parallel()
	s, _ := newService(t, func(c *settings) { c.Workers = 3 })
	const n = 50
	ids := make([]string, n)
	inputs := make([][]byte, n)
	for i := range inputs {
		inputs[i] = subjectPNG(t, 40+i, 30)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, e := s.ReceiveFile(bytes.NewReader(inputs[i]))
			if e != nil {
				return
			}
			r, e := s.Submit(SubmitRequest{File: u, FileName: "f.png"})
			if e == nil {
				ids[i] = r.ProcessID
			}
		}()
	}
	wg.Wait()
	waitIdle(t, s)
	seen := map[string]bool{}
	for i, id := range ids {
		require.NotEmpty(t, id, "submission %d", i)
		require.False(t, seen[id])
		seen[id] = true
		require.Equal(t, StatusCompleted, check(t, s, id).Status)
		assert.Equal(t, 40+i, download(t, s, id).Bounds().Dx())
	}
}

func TestCloseStopsQueuedAndRunningJobs(t *testing.T) {
	t.Parallel()
	br := blockingRemover{started: make(chan struct{})}
	s, _ := newService(t, func(c *settings) { c.Workers = 1; c.Remover = br })
	a := submit(t, s, subjectPNG(t, 40, 30), SubmitRequest{})
	submit(t, s, subjectPNG(t, 40, 30), SubmitRequest{})
	<-br.started
	s.Close() // returns: the running engine was cancelled
	c := check(t, s, a.ProcessID)
	assert.Equal(t, StatusFailed, c.Status)
	_, e := s.Submit(SubmitRequest{File: upload(t, s, subjectPNG(t, 40, 30))})
	requireErr(t, e, http.StatusServiceUnavailable, httpx.CodeUnavailable, "")
}

// flag is a query flag given with value v.
func flag(v string) *string { return &v }
