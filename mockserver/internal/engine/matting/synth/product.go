package synth

import (
	"image"
	"math"
	"math/rand/v2"
)

// BackgroundStyle selects the backdrop of a product image.
type BackgroundStyle int

const (
	// Plain is a flat studio backdrop with a slight vignette and sensor noise.
	Plain BackgroundStyle = iota
	// Gradient is a linear or spotlight gradient between two backdrop colours.
	Gradient
)

var backdropColors = []vec3{
	rgb8(244, 244, 242), // white sweep
	rgb8(222, 222, 224), // light grey
	rgb8(236, 228, 214), // warm paper
	rgb8(200, 216, 236), // pastel blue
	rgb8(242, 214, 218), // pastel pink
	rgb8(206, 232, 218), // mint
	rgb8(170, 172, 176), // mid grey
	rgb8(58, 60, 64),    // charcoal
	rgb8(34, 44, 72),    // navy
}

var productColors = []vec3{
	rgb8(200, 30, 40),   // red
	rgb8(240, 120, 20),  // orange
	rgb8(240, 200, 40),  // yellow
	rgb8(40, 150, 70),   // green
	rgb8(20, 140, 150),  // teal
	rgb8(30, 80, 190),   // blue
	rgb8(25, 35, 90),    // navy
	rgb8(110, 50, 150),  // purple
	rgb8(230, 90, 150),  // pink
	rgb8(120, 70, 40),   // brown
	rgb8(25, 25, 28),    // black
	rgb8(70, 72, 75),    // dark grey
	rgb8(245, 245, 245), // white
	rgb8(238, 226, 196), // cream
	rgb8(190, 192, 196), // silver
	rgb8(200, 160, 60),  // gold
}

// newRand returns the generator for one image; the stream constant only
// separates it from other uses of the same seed.
func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// pickColor draws from palette until ok accepts (bounded; the last draw wins).
func pickColor(r *rand.Rand, palette []vec3, ok func(vec3) bool) vec3 {
	c := palette[r.IntN(len(palette))]
	for i := 0; i < 64 && !ok(c); i++ {
		c = palette[r.IntN(len(palette))]
	}
	return c
}

// lighting describes the key light of a product shot.
type lighting struct {
	lx, ly, lz float64 // unit vector towards the light
}

func newLighting(r *rand.Rand) lighting {
	lx := uniform(r, 0.3, 0.7)
	if r.IntN(2) == 0 {
		lx = -lx
	}
	ly, lz := -0.35, 0.85
	n := math.Sqrt(lx*lx + ly*ly + lz*lz)
	return lighting{lx / n, ly / n, lz / n}
}

// cylinder shades a surface whose normal turns horizontally; u is the
// horizontal position across the object in [-1,1]. Returns the sRGB colour.
func (l lighting) cylinder(base vec3, u, spec float64) vec3 {
	u = math.Max(-1, math.Min(1, u))
	nz := math.Sqrt(math.Max(0, 1-u*u))
	diff := math.Max(0, u*l.lx+nz*l.lz)
	lin := toLinear(base).scale(0.3 + 0.78*diff)
	uh := 0.45 * math.Copysign(1, l.lx)
	s := spec * math.Exp(-((u-uh)/0.13)*((u-uh)/0.13))
	for i := range lin {
		lin[i] = lin[i] + s*(1-lin[i])
	}
	return toSRGB(lin)
}

// sphere shades a ball; (u,v) is the position inside the disc in [-1,1].
func (l lighting) sphere(base vec3, u, v, spec float64) vec3 {
	rr := u*u + v*v
	nz := math.Sqrt(math.Max(0, 1-rr))
	diff := math.Max(0, u*l.lx+v*l.ly+nz*l.lz)
	lin := toLinear(base).scale(0.25 + 0.8*diff)
	hx, hy := 0.45*l.lx/math.Max(0.01, l.lz), 0.45*l.ly/math.Max(0.01, l.lz)
	d2 := (u-hx)*(u-hx) + (v-hy)*(v-hy)
	s := spec * math.Exp(-d2/0.02)
	for i := range lin {
		lin[i] = lin[i] + s*(1-lin[i])
	}
	return toSRGB(lin)
}

