//go:build cuda && linux

package gpu

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// compositeCase is one composite compared byte for byte with
// matting.Composite (checkComposite).
type compositeCase struct {
	name string
	fg   *image.NRGBA
	m    *matting.Matte
	bg   matting.Background
}

// subject is a frame with a subject: the image and three mattes (the
// synthetic truth, the truth with a Foreground of other colours, none).
type subject struct {
	name  string
	img   *image.NRGBA
	truth *matting.Matte
	fore  *matting.Matte
}

func newSubject(seed int64, w, h int) subject {
	img, truth := synth.Product(seed, w, h, synth.Gradient)
	fore := image.NewNRGBA(img.Rect)
	for i := range fore.Pix {
		fore.Pix[i] = img.Pix[i] ^ 0x5a
	}
	return subject{fmt.Sprintf("%dx%d", w, h), img, &matting.Matte{Alpha: truth}, &matting.Matte{Alpha: truth, Foreground: fore}}
}

// touchingBottom is a subject whose opaque part reaches the bottom edge
// (no floating shadow in the frame), and whose image is partly
// transparent itself (the subject alpha is matte × image alpha).
func touchingBottom(w, h int) subject {
	s := newSubject(11, w, h)
	s.name += "_bottom"
	img := image.NewNRGBA(s.img.Rect)
	copy(img.Pix, s.img.Pix)
	alpha := image.NewAlpha(img.Rect)
	copy(alpha.Pix, s.truth.Alpha.Pix)
	for y := h / 2; y < h; y++ {
		for x := w / 3; x < 2*w/3; x++ {
			alpha.Pix[y*w+x] = 255
			img.Pix[4*(y*w+x)+3] = uint8(128 + (x*7+y*3)%128)
		}
	}
	s.img, s.truth = img, &matting.Matte{Alpha: alpha}
	s.fore = &matting.Matte{Alpha: alpha, Foreground: s.fore.Foreground}
	return s
}

// backgroundSources are Image backgrounds: upscaled, downscaled, partly
// transparent, not NRGBA, NRGBA off the origin or with a wider stride,
// much wider than any frame.
func backgroundSources() map[string]image.Image {
	small, _ := synth.Product(21, 50, 37, synth.Plain)
	large, _ := synth.Product(22, 1900, 1300, synth.Gradient)
	wide, _ := synth.Product(23, 6000, 90, synth.Gradient)
	wideDown, _ := synth.Product(24, 4000, 300, synth.Plain)
	translucent := image.NewNRGBA(image.Rect(0, 0, 97, 61))
	for i := range translucent.Pix {
		translucent.Pix[i] = uint8(i*37 + i/4*11)
	}
	rgba := image.NewRGBA(image.Rect(5, -3, 120, 80)) // premultiplied, off the origin
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 13)
		if i%4 == 3 {
			rgba.Pix[i] = 255
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 33, 29))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 5)
	}
	return map[string]image.Image{
		"small":       small,
		"large":       large,
		"wide":        wide,
		"widedown":    wideDown,
		"translucent": translucent,
		"rgba":        rgba,
		"gray":        gray,
		"offorigin":   large.SubImage(image.Rect(300, 200, 1000, 900)),
		"stride":      large.SubImage(image.Rect(0, 0, 801, 555)),
		"dot":         &image.NRGBA{Pix: []uint8{200, 100, 50, 160}, Stride: 4, Rect: image.Rect(0, 0, 1, 1)},
	}
}

var shadows = []matting.Shadow{matting.ShadowNone, matting.ShadowSoft, matting.ShadowHard, matting.ShadowFloating, "unknown"}

