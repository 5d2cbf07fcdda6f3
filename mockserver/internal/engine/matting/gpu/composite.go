package gpu

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
)

// Shadow modes of the composite_back kernel (SHADOW_* in kernels.cu).
const (
	shadowNone  = 0 // no shadow
	shadowShift = 1 // the subject alpha shifted, × opacity (hard, small soft)
	shadowPlane = 2 // a reduced plane enlarged bilinearly, × opacity
)

// composition is one Composite call: its inputs and what the CPU prepares
// before the device job (the background's plan or scene, the shadow's
// recipe). It runs as one job on the worker (run).
type composition struct {
	fg, colours *image.NRGBA
	matte       []uint8 // nil: a fully opaque subject
	// devFg, devColours and devMatte are device copies of fg, colours
	// and matte that the run already holds (0: uploaded)
	devFg, devColours, devMatte devicePtr
	w, h                        int
	kind                        matting.BackgroundKind // as gpuComposite says
	colour                      color.NRGBA            // Color, and Image without an image

	// src and cover: an Image background (src nil: the solid colour)
	src   *image.NRGBA
	cover matting.CoverPlan
	// scene: a Generative background
	scene *matting.Scene
	// shadow: ShadowNone where none is drawn; drop for soft and hard
	shadow matting.Shadow
	drop   matting.DropShadow
}

// newComposition prepares the composite of fg (contiguous, checked by
// gpuComposite) as kind.
func newComposition(fg *image.NRGBA, m *matting.Matte, bg matting.Background, kind matting.BackgroundKind) *composition {
	w, h := fg.Rect.Dx(), fg.Rect.Dy()
	c := &composition{fg: fg, colours: fg, w: w, h: h, kind: kind, colour: bg.Color}
	if m != nil {
		c.matte = m.Alpha.Pix[:w*h]
		if m.Foreground != nil && m.Foreground.Rect == fg.Rect {
			c.colours = m.Foreground
		}
	}
	switch kind {
	case matting.Image:
		if bg.Image != nil && !bg.Image.Bounds().Empty() {
			c.src = matting.CoverSource(bg.Image)
			c.cover = matting.PlanCover(c.src.Rect.Dx(), c.src.Rect.Dy(), w, h)
		}
	case matting.Generative:
		sc := matting.GenerateScene(bg.Prompt, w, h)
		c.scene = &sc
	}
	if kind == matting.Color || kind == matting.Image {
		switch bg.Shadow {
		case matting.ShadowSoft, matting.ShadowHard:
			c.shadow = bg.Shadow
			c.drop, _ = matting.DropShadowFor(bg.Shadow, w, h)
		case matting.ShadowFloating:
			c.shadow = bg.Shadow
		}
	}
	return c
}

// run queues the composite into out, in scratch buffers of s. Where a
// shadow needs its reduced plane on the CPU (a soft drop shadow's blur,
// the floating shadow's ellipse), it downloads, waits for the stream and
// computes it on the worker's goroutine (at most 1024×1024 values).
func (c *composition) run(s *scratch, out []byte) error {
	wk := s.w
	n := c.w * c.h
	var err error
	dfg := c.devFg
	if dfg == 0 {
		if dfg, err = s.upload(c.fg.Pix[:4*n]); err != nil {
			return err
		}
	}
	dcol := dfg
	switch {
	case c.devColours != 0:
		dcol = c.devColours
	case c.colours != c.fg:
		if dcol, err = s.upload(c.colours.Pix[:4*n]); err != nil {
			return err
		}
	}
	dm := c.devMatte
	if dm == 0 && c.matte != nil {
		if dm, err = s.upload(c.matte); err != nil {
			return err
		}
	}
	dout, err := s.alloc(uint64(4 * n))
	if err != nil {
		return err
	}
	switch {
	case c.kind == matting.Transparent:
		err = wk.launch(kCompositeTransparent, int64(n), dfg, dcol, dm, n, dout)
	case c.kind == matting.Color && c.shadow == matting.ShadowNone:
		k := c.colour
		err = wk.launch(kCompositeColor, int64(n), dfg, dcol, dm, n, int(k.R), int(k.G), int(k.B), dout)
	default:
		err = c.runBack(s, dfg, dcol, dm, dout)
	}
	if err != nil {
		return err
	}
	return wk.download(out, dout)
}