// object is a product made of parts; the geometry feeds its shadows.
type object struct {
	parts                 []part
	cx, bottom, ow, oheig float64
}

func rectBox(p *part, cx, cy, hx, hy float64) {
	p.x0, p.y0, p.x1, p.y1 = cx-hx, cy-hy, cx+hx, cy+hy
}

// makeBox builds a rounded box with a printed label.
func makeBox(r *rand.Rand, l lighting, cx, bottom, H, soft float64, base, label vec3) object {
	bh := H * uniform(r, 0.3, 0.52)
	bw := bh * uniform(r, 0.55, 1.3)
	rad := math.Min(bw, bh) * uniform(r, 0.03, 0.12)
	cy := bottom - bh/2
	body := part{soft: soft}
	body.sdf = func(x, y float64) float64 { return sdRoundBox(x, y, cx, cy, bw/2, bh/2, rad) }
	body.color = func(x, y float64) vec3 {
		u := (x - cx) / (bw / 2)
		v := (y - cy) / (bh / 2)
		shade := 0.9 + 0.18*u*math.Copysign(1, l.lx) - 0.06*v
		return toSRGB(toLinear(base).scale(shade * 0.95))
	}
	rectBox(&body, cx, cy, bw/2, bh/2)
	lab := part{soft: soft}
	lhx, lhy := bw*uniform(r, 0.25, 0.36), bh*uniform(r, 0.12, 0.25)
	lcy := cy + bh*uniform(r, -0.15, 0.1)
	lab.sdf = func(x, y float64) float64 { return sdRoundBox(x, y, cx, lcy, lhx, lhy, lhy*0.2) }
	lab.color = func(x, y float64) vec3 {
		u := (x - cx) / (bw / 2)
		return toSRGB(toLinear(label).scale(0.9 + 0.18*u*math.Copysign(1, l.lx)))
	}
	rectBox(&lab, cx, lcy, lhx, lhy)
	return object{parts: []part{body, lab}, cx: cx, bottom: bottom, ow: bw, oheig: bh}
}

// makeBottle builds a bottle: body, shoulder, neck, cap and a label.
func makeBottle(r *rand.Rand, l lighting, cx, bottom, H, soft float64, base, label, capc vec3) object {
	th := H * uniform(r, 0.45, 0.62)
	bw := th * uniform(r, 0.28, 0.4)
	bodyH := th * 0.6
	bcy := bottom - bodyH/2
	shY := bottom - bodyH
	shB := th * 0.13
	neckW := bw * 0.36
	neckH := th * 0.2
	neckCy := shY - shB*0.6 - neckH/2 + shB*0.3
	capH := th * 0.09
	capW := bw * 0.44
	capCy := neckCy - neckH/2 - capH/2 + 1
	top := capCy - capH/2
	bodySDF := func(x, y float64) float64 {
		d := sdRoundBox(x, y, cx, bcy, bw/2, bodyH/2, bw*0.12)
		d = math.Min(d, sdEllipse(x, y, cx, shY, bw/2, shB))
		return math.Min(d, sdRoundBox(x, y, cx, neckCy, neckW/2, neckH/2, neckW*0.1))
	}
	body := part{soft: soft, sdf: bodySDF}
	body.color = func(x, y float64) vec3 {
		half := bw / 2
		if y < shY-shB*0.5 {
			half = neckW / 2
		}
		return l.cylinder(base, (x-cx)/half, 0.55)
	}
	rectBox(&body, cx, (bottom+(neckCy-neckH/2))/2, bw/2, (bottom-(neckCy-neckH/2))/2)
	lb := part{soft: soft}
	lhy := bodyH * uniform(r, 0.2, 0.3)
	lcy := bcy + bodyH*uniform(r, -0.05, 0.12)
	lhx := bw * 0.4
	lb.sdf = func(x, y float64) float64 { return sdRoundBox(x, y, cx, lcy, lhx, lhy, 2) }
	lb.color = func(x, y float64) vec3 { return l.cylinder(label, (x-cx)/(bw/2), 0.15) }
	rectBox(&lb, cx, lcy, lhx, lhy)
	cp := part{soft: soft}
	cp.sdf = func(x, y float64) float64 { return sdRoundBox(x, y, cx, capCy, capW/2, capH/2, capW*0.08) }
	cp.color = func(x, y float64) vec3 { return l.cylinder(capc, (x-cx)/(capW/2), 0.3) }
	rectBox(&cp, cx, capCy, capW/2, capH/2)
	return object{parts: []part{body, lb, cp}, cx: cx, bottom: bottom, ow: bw, oheig: bottom - top}
}