// compositeCases is every background kind and shadow on subjects of
// several sizes (odd ones, one with blurs at half resolution, one whose
// soft shadow is a plain shift), with each kind of matte.
func compositeCases() []compositeCase {
	green := color.NRGBA{R: 30, G: 200, B: 90, A: 255}
	subjects := []subject{newSubject(5, 640, 480), newSubject(6, 333, 211), newSubject(7, 61, 47),
		newSubject(8, 1100, 700), touchingBottom(301, 203)}
	srcs := backgroundSources()
	var cs []compositeCase
	add := func(s subject, what string, bg matting.Background) {
		for _, m := range []struct {
			name string
			m    *matting.Matte
		}{{"truth", s.truth}, {"fore", s.fore}, {"nil", nil}} {
			cs = append(cs, compositeCase{s.name + "/" + what + "/" + m.name, s.img, m.m, bg})
		}
	}
	for _, s := range subjects {
		add(s, "transparent", matting.Background{})
		for _, sh := range shadows {
			add(s, "color_"+string(sh), matting.Background{Kind: matting.Color, Color: green, Shadow: sh})
			add(s, "image_large_"+string(sh), matting.Background{Kind: matting.Image, Image: srcs["large"], Shadow: sh})
		}
		add(s, "image_nil_soft", matting.Background{Kind: matting.Image, Color: green, Shadow: matting.ShadowSoft})
		add(s, "generative_sunset", matting.Background{Kind: matting.Generative, Prompt: "Sunset  over the sea", Shadow: matting.ShadowSoft})
	}
	s := subjects[1]
	for name, src := range srcs {
		add(s, "image_"+name, matting.Background{Kind: matting.Image, Image: src, Shadow: matting.ShadowHard})
	}
	for _, p := range []string{"forest", "night city lights", "studio", "white", "xyzzy plugh", "teal", ""} {
		add(subjects[2], "generative_"+p, matting.Background{Kind: matting.Generative, Prompt: p})
		add(subjects[4], "generative_"+p, matting.Background{Kind: matting.Generative, Prompt: p})
	}
	add(subjects[3], "generative_beach", matting.Background{Kind: matting.Generative, Prompt: "beach"})
	// a frame of 3×2 pixels
	tiny := subject{name: "3x2", img: &image.NRGBA{Pix: make([]uint8, 24), Stride: 12, Rect: image.Rect(0, 0, 3, 2)}}
	for i := range tiny.img.Pix {
		tiny.img.Pix[i] = uint8(40*i + 7)
	}
	tiny.truth = &matting.Matte{Alpha: &image.Alpha{Pix: []uint8{0, 255, 128, 255, 255, 30}, Stride: 3, Rect: tiny.img.Rect}}
	tiny.fore = tiny.truth
	for _, sh := range shadows {
		add(tiny, "image_dot_"+string(sh), matting.Background{Kind: matting.Image, Image: srcs["dot"], Shadow: sh})
		add(tiny, "image_large_"+string(sh), matting.Background{Kind: matting.Image, Image: srcs["large"], Shadow: sh})
	}
	add(tiny, "generative", matting.Background{Kind: matting.Generative, Prompt: "snow"})
	return cs
}

// checkComposite compares e's compositing with matting.Composite over
// compositeCases, byte for byte, and logs the largest difference.
func checkComposite(t *testing.T, e *Engine) {
	ctx := context.Background()
	cases := compositeCases()
	// the engine's own matte, with the spill-corrected foreground
	img, _ := synth.Product(5, 640, 480, synth.Gradient)
	own, err := e.RemoveBackground(ctx, img, matting.Options{SpillReduction: true})
	require.NoError(t, err)
	for _, bg := range []matting.Background{{}, {Kind: matting.Color, Color: color.NRGBA{B: 200, A: 255}, Shadow: matting.ShadowSoft},
		{Kind: matting.Generative, Prompt: "desert"}, {Kind: matting.Image, Image: img, Shadow: matting.ShadowFloating}} {
		cases = append(cases, compositeCase{"own_matte", img, own, bg})
	}
	worst, differing := 0, 0
	for _, c := range cases {
		want := matting.Composite(c.fg, c.m, c.bg)
		got, err := e.Composite(ctx, c.fg, c.m, c.bg)
		require.NoError(t, err, c.name)
		require.Equal(t, want.Rect, got.Rect, c.name)
		d, _ := alphaDiff(want.Pix, got.Pix)
		worst = max(worst, d)
		if !assert.Zero(t, d, "%s: max |Δ| %d/255, identical to the CPU's", c.name, d) {
			differing++
		}
	}
	t.Logf("%d composites, max |Δ| %d/255 against matting.Composite; %d differ", len(cases), worst, differing)
}