// runBack queues the background, the shadow and composite_back.
func (c *composition) runBack(s *scratch, dfg, dcol, dm, dout devicePtr) error {
	wk := s.w
	var back devicePtr
	var err error
	switch {
	case c.src != nil:
		back, err = c.runCover(s)
	case c.scene != nil:
		back, err = c.runScene(s)
	}
	if err != nil {
		return err
	}
	// the shadow's parameter block (struct back_shadow in kernels.cu)
	var sp struct{ mode, dx, dy, opacity, pw, ph, f int32 }
	var plane *matting.ShadowPlane
	switch c.shadow {
	case matting.ShadowSoft, matting.ShadowHard:
		sp.dx, sp.dy = int32(c.drop.DX), int32(c.drop.DY)
		sp.opacity = int32(math.Float32bits(c.drop.Opacity))
		if c.drop.Radius == 0 {
			sp.mode = shadowShift
		} else if plane, err = c.reduceDrop(s, dfg, dm); err != nil {
			return err
		}
	case matting.ShadowFloating:
		if plane, err = c.scanFloating(s, dfg, dm); err != nil {
			return err
		}
	}
	var dplane devicePtr
	if plane != nil {
		if dplane, err = s.upload(bytesOf(plane.Plane)); err != nil {
			return err
		}
		sp.mode, sp.pw, sp.ph, sp.f = shadowPlane, int32(plane.W), int32(plane.H), int32(plane.Factor)
		sp.opacity = int32(math.Float32bits(plane.Opacity))
	}
	block := []int32{sp.mode, sp.dx, sp.dy, sp.opacity, sp.pw, sp.ph, sp.f}
	dsp, err := s.upload(bytesOf(block))
	if err != nil {
		return err
	}
	k := c.colour
	return wk.launch(kCompositeBack, int64(c.w*c.h), dfg, dcol, dm, back, int(k.R), int(k.G), int(k.B),
		c.w, c.h, dsp, dplane, wk.table(tabGamma), wk.table(tabSRGB8), dout)
}

// runCover queues the cover resize of an Image background and returns the
// w×h RGBA background on the device.
func (c *composition) runCover(s *scratch) (devicePtr, error) {
	wk, p, src := s.w, &c.cover, c.src
	sw, sh, stride := src.Rect.Dx(), src.Rect.Dy(), src.Stride
	nr := p.RowHi - p.RowLo
	dsrc, err := s.upload(src.Pix[p.RowLo*stride : (p.RowHi-1)*stride+4*sw])
	if err != nil {
		return 0, err
	}
	var taps [4]devicePtr
	for i, b := range [][]byte{bytesOf(p.X.Start), bytesOf(p.X.W), bytesOf(p.Y.Start), bytesOf(p.Y.W)} {
		if taps[i], err = s.upload(b); err != nil {
			return 0, err
		}
	}
	tmp, err := s.alloc(uint64(12 * c.w * nr))
	if err != nil {
		return 0, err
	}
	back, err := s.alloc(uint64(4 * c.w * c.h))
	if err != nil {
		return 0, err
	}
	if err := wk.launch(kCoverRows, int64(c.w*nr), dsrc, sw, stride, nr, c.w, taps[0], taps[1], p.X.N, tmp); err != nil {
		return 0, err
	}
	if err := wk.launch(kCoverCols, int64(c.w*c.h), tmp, c.w, c.h, sh, p.RowLo, nr, taps[2], taps[3], p.Y.N, back); err != nil {
		return 0, err
	}
	return back, nil
}

// runScene queues the enlargement of a generated background's scene and
// returns the w×h RGBA background on the device.
func (c *composition) runScene(s *scratch) (devicePtr, error) {
	sc := c.scene
	small, err := s.upload(bytesOf(sc.Small))
	if err != nil {
		return 0, err
	}
	back, err := s.alloc(uint64(4 * c.w * c.h))
	if err != nil {
		return 0, err
	}
	err = s.w.launch(kGenerateEnlarge, int64(c.w*c.h), small, sc.W, sc.H, sc.Factor, c.w, c.h,
		uint32(sc.Seed), uint32(sc.Seed>>32), back)
	return back, err
}