// makeCan builds a cylinder can or jar with a lighter lid band.
func makeCan(r *rand.Rand, l lighting, cx, bottom, H, soft float64, base, label vec3) object {
	bh := H * uniform(r, 0.28, 0.45)
	bw := bh * uniform(r, 0.5, 0.8)
	cy := bottom - bh/2
	body := part{soft: soft}
	body.sdf = func(x, y float64) float64 { return sdRoundBox(x, y, cx, cy, bw/2, bh/2, bw*0.06) }
	body.color = func(x, y float64) vec3 { return l.cylinder(base, (x-cx)/(bw/2), 0.6) }
	rectBox(&body, cx, cy, bw/2, bh/2)
	band := part{soft: soft}
	bcy := cy + bh*uniform(r, -0.1, 0.15)
	bhy := bh * uniform(r, 0.08, 0.18)
	band.sdf = func(x, y float64) float64 { return sdRoundBox(x, y, cx, bcy, bw*0.42, bhy, 1) }
	band.color = func(x, y float64) vec3 { return l.cylinder(label, (x-cx)/(bw/2), 0.2) }
	rectBox(&band, cx, bcy, bw*0.42, bhy)
	return object{parts: []part{body, band}, cx: cx, bottom: bottom, ow: bw, oheig: bh}
}

// makeBall builds a sphere resting on the floor.
func makeBall(r *rand.Rand, l lighting, cx, bottom, H, soft float64, base vec3) object {
	rad := H * uniform(r, 0.13, 0.22)
	cy := bottom - rad
	ball := part{soft: soft}
	ball.sdf = func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - rad }
	ball.color = func(x, y float64) vec3 { return l.sphere(base, (x-cx)/rad, (y-cy)/rad, 0.6) }
	rectBox(&ball, cx, cy, rad, rad)
	return object{parts: []part{ball}, cx: cx, bottom: bottom, ow: 2 * rad, oheig: 2 * rad}
}

// shadow is one soft elliptical darkening of the backdrop (linear light).
type shadow struct {
	cx, cy, a, b   float64
	inner, opacity float64
}

func (s shadow) factor(x, y float64) float64 {
	dx, dy := (x-s.cx)/s.a, (y-s.cy)/s.b
	rr := math.Sqrt(dx*dx + dy*dy)
	if rr >= 1 {
		return 1
	}
	return 1 - s.opacity*(1-smoothstep(s.inner, 1, rr))
}

