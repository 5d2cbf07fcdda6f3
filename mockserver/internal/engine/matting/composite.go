package matting

import (
	"image"
	"image/color"
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// BackgroundKind selects what replaces the removed background.
type BackgroundKind int

const (
	// Transparent keeps the subject on a transparent background.
	Transparent BackgroundKind = iota
	// Color puts the subject on a solid colour.
	Color
	// Image puts the subject on an uploaded image, scaled to cover.
	Image
	// Generative puts the subject on a background generated from a prompt.
	Generative
)

// Shadow is the synthetic shadow drawn under the subject.
type Shadow string

const (
	// ShadowNone draws no shadow.
	ShadowNone Shadow = ""
	// ShadowSoft is a blurred drop shadow offset down and to the right.
	ShadowSoft Shadow = "soft"
	// ShadowHard is a sharp drop shadow offset down and to the right.
	ShadowHard Shadow = "hard"
	// ShadowFloating is an elliptical contact shadow below the subject's
	// bottom edge with a gap, so the subject appears to float.
	ShadowFloating Shadow = "floating"
)

// Background describes the replacement background.
type Background struct {
	// Kind selects which of the fields below is used.
	Kind BackgroundKind
	// Color is the solid colour for Color (its alpha is ignored: the result
	// is opaque).
	Color color.NRGBA
	// Image is the background for Image; nil falls back to Color.
	Image image.Image
	// Prompt describes the background for Generative (see Generate).
	Prompt string
	// Shadow is drawn for Color and Image only, as the API documentation
	// specifies.
	Shadow Shadow
}

// Composite places the subject of fg, as given by the matte, on bg and
// returns a new image with fg's bounds.
//
// Transparent output carries the matte as alpha (multiplied by fg's own
// alpha) and zero colour where fully transparent. Color, Image and
// Generative output is opaque; blending is αF + (1-α)B in 8-bit sRGB, with F
// the matte's spill-corrected Foreground when present. A shadow is drawn
// onto the background only (it darkens B, never the subject). A nil matte
// means a fully opaque subject; an unknown kind is treated as Transparent
// and an unknown shadow as none.
func Composite(fg *image.NRGBA, m *Matte, bg Background) *image.NRGBA {
	if fg == nil {
		return image.NewNRGBA(image.Rectangle{})
	}
	r := fg.Rect
	w, h := r.Dx(), r.Dy()
	out := image.NewNRGBA(r)
	if w == 0 || h == 0 {
		return out
	}
	alpha := subjectAlpha(fg, m)
	colours := fg
	if m != nil && m.Foreground != nil && m.Foreground.Rect == fg.Rect {
		colours = m.Foreground
	}

	var back *image.NRGBA // opaque w×h background, origin (0,0)
	shadows := false
	switch bg.Kind {
	case Color:
		back = solid(w, h, bg.Color)
		shadows = true
	case Image:
		if bg.Image != nil && !bg.Image.Bounds().Empty() {
			back = coverResize(bg.Image, w, h)
		} else {
			back = solid(w, h, bg.Color)
		}
		shadows = true
	case Generative:
		back = Generate(bg.Prompt, w, h)
	}

	if back == nil {
		parallel.Rows(h, func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				src := colours.Pix[colours.PixOffset(r.Min.X, r.Min.Y+y):]
				dst := out.Pix[y*out.Stride:]
				for x := 0; x < w; x++ {
					a := alpha[y*w+x]
					if a == 0 {
						continue
					}
					copy(dst[4*x:4*x+3], src[4*x:4*x+3])
					dst[4*x+3] = a
				}
			}
		})
		return out
	}

	var shade []float32
	if shadows {
		shade = shadowMap(alpha, w, h, bg.Shadow)
	}
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			src := colours.Pix[colours.PixOffset(r.Min.X, r.Min.Y+y):]
			bk := back.Pix[y*back.Stride:]
			dst := out.Pix[y*out.Stride:]
			for x := 0; x < w; x++ {
				a := float32(alpha[y*w+x]) / 255
				for c := 0; c < 3; c++ {
					b := float32(bk[4*x+c])
					if shade != nil {
						if s := shade[y*w+x]; s > 0 {
							b = toGamma(srgb8ToLinear[bk[4*x+c]]*(1-s)) * 255
						}
					}
					dst[4*x+c] = clamp8(a*float32(src[4*x+c]) + (1-a)*b)
				}
				dst[4*x+3] = 255
			}
		}
	})
	return out
}