// reduceDrop reduces the shifted subject alpha of a soft drop shadow on
// the device and blurs the reduced plane on the CPU.
func (c *composition) reduceDrop(s *scratch, dfg, dm devicePtr) (*matting.ShadowPlane, error) {
	d := c.drop
	p := &matting.ShadowPlane{Plane: make([]float32, d.W*d.H), W: d.W, H: d.H, Factor: d.Factor, Opacity: d.Opacity}
	small, err := s.alloc(uint64(4 * len(p.Plane)))
	if err != nil {
		return nil, err
	}
	if err := s.w.launch(kShadowReduce, int64(len(p.Plane)), dfg, dm, c.w, c.h, d.DX, d.DY, d.Factor, d.W, d.H, small); err != nil {
		return nil, err
	}
	if err := s.w.download(bytesOf(p.Plane), small); err != nil {
		return nil, err
	}
	if err := s.w.sync(); err != nil {
		return nil, err
	}
	matting.BlurShadow(p.Plane, d.W, d.H, d.Radius)
	return p, nil
}

// scanFloating scans the subject on the device and renders the floating
// shadow's plane on the CPU; nil when there is no subject.
func (c *composition) scanFloating(s *scratch, dfg, dm devicePtr) (*matting.ShadowPlane, error) {
	box := []int64{int64(c.w), int64(c.h), -1, -1, 0, 0}
	dbox, err := s.upload(bytesOf(box))
	if err != nil {
		return nil, err
	}
	segs := (c.w + scanSegment - 1) / scanSegment
	if err := s.w.launch(kSubjectScan, int64(segs*c.h), dfg, dm, c.w, c.h, dbox); err != nil {
		return nil, err
	}
	if err := s.w.download(bytesOf(box), dbox); err != nil {
		return nil, err
	}
	if err := s.w.sync(); err != nil {
		return nil, err
	}
	b := matting.SubjectBox{X0: int(box[0]), Y0: int(box[1]), X1: int(box[2]), Y1: int(box[3]), SumX: box[4], Count: box[5]}
	p, ok := matting.FloatingShadowPlane(b, c.w, c.h)
	if !ok {
		return nil, nil
	}
	return &p, nil
}

// scanSegment is the pixels of a row each subject_scan thread scans
// (SCAN_SEG in kernels.cu).
const scanSegment = 64

// CompositeRun composites the run's image on the device
// (matting.RunCompositor) with m, reading the image uploaded by Begin and,
// when m's alpha (and spill-corrected colours) are the images the last
// refinement returned, their device copies: nothing is uploaded but the
// background's and the shadow's small inputs. It declines (nil, no error)
// when the image's rows are not contiguous or gpuComposite says the
// device cannot composite.
func (r *run) CompositeRun(ctx context.Context, m *matting.Matte, bg matting.Background) (*image.NRGBA, error) {
	if r.closed {
		return nil, errors.New("gpu: CompositeRun after Close")
	}
	if r.stride != 4*r.W {
		return nil, nil
	}
	// the run's image as gpuComposite and newComposition see it; its
	// pixels are on the device only
	img := &image.NRGBA{Rect: image.Rect(0, 0, r.W, r.H), Stride: 4 * r.W}
	kind, ok := gpuComposite(img, m, bg)
	if !ok {
		return nil, nil
	}
	c := newComposition(img, m, bg, kind)
	c.devFg = r.img.p
	if m != nil && kept(m.Alpha.Pix, r.hostAlpha) {
		c.devMatte = r.alpha.p
	}
	if c.colours != img && kept(c.colours.Pix, r.hostFg) {
		c.devColours = r.fg.p
	}
	out := image.NewNRGBA(img.Rect)
	err := r.d.do(ctx, func(wk *worker) (err error) {
		s := &scratch{w: wk}
		defer func() { err = s.done(err) }()
		return c.run(s, out.Pix)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