// Product renders a product-like composite of size w×h with exact alpha.
// Shadows are part of the background (alpha 0). Invalid sizes give empty
// images.
func Product(seed int64, w, h int, bg BackgroundStyle) (*image.NRGBA, *image.Alpha) {
	if w <= 0 || h <= 0 {
		return image.NewNRGBA(image.Rectangle{}), image.NewAlpha(image.Rectangle{})
	}
	r := newRand(seed, 0x5052_4f44) // "PROD"
	W, H := float64(w), float64(h)
	u := math.Min(W, H)
	soft := math.Max(1, u/1000)

	back := backdropColors[r.IntN(len(backdropColors))]
	back2 := back
	var backdrop func(x, y float64) vec3
	vig := uniform(r, 0, 0.04)
	switch bg {
	case Gradient:
		vig = uniform(r, 0.05, 0.14)
		if r.IntN(2) == 0 {
			back2 = toSRGB(toLinear(back).scale(uniform(r, 0.55, 0.8)))
		} else {
			back2 = lerp3(back, backdropColors[r.IntN(len(backdropColors))], uniform(r, 0.25, 0.45))
		}
		if r.IntN(3) == 0 {
			// spotlight: bright centre falling off to the second colour
			sx, sy := W*uniform(r, 0.35, 0.65), H*uniform(r, 0.3, 0.6)
			rad := math.Hypot(W, H) * uniform(r, 0.45, 0.7)
			la, lb := toLinear(back), toLinear(back2)
			if luminance(lb) > luminance(la) {
				la, lb = lb, la // a spotlight is brighter at its centre
			}
			backdrop = func(x, y float64) vec3 {
				t := smoothstep(0, 1, math.Hypot(x-sx, y-sy)/rad)
				return lerp3(la, lb, t)
			}
		} else {
			ang := math.Pi/2 + uniform(r, -0.3, 0.3)
			dx, dy := math.Cos(ang), math.Sin(ang)
			span := math.Abs(dx)*W + math.Abs(dy)*H
			la, lb := toLinear(back), toLinear(back2)
			if r.IntN(2) == 0 {
				la, lb = lb, la
			}
			backdrop = func(x, y float64) vec3 {
				t := ((x-W/2)*dx+(y-H/2)*dy)/span + 0.5
				return lerp3(la, lb, clamp01(t))
			}
		}
	default:
		lb := toLinear(back)
		backdrop = func(x, y float64) vec3 { return lb }
	}
	base := backdrop
	withVignette := func(x, y float64) vec3 {
		dx, dy := (x-W/2)/(W/2), (y-H/2)/(H/2)
		return base(x, y).scale(1 - vig*(dx*dx+dy*dy)/2)
	}

	// Colours must not be the backdrop or the backdrop in shade (see doc.go).
	ref := lerp3(back, back2, 0.5)
	okProduct := func(c vec3) bool {
		return deltaE(c, back) >= 30 && deltaE(c, back2) >= 30 && deltaE(c, ref) >= 30 &&
			!shadeLike(c, back) && !shadeLike(c, back2) && !shadeLike(c, ref)
	}
	l := newLighting(r)
	floor := H * uniform(r, 0.74, 0.86)
	nobj := 1
	if r.IntN(10) < 3 {
		nobj = 2
	}
	var objs []object
	for i := 0; i < nobj; i++ {
		cx := W * uniform(r, 0.4, 0.6)
		bottom := floor
		scale := H
		if nobj == 2 {
			if i == 0 {
				cx = W * uniform(r, 0.33, 0.43)
			} else {
				cx = W * uniform(r, 0.55, 0.66)
				bottom = floor + H*uniform(r, 0.0, 0.04)
				scale = H * 0.8
			}
		}
		baseC := pickColor(r, productColors, okProduct)
		labelC := pickColor(r, productColors, func(c vec3) bool { return deltaE(c, baseC) >= 25 })
		capC := pickColor(r, productColors, okProduct)
		var o object
		switch r.IntN(4) {
		case 0:
			o = makeBox(r, l, cx, bottom, scale, soft, baseC, labelC)
		case 1:
			o = makeBottle(r, l, cx, bottom, scale, soft, baseC, labelC, capC)
		case 2:
			o = makeCan(r, l, cx, bottom, scale, soft, baseC, labelC)
		default:
			o = makeBall(r, l, cx, bottom, scale, soft, baseC)
		}
		objs = append(objs, o)
	}

	// Contact and cast shadows on the floor and backdrop, away from the light.
	dir := -math.Copysign(1, l.lx)
	var shadows []shadow
	for _, o := range objs {
		shadows = append(shadows,
			shadow{cx: o.cx, cy: o.bottom, a: 0.56 * o.ow, b: math.Max(2*soft, 0.035*o.oheig),
				inner: 0.35, opacity: uniform(r, 0.45, 0.62)},
			shadow{cx: o.cx + dir*0.45*o.ow, cy: o.bottom - 0.02*o.oheig, a: 0.95 * o.ow, b: 0.1 * o.oheig,
				inner: 0.15, opacity: uniform(r, 0.2, 0.38)},
		)
	}
	s := &scene{w: w, h: h, noise: uniform(r, 1.0, 2.5) / 255, seed: uint64(seed)*31 + 17}
	s.backdrop = func(x, y float64) vec3 {
		c := withVignette(x, y)
		k := 1.0
		for _, sh := range shadows {
			k *= sh.factor(x, y)
		}
		return c.scale(k)
	}
	for _, o := range objs {
		s.parts = append(s.parts, o.parts...)
	}
	return s.render()
}