// subjectAlpha returns the per-pixel subject opacity (matte × fg alpha) in
// fg's pixel order (w×h, origin at fg.Rect.Min).
func subjectAlpha(fg *image.NRGBA, m *Matte) []uint8 {
	r := fg.Rect
	w, h := r.Dx(), r.Dy()
	out := make([]uint8, w*h)
	var ma *image.Alpha
	if m != nil {
		ma = m.Alpha
	}
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			py := r.Min.Y + y
			src := fg.Pix[fg.PixOffset(r.Min.X, py):]
			for x := 0; x < w; x++ {
				a := uint32(255)
				if ma != nil {
					p := image.Pt(r.Min.X+x, py)
					if p.In(ma.Rect) {
						a = uint32(ma.Pix[ma.PixOffset(p.X, p.Y)])
					} else {
						a = 0
					}
				}
				out[y*w+x] = uint8((a*uint32(src[4*x+3]) + 127) / 255)
			}
		}
	})
	return out
}

func solid(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	return img
}

// Shadow geometry, relative to the image's long side L or the subject's
// bounding box.
const (
	softOffsetX, softOffsetY = 0.012, 0.02 // × L
	softBlur                 = 0.015       // box-blur radius × L (three passes)
	softOpacity              = 0.45
	hardOffsetX, hardOffsetY = 0.01, 0.016
	hardOpacity              = 0.55
	floatGap                 = 0.08 // × subject height, between subject and shadow
	floatWidth               = 0.42 // semi-axis × subject width
	floatHeight              = 0.07 // semi-axis × subject width
	floatBlur                = 0.25 // box-blur radius × ellipse height
	floatOpacity             = 0.4
)

// shadowMap returns the shadow opacity per pixel (0 = none), or nil.
func shadowMap(alpha []uint8, w, h int, kind Shadow) []float32 {
	switch kind {
	case ShadowSoft, ShadowHard:
		d, _ := DropShadowFor(kind, w, h)
		return dropShadow(alpha, w, h, d)
	case ShadowFloating:
		return floatingShadow(alpha, w, h)
	}
	return nil
}

// DropShadow is the recipe of a drop shadow (ShadowSoft, ShadowHard) on a
// frame, from DropShadowFor.
type DropShadow struct {
	// DX and DY shift the subject's alpha right and down, in pixels: the
	// shadow at (x,y) comes from the alpha at (x-DX, y-DY), 0 outside.
	DX, DY int
	// Opacity scales the shadow.
	Opacity float32
	// Radius is the box-blur radius on the reduced plane (BlurShadow);
	// 0 means no blur: the shadow is Opacity × alpha/255 of the shifted
	// alpha at full resolution, and the fields below are unset.
	Radius int
	// Factor, W and H are the reduced plane: cell (cx,cy) is the mean of
	// the shifted alpha/255 over the Factor×Factor block at
	// (cx·Factor, cy·Factor), clipped at the right and bottom edges, summed
	// in float32 row by row.
	Factor, W, H int
}

// DropShadowFor returns the drop shadow of kind (ShadowSoft or
// ShadowHard) on a w×h frame; ok is false for other kinds.
func DropShadowFor(kind Shadow, w, h int) (d DropShadow, ok bool) {
	L := float64(max(w, h))
	var ox, oy, blur, opacity float64
	switch kind {
	case ShadowSoft:
		ox, oy, blur, opacity = softOffsetX, softOffsetY, softBlur, softOpacity
	case ShadowHard:
		ox, oy, blur, opacity = hardOffsetX, hardOffsetY, 0, hardOpacity
	default:
		return DropShadow{}, false
	}
	d = DropShadow{DX: int(math.Round(ox * L)), DY: int(math.Round(oy * L)), Opacity: float32(opacity)}
	radius := blur * L
	if radius < 1 {
		return d, true
	}
	d.Factor = max(1, int(math.Ceil(L/1024)))
	d.W, d.H = (w+d.Factor-1)/d.Factor, (h+d.Factor-1)/d.Factor
	d.Radius = max(1, int(math.Round(radius/float64(d.Factor))))
	return d, true
}