// checkRemoveAndComposite compares e's RemoveAndComposite with its
// RemoveBackground and matting.Composite of that matte, byte for byte, for
// products and a portrait, with and without spill reduction, on every
// background kind and shadow; an image whose rows are not contiguous, one
// not at the origin and tiny ones included.
func checkRemoveAndComposite(t *testing.T, e *Engine) {
	t.Helper()
	ctx := context.Background()
	product, _ := synth.Product(4, 320, 240, synth.Gradient)
	portrait, _, face := synth.Portrait(2, 300, 220)
	padded := image.NewNRGBA(image.Rect(0, 0, 330, 240)).SubImage(image.Rect(5, 0, 325, 240)).(*image.NRGBA)
	for y := 0; y < 240; y++ {
		copy(padded.Pix[y*padded.Stride:y*padded.Stride+4*320], product.Pix[y*product.Stride:(y+1)*product.Stride])
	}
	shifted := &image.NRGBA{Pix: product.Pix, Stride: product.Stride, Rect: product.Rect.Add(image.Pt(-4, 9))}
	green := color.NRGBA{R: 30, G: 200, B: 90, A: 255}
	bgs := []matting.Background{{}, {Kind: matting.Generative, Prompt: "studio"},
		{Kind: matting.Image, Image: portrait, Shadow: matting.ShadowFloating}}
	for _, sh := range shadows {
		bgs = append(bgs, matting.Background{Kind: matting.Color, Color: green, Shadow: sh})
	}
	cases := 0
	for _, c := range []struct {
		name string
		img  *image.NRGBA
		o    matting.Options
	}{
		{"product", product, matting.Options{}},
		{"product spill", product, matting.Options{SpillReduction: true}},
		{"portrait spill", portrait, matting.Options{Mode: matting.ModePortrait, Faces: []image.Rectangle{face}, SpillReduction: true}},
		{"padded rows", padded, matting.Options{SpillReduction: true}},
		{"shifted", shifted, matting.Options{}},
		{"1x1", randomImage(1, 1), matting.Options{SpillReduction: true, Preprocess: true}},
		{"3x40 portrait", randomImage(3, 40), matting.Options{Mode: matting.ModePortrait}},
	} {
		want, err := e.RemoveBackground(ctx, c.img, c.o)
		require.NoError(t, err, c.name)
		for _, bg := range bgs {
			m, out, err := e.RemoveAndComposite(ctx, c.img, c.o, bg)
			require.NoError(t, err, c.name)
			require.Equal(t, want.Alpha.Pix, m.Alpha.Pix, "%s: the matte", c.name)
			wantOut := matting.Composite(c.img, m, bg)
			require.Equal(t, wantOut.Rect, out.Rect, c.name)
			require.Equal(t, wantOut.Pix, out.Pix, "%s: %s %s", c.name, bg.Kind, bg.Shadow)
			cases++
		}
	}
	t.Logf("%d removals with their composites identical to RemoveBackground and matting.Composite", cases)
}

// checkConcurrentRemoveAndComposite runs RemoveAndComposite on e from
// several goroutines at once, on two images with spill reduction and a
// coloured background with a soft shadow: each composite equals the one
// computed alone, so that no run reads another's kept matte or image.
func checkConcurrentRemoveAndComposite(t *testing.T, e *Engine, goroutines int) {
	t.Helper()
	ctx := context.Background()
	a, _ := synth.Product(7, 320, 240, synth.Gradient)
	b, _ := synth.Product(8, 300, 260, synth.Plain)
	o := matting.Options{SpillReduction: true}
	bg := matting.Background{Kind: matting.Color, Color: color.NRGBA{R: 240, G: 200, B: 20, A: 255}, Shadow: matting.ShadowSoft}
	imgs := []*image.NRGBA{a, b}
	want := make([][]uint8, len(imgs))
	for i, img := range imgs {
		_, out, err := e.RemoveAndComposite(ctx, img, o, bg)
		require.NoError(t, err)
		want[i] = out.Pix
	}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % len(imgs)
			_, out, err := e.RemoveAndComposite(ctx, imgs[i], o, bg)
			if assert.NoError(t, err) {
				assert.Equal(t, want[i], out.Pix, "goroutine %d", g)
			}
		}()
	}
	wg.Wait()
}
