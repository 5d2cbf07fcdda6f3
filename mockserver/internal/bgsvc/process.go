package bgsvc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"os"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/resize"
)

// run processes j on a worker of the queue (ctx ends when the job is
// removed or the service closes), then ends it at once or after the
// ProcessingDelay, during which the worker is free again.
func (s *Service) run(ctx context.Context, j *job) {
	s.mu.Lock()
	if s.jobs[j.id] != j { // removed just before it started
		s.mu.Unlock()
		return
	}
	j.status, j.startedAt = StatusProcessing, s.now()
	s.mu.Unlock()

	tmp, procErr := s.process(ctx, j)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[j.id] != j { // removed meanwhile
		discard(tmp)
		return
	}
	finish := func() { s.finishLocked(j, tmp, procErr) }
	if s.cfg.ProcessingDelay <= 0 {
		finish()
		return
	}
	// Remove and Close stop the timer and discard j.pending themselves.
	// The delay keeps the job's place in the memory budget, as a slower
	// engine would; the worker takes the next job meanwhile.
	j.pending = tmp
	if j.qjob != nil {
		j.releaseBudget = j.qjob.HoldBudget()
	}
	j.delay = s.tracker.AfterFunc(s.cfg.ProcessingDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		j.pending = ""
		j.release()
		if s.jobs[j.id] != j {
			discard(tmp)
			return
		}
		finish()
	})
	if j.delay == nil { // closing
		j.pending = ""
		j.release()
		discard(tmp)
	}
}

// release gives back the memory budget j's delay held, if any.
func (j *job) release() {
	if j.releaseBudget != nil {
		j.releaseBudget()
	}
}

// finishLocked stores the result and ends j. Called with s.mu held.
func (s *Service) finishLocked(j *job, tmp string, procErr error) {
	j.finishedAt = s.now()
	if procErr == nil {
		name := "out-" + j.id + ".png"
		if _, err := s.store.Commit(tmp, name); err != nil {
			s.log.Error("storing a result", "process_id", j.id, "error", err)
			procErr = errors.New("storing the result failed")
		} else {
			j.result = name
		}
	}
	if procErr != nil {
		discard(tmp)
		j.status, j.errText = StatusFailed, procErr.Error()
		s.log.Info("job failed", "process_id", j.id, "error", j.errText)
		return
	}
	j.status = StatusCompleted
	s.log.Info("job completed", "process_id", j.id)
}

func discard(tmp string) {
	if tmp != "" {
		_ = os.Remove(tmp)
	}
}

// process runs the engine on j's input and returns the temporary PNG. The
// error's text is what /CheckImage reports: it holds no server paths.
func (s *Service) process(ctx context.Context, j *job) (string, error) {
	p, err := s.store.Path(j.input)
	if err != nil {
		return "", errors.New("input file unavailable")
	}
	f, err := os.Open(p)
	if err != nil {
		return "", errors.New("input file unavailable")
	}
	in, err := imageio.Decode(bufio.NewReaderSize(f, 1<<16), s.cfg.Limits)
	_ = f.Close()
	if err != nil {
		return "", fmt.Errorf("decoding the image failed: %w", err)
	}
	if ctx.Err() != nil {
		return "", errors.New("cancelled")
	}
	out, err := s.removeBackground(ctx, in.Pix, j.opts)
	if err != nil {
		if ctx.Err() != nil {
			return "", errors.New("cancelled")
		}
		return "", fmt.Errorf("background removal failed: %w", err)
	}
	tmp, err := s.store.CreateTemp()
	if err != nil {
		s.log.Error("creating a result file", "error", err)
		return "", errors.New("creating the result file failed")
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = imageio.Encode(bw, out, imageio.EncodeOptions{Format: imageio.FormatPNG})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		s.log.Error("writing a result file", "error", err)
		return "", errors.New("encoding the result failed")
	}
	return tmp.Name(), nil
}

// removeBackground mattes pix per o and returns the subject on
// transparency, scaled to the output limit. A panic of the remover fails
// the job instead of the server.
func (s *Service) removeBackground(ctx context.Context, pix *image.NRGBA, o options) (out *image.NRGBA, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("the engine panicked: %v", p)
		}
	}()
	mo := matting.Options{Mode: o.mode, SpillReduction: o.postprocessing}
	detect := true
	if o.preprocessing {
		mo.Preprocess = o.pre.denoise()
		detect = o.pre.detectFaces()
	}
	if o.mode == matting.ModePortrait && detect {
		for _, f := range s.detector.Detect(pix) {
			mo.Faces = append(mo.Faces, f.Box)
		}
	}
	// The remover composites itself when it can (the GPU engine, on the
	// device, reading the image and matte it kept there); otherwise this
	// is RemoveBackground and the CPU's matting.Composite.
	m, out, err := matting.RemoveAndComposite(ctx, s.cfg.Remover, pix, mo, matting.Background{Kind: matting.Transparent})
	if err != nil {
		return nil, err
	}
	if m == nil || m.Alpha == nil || m.Alpha.Rect != pix.Rect || out == nil || out.Rect != pix.Rect {
		return nil, errors.New("the engine returned no matte or composite of the input's size")
	}
	if w, h := out.Rect.Dx(), out.Rect.Dy(); max(w, h) > s.cfg.MaxOutputLongSide {
		nw, nh := matting.FitLongSide(w, h, s.cfg.MaxOutputLongSide)
		out = resize.Resize(out, nw, nh, resize.Lanczos3)
	}
	return out, nil
}