// ShadowPlane is a shadow at reduced resolution. At full resolution the
// shadow at (x,y) is Opacity times Plane bilinearly interpolated at
// ((x+0.5)/Factor-0.5, (y+0.5)/Factor-0.5), clamped to the plane, in
// float32.
type ShadowPlane struct {
	// Plane holds W×H values in raster order.
	Plane []float32
	// W and H are the plane's size, Factor its reduction.
	W, H, Factor int
	// Opacity scales the enlarged plane.
	Opacity float32
}

// BlurShadow blurs a w×h shadow plane in place with the three box-blur
// passes of radius r of a soft drop shadow (DropShadow.Radius).
func BlurShadow(plane []float32, w, h, r int) {
	for pass := 0; pass < 3; pass++ {
		boxBlur(plane, w, h, r)
	}
}

// dropShadow is the matte shifted by (d.DX, d.DY), blurred by d.Radius
// on the reduced plane, times d.Opacity. Blurring runs at reduced
// resolution for large images; the shadow is smooth, so nothing visible
// is lost.
func dropShadow(alpha []uint8, w, h int, d DropShadow) []float32 {
	out := make([]float32, w*h)
	dx, dy := d.DX, d.DY
	if d.Radius == 0 {
		parallel.Rows(h, func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				sy := y - dy
				if sy < 0 || sy >= h {
					continue
				}
				for x := 0; x < w; x++ {
					sx := x - dx
					if sx >= 0 && sx < w {
						out[y*w+x] = d.Opacity * float32(alpha[sy*w+sx]) / 255
					}
				}
			}
		})
		return out
	}
	f, sw, sh := d.Factor, d.W, d.H
	small := make([]float32, sw*sh)
	parallel.Rows(sh, func(y0, y1 int) {
		for cy := y0; cy < y1; cy++ {
			for cx := 0; cx < sw; cx++ {
				var sum float32
				n := 0
				for y := cy * f; y < min(cy*f+f, h); y++ {
					sy := y - dy
					for x := cx * f; x < min(cx*f+f, w); x++ {
						n++
						sx := x - dx
						if sy >= 0 && sy < h && sx >= 0 && sx < w {
							sum += float32(alpha[sy*w+sx])
						}
					}
				}
				small[cy*sw+cx] = sum / (255 * float32(n))
			}
		}
	})
	BlurShadow(small, sw, sh, d.Radius)
	upsampleInto(out, w, h, small, sw, sh, f, d.Opacity)
	return out
}

// SubjectBox summarises the pixels where a subject is mostly opaque
// (alpha ≥ 128), for the floating shadow: their bounding box and the sum
// of their x coordinates. Count 0 means there are none.
type SubjectBox struct {
	// X0, Y0, X1 and Y1 bound the pixels, inclusive.
	X0, Y0, X1, Y1 int
	// SumX is the sum of their x, Count their number.
	SumX, Count int64
}

// subjectBox scans a w×h alpha plane.
func subjectBox(alpha []uint8, w, h int) SubjectBox {
	b := SubjectBox{X0: w, Y0: h, X1: -1, Y1: -1}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if alpha[y*w+x] < 128 {
				continue
			}
			b.X0, b.X1 = min(b.X0, x), max(b.X1, x)
			b.Y0, b.Y1 = min(b.Y0, y), max(b.Y1, y)
			b.SumX += int64(x)
			b.Count++
		}
	}
	return b
}

