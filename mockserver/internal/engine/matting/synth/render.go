package synth

import (
	"image"
	"math"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// vec3 is an RGB triple in [0,1] (sRGB-encoded or linear, as named).
type vec3 [3]float64

func (v vec3) scale(k float64) vec3 { return vec3{v[0] * k, v[1] * k, v[2] * k} }

func (v vec3) add(o vec3) vec3 { return vec3{v[0] + o[0], v[1] + o[1], v[2] + o[2]} }

func lerp3(a, b vec3, t float64) vec3 {
	return vec3{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

func rgb8(r, g, b uint8) vec3 { return vec3{float64(r) / 255, float64(g) / 255, float64(b) / 255} }

func srgbToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func linearToSRGB(v float64) float64 {
	if v <= 0 {
		return 0
	}
	if v >= 1 {
		return 1
	}
	if v <= 0.0031308 {
		return v * 12.92
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

func toLinear(c vec3) vec3 { return vec3{srgbToLinear(c[0]), srgbToLinear(c[1]), srgbToLinear(c[2])} }

func toSRGB(c vec3) vec3 { return vec3{linearToSRGB(c[0]), linearToSRGB(c[1]), linearToSRGB(c[2])} }

func luminance(lin vec3) float64 { return 0.2126*lin[0] + 0.7152*lin[1] + 0.0722*lin[2] }

// lab converts an sRGB colour to CIE L*a*b* (D65).
func lab(c vec3) vec3 {
	l := toLinear(c)
	x := (0.4124*l[0] + 0.3576*l[1] + 0.1805*l[2]) / 0.95047
	y := 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
	z := (0.0193*l[0] + 0.1192*l[1] + 0.9505*l[2]) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	fx, fy, fz := f(x), f(y), f(z)
	return vec3{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

func deltaE(a, b vec3) float64 {
	la, lb := lab(a), lab(b)
	return math.Sqrt((la[0]-lb[0])*(la[0]-lb[0]) + (la[1]-lb[1])*(la[1]-lb[1]) + (la[2]-lb[2])*(la[2]-lb[2]))
}

// shadeLike reports whether colour c, under any of the shading the
// renderer applies to surfaces (30–110 % of the base in linear light), comes
// within ΔE 15 of the backdrop bg in shade, i.e. bg with its linear light
// scaled by any k in [0.2, 1] (the shadows the reference engine treats as
// background).
func shadeLike(c, bg vec3) bool {
	lb := toLinear(bg)
	for _, shade := range []float64{0.3, 0.5, 0.7, 0.9, 1.1} {
		sc := toSRGB(toLinear(c).scale(shade))
		for k := 0.2; k <= 1.0001; k += 0.05 {
			if deltaE(sc, toSRGB(lb.scale(k))) < 15 {
				return true
			}
		}
	}
	return false
}

func clamp01(v float64) float64 {
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

func smoothstep(e0, e1, x float64) float64 {
	t := clamp01((x - e0) / (e1 - e0))
	return t * t * (3 - 2*t)
}

// hash mixes a pixel position, a channel and a seed into 64 well-spread bits.
func hash(x, y int, ch uint64, seed uint64) uint64 {
	h := uint64(int64(x))*0x9E3779B97F4A7C15 ^ uint64(int64(y))*0xC2B2AE3D27D4EB4F ^ (ch+1)*0x165667B19E3779F9 ^ seed*0x27D4EB2F165667C5
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func unitHash(x, y int, ch, seed uint64) float64 {
	return float64(hash(x, y, ch, seed)>>11) / (1 << 53)
}

// gauss returns approximately normal noise (mean 0, sd 1) for a pixel.
func gauss(x, y int, ch, seed uint64) float64 {
	h := hash(x, y, ch, seed)
	a := float64(h&0xFFFFF) / (1 << 20)
	b := float64((h>>20)&0xFFFFF) / (1 << 20)
	c := float64((h>>40)&0xFFFFF) / (1 << 20)
	return (a + b + c - 1.5) * 2
}

// valueNoise is smooth lattice noise in [0,1].
func valueNoise(x, y float64, seed uint64) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	ix, iy := int(x0), int(y0)
	fx, fy := x-x0, y-y0
	sx, sy := fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	v00 := unitHash(ix, iy, 7, seed)
	v10 := unitHash(ix+1, iy, 7, seed)
	v01 := unitHash(ix, iy+1, 7, seed)
	v11 := unitHash(ix+1, iy+1, 7, seed)
	a := v00 + (v10-v00)*sx
	b := v01 + (v11-v01)*sx
	return a + (b-a)*sy
}

// fbm sums octaves of value noise; the result is in [0,1].
func fbm(x, y float64, octaves int, seed uint64) float64 {
	sum, amp, norm := 0.0, 1.0, 0.0
	for o := 0; o < octaves; o++ {
		sum += amp * valueNoise(x, y, seed+uint64(o)*1013)
		norm += amp
		amp *= 0.5
		x *= 2.03
		y *= 2.03
	}
	return sum / norm
}

// Signed distance functions, in pixels, negative inside.

func sdRoundBox(px, py, cx, cy, hx, hy, r float64) float64 {
	r = math.Min(r, math.Min(hx, hy))
	qx := math.Abs(px-cx) - hx + r
	qy := math.Abs(py-cy) - hy + r
	ox, oy := math.Max(qx, 0), math.Max(qy, 0)
	return math.Hypot(ox, oy) + math.Min(math.Max(qx, qy), 0) - r
}

// sdEllipse is the usual first-order approximation of an ellipse distance,
// accurate near the boundary, which is all the anti-aliasing needs.
func sdEllipse(px, py, cx, cy, a, b float64) float64 {
	dx, dy := px-cx, py-cy
	k0 := math.Hypot(dx/a, dy/b)
	k1 := math.Hypot(dx/(a*a), dy/(b*b))
	if k1 == 0 {
		return -math.Min(a, b)
	}
	return k0 * (k0 - 1) / k1
}

// part is one shape of a subject, painted over earlier parts.
type part struct {
	sdf   func(x, y float64) float64
	color func(x, y float64) vec3 // sRGB in [0,1]
	soft  float64                 // edge width in pixels
	// bounding box (pixels) outside which coverage is zero
	x0, y0, x1, y1 float64
}

// scene is a backdrop plus subject parts.
type scene struct {
	w, h     int
	backdrop func(x, y float64) vec3 // linear RGB, including shadows
	parts    []part
	noise    float64 // sensor noise sd in sRGB units (0..1)
	seed     uint64
}

// render composites the scene and returns the image and its exact alpha.
func (s *scene) render() (*image.NRGBA, *image.Alpha) {
	img := image.NewNRGBA(image.Rect(0, 0, s.w, s.h))
	alpha := image.NewAlpha(image.Rect(0, 0, s.w, s.h))
	parallel.Rows(s.h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			py := float64(y) + 0.5
			for x := 0; x < s.w; x++ {
				px := float64(x) + 0.5
				var acc vec3
				a := 0.0
				for i := range s.parts {
					p := &s.parts[i]
					if px < p.x0-p.soft || px > p.x1+p.soft || py < p.y0-p.soft || py > p.y1+p.soft {
						continue
					}
					c := clamp01(0.5 - p.sdf(px, py)/p.soft)
					if c <= 0 {
						continue
					}
					f := p.color(px, py)
					acc = f.scale(c).add(acc.scale(1 - c))
					a = c + a*(1-c)
				}
				a8 := uint8(math.Round(a * 255))
				aq := float64(a8) / 255
				var fg vec3
				if a > 0 {
					fg = acc.scale(1 / a)
				}
				bg := toSRGB(s.backdrop(px, py))
				o := img.PixOffset(x, y)
				for ch := 0; ch < 3; ch++ {
					v := fg[ch]*aq + bg[ch]*(1-aq)
					v += s.noise * gauss(x, y, uint64(ch), s.seed)
					img.Pix[o+ch] = uint8(math.Round(clamp01(v) * 255))
				}
				img.Pix[o+3] = 255
				alpha.Pix[alpha.PixOffset(x, y)] = a8
			}
		}
	})
	return img, alpha
}