// FloatingShadowPlane renders the floating shadow of a subject on a w×h
// frame at reduced resolution, blurred: an ellipse centred under the
// subject (at the mean x of b), a gap below its lowest row. ok is false
// when b is empty (no shadow).
func FloatingShadowPlane(b SubjectBox, w, h int) (p ShadowPlane, ok bool) {
	if b.Count == 0 {
		return ShadowPlane{}, false
	}
	sw, shh := float64(b.X1-b.X0+1), float64(b.Y1-b.Y0+1)
	// integer sums below 2^53 are exact in float64, in any order
	cx := float64(b.SumX)/float64(b.Count) + 0.5
	ea, eb := floatWidth*sw, math.Max(2, floatHeight*sw)
	f := max(1, int(math.Ceil(float64(max(w, h))/1024)))
	r := max(1, int(math.Round(floatBlur*eb/float64(f))))
	// the blurred ellipse starts (3 box passes of radius r) below the gap
	cy := float64(b.Y1) + 1 + math.Max(1, floatGap*shh) + eb + float64(3*r*f)
	gw, gh := (w+f-1)/f, (h+f-1)/f
	small := make([]float32, gw*gh)
	for gy := 0; gy < gh; gy++ {
		for gx := 0; gx < gw; gx++ {
			px, py := (float64(gx)+0.5)*float64(f), (float64(gy)+0.5)*float64(f)
			u, v := (px-cx)/ea, (py-cy)/eb
			if d := u*u + v*v; d < 1 {
				small[gy*gw+gx] = 1
			}
		}
	}
	BlurShadow(small, gw, gh, r)
	return ShadowPlane{Plane: small, W: gw, H: gh, Factor: f, Opacity: floatOpacity}, true
}

// floatingShadow is a blurred ellipse centred under the subject, a gap
// below its lowest opaque row. It is clipped by the frame: a subject that
// reaches the bottom edge gets no visible floating shadow.
func floatingShadow(alpha []uint8, w, h int) []float32 {
	p, ok := FloatingShadowPlane(subjectBox(alpha, w, h), w, h)
	if !ok {
		return nil
	}
	out := make([]float32, w*h)
	upsampleInto(out, w, h, p.Plane, p.W, p.H, p.Factor, p.Opacity)
	return out
}

// boxBlur blurs a plane in place with a (2r+1) box, rows then columns,
// clamping at the edges.
func boxBlur(p []float32, w, h, r int) {
	tmp := make([]float32, len(p))
	norm := 1 / float32(2*r+1)
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := p[y*w : y*w+w]
			var acc float32
			for k := -r; k <= r; k++ {
				acc += row[min(max(k, 0), w-1)]
			}
			for x := 0; x < w; x++ {
				tmp[y*w+x] = acc * norm
				acc += row[min(x+r+1, w-1)] - row[max(x-r, 0)]
			}
		}
	})
	parallel.Rows(w, func(x0, x1 int) {
		for x := x0; x < x1; x++ {
			var acc float32
			for k := -r; k <= r; k++ {
				acc += tmp[min(max(k, 0), h-1)*w+x]
			}
			for y := 0; y < h; y++ {
				p[y*w+x] = acc * norm
				acc += tmp[min(y+r+1, h-1)*w+x] - tmp[max(y-r, 0)*w+x]
			}
		}
	})
}

// upsampleInto bilinearly enlarges a plane reduced by f into dst, scaled.
func upsampleInto(dst []float32, w, h int, small []float32, sw, sh, f int, scale float32) {
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			v := (float32(y)+0.5)/float32(f) - 0.5
			v = min(max(v, 0), float32(sh-1))
			yi := min(int(v), sh-1)
			yj := min(yi+1, sh-1)
			fy := v - float32(yi)
			for x := 0; x < w; x++ {
				u := (float32(x)+0.5)/float32(f) - 0.5
				u = min(max(u, 0), float32(sw-1))
				xi := min(int(u), sw-1)
				xj := min(xi+1, sw-1)
				fx := u - float32(xi)
				a := small[yi*sw+xi]*(1-fx) + small[yi*sw+xj]*fx
				b := small[yj*sw+xi]*(1-fx) + small[yj*sw+xj]*fx
				dst[y*w+x] = scale * (a*(1-fy) + b*fy)
			}
		}
	})
}
