package synth

import (
	"image"
	"math"
	"math/rand/v2"
)

var skinTones = []vec3{
	rgb8(241, 194, 167), rgb8(224, 172, 140), rgb8(198, 134, 100),
	rgb8(160, 105, 75), rgb8(110, 72, 50), rgb8(80, 55, 40),
}

var hairColors = []vec3{
	rgb8(20, 18, 18), rgb8(55, 40, 30), rgb8(100, 70, 45),
	rgb8(200, 170, 110), rgb8(140, 60, 35), rgb8(160, 160, 160),
}

var clothingColors = []vec3{
	rgb8(20, 20, 25), rgb8(235, 235, 235), rgb8(30, 40, 80), rgb8(170, 30, 40),
	rgb8(110, 115, 120), rgb8(40, 90, 60), rgb8(70, 100, 150), rgb8(200, 180, 140),
	rgb8(130, 60, 110), rgb8(220, 140, 40),
}

// backgroundPalettes are plausible out-of-focus surroundings.
var backgroundPalettes = [][]vec3{
	{rgb8(55, 62, 80), rgb8(125, 135, 150), rgb8(205, 210, 215), rgb8(160, 150, 130)},   // office, window
	{rgb8(35, 60, 30), rgb8(90, 130, 60), rgb8(160, 185, 100), rgb8(60, 90, 45)},        // garden
	{rgb8(215, 200, 170), rgb8(160, 130, 95), rgb8(110, 90, 70), rgb8(235, 225, 205)},   // wall and shade
	{rgb8(25, 30, 55), rgb8(210, 180, 100), rgb8(90, 110, 160), rgb8(240, 230, 200)},    // city lights
	{rgb8(150, 70, 50), rgb8(100, 50, 40), rgb8(190, 120, 90), rgb8(70, 60, 60)},        // brick
	{rgb8(100, 160, 190), rgb8(170, 210, 230), rgb8(50, 100, 130), rgb8(230, 240, 245)}, // sky and water
	{rgb8(40, 40, 42), rgb8(120, 118, 115), rgb8(20, 20, 22), rgb8(80, 80, 85)},         // dark studio
	{rgb8(120, 40, 40), rgb8(40, 60, 100), rgb8(180, 150, 80), rgb8(60, 40, 30)},        // bookshelf
}

// texture returns a textured background (linear RGB) for a palette.
func texture(r *rand.Rand, pal []vec3, W, H float64, seed uint64) func(x, y float64) vec3 {
	lin := make([]vec3, len(pal))
	for i, c := range pal {
		lin[i] = toLinear(c)
	}
	mix := func(t float64) vec3 { // piecewise blend across the palette
		t = clamp01(t) * float64(len(lin)-1)
		i := int(t)
		if i >= len(lin)-1 {
			return lin[len(lin)-1]
		}
		return lerp3(lin[i], lin[i+1], smoothstep(0, 1, t-float64(i)))
	}
	switch r.IntN(3) {
	case 0: // out-of-focus fractal blend
		sc := H * uniform(r, 0.08, 0.22)
		return func(x, y float64) vec3 {
			t := fbm(x/sc, y/sc, 4, seed)
			return mix((t - 0.25) * 2)
		}
	case 1: // soft stripes with shading
		per := H * uniform(r, 0.05, 0.14)
		ang := []float64{0, math.Pi / 4, -math.Pi / 4, math.Pi / 2}[r.IntN(4)]
		dx, dy := math.Cos(ang), math.Sin(ang)
		sc := H * 0.3
		return func(x, y float64) vec3 {
			ph := (x*dx + y*dy) / per
			s := smoothstep(-0.15, 0.15, math.Sin(2*math.Pi*ph))
			c := lerp3(lin[0], lin[1], s)
			k := 0.8 + 0.4*fbm(x/sc, y/sc, 3, seed)
			return lerp3(c, lin[len(lin)-1], smoothstep(0.4, 0.7, fbm(x/sc+9, y/sc, 3, seed+5))).scale(k)
		}
	default: // bokeh-like blobs over a gradient
		type blob struct {
			x, y, r, a float64
			c          vec3
		}
		n := 20 + r.IntN(20)
		blobs := make([]blob, n)
		for i := range blobs {
			blobs[i] = blob{x: W * r.Float64(), y: H * r.Float64(), r: H * uniform(r, 0.02, 0.08),
				a: uniform(r, 0.3, 0.8), c: lin[r.IntN(len(lin))]}
		}
		return func(x, y float64) vec3 {
			c := lerp3(lin[0], lin[2], clamp01(y/H))
			for _, b := range blobs {
				d := math.Hypot(x-b.x, y-b.y) / b.r
				if d < 1 {
					c = lerp3(c, b.c, b.a*(1-smoothstep(0.7, 1, d)))
				}
			}
			return c
		}
	}
}

// Portrait renders a head-and-shoulders composite of size w×h on a textured
// background and returns the image, its exact alpha and a detector-like face
// box. Invalid sizes give empty images.
func Portrait(seed int64, w, h int) (*image.NRGBA, *image.Alpha, image.Rectangle) {
	if w <= 0 || h <= 0 {
		return image.NewNRGBA(image.Rectangle{}), image.NewAlpha(image.Rectangle{}), image.Rectangle{}
	}
	r := newRand(seed, 0x504f_5254) // "PORT"
	W, H := float64(w), float64(h)
	u := math.Min(W, H)
	soft := math.Max(1, u/1000)

	skin := skinTones[r.IntN(len(skinTones))]
	hair := hairColors[r.IntN(len(hairColors))]
	cloth := pickColor(r, clothingColors, func(c vec3) bool { return deltaE(c, skin) >= 20 })
	var pal []vec3
	for i := 0; i < 64; i++ {
		pal = backgroundPalettes[r.IntN(len(backgroundPalettes))]
		var mean vec3
		for _, c := range pal {
			mean = mean.add(c.scale(1 / float64(len(pal))))
		}
		ok := deltaE(mean, cloth) >= 25 && deltaE(mean, skin) >= 25
		for _, c := range pal {
			ok = ok && deltaE(c, cloth) >= 18 && deltaE(c, skin) >= 15 && deltaE(c, hair) >= 12
		}
		if ok {
			break
		}
	}
	bgTex := texture(r, pal, W, H, uint64(seed)*7+3)

	// Head geometry: semi-axes a (horizontal) and b (vertical).
	b := H * uniform(r, 0.12, 0.15)
	a := b * uniform(r, 0.72, 0.8)
	hx := W * uniform(r, 0.4, 0.6)
	hy := H * uniform(r, 0.3, 0.38)
	lx := uniform(r, 0.3, 0.6)
	if r.IntN(2) == 0 {
		lx = -lx
	}
	shoulderW := a * uniform(r, 2.3, 3.0)
	shoulderY := hy + b + b*uniform(r, 0.3, 0.45)
	neckW := a * uniform(r, 0.42, 0.52)
	torsoR := a * uniform(r, 0.6, 0.9)
	torsoBottom := H + H*0.5

	var parts []part
	// Hair behind and above the head, with a softer edge than the rest.
	hairA, hairB := a*uniform(r, 1.05, 1.2), b*uniform(r, 0.95, 1.1)
	hairCy := hy - b*uniform(r, 0.1, 0.2)
	hairLong := r.IntN(3) == 0
	hairPart := part{soft: soft * 2.5}
	hairPart.sdf = func(x, y float64) float64 {
		d := sdEllipse(x, y, hx, hairCy, hairA, hairB)
		if hairLong {
			d = math.Min(d, sdRoundBox(x, y, hx, hy+b*0.5, hairA*0.98, b*0.8, hairA*0.5))
		}
		return d
	}
	hairLin := toLinear(hair)
	hairPart.color = func(x, y float64) vec3 {
		k := 0.75 + 0.3*valueNoise(x/(soft*3), y/(soft*12), uint64(seed)+11)
		return toSRGB(hairLin.scale(k))
	}
	rectBox(&hairPart, hx, hy, hairA+1, b*1.6)
	parts = append(parts, hairPart)

	skinLin := toLinear(skin)
	torso := part{soft: soft}
	torsoCy := (shoulderY + torsoBottom) / 2
	torsoHy := (torsoBottom - shoulderY) / 2
	torso.sdf = func(x, y float64) float64 {
		return sdRoundBox(x, y, hx, torsoCy, shoulderW, torsoHy, torsoR)
	}
	clothLin := toLinear(cloth)
	foldF := uniform(r, 0.02, 0.05)
	torso.color = func(x, y float64) vec3 {
		uu := (x - hx) / shoulderW
		k := 0.82 + 0.18*uu*math.Copysign(1, lx) + 0.06*math.Sin((x-hx)*foldF+y*foldF*0.3)
		k += 0.04 * (valueNoise(x/(soft*2), y/(soft*2), uint64(seed)+23) - 0.5)
		return toSRGB(clothLin.scale(k))
	}
	rectBox(&torso, hx, torsoCy, shoulderW, torsoHy)

	neck := part{soft: soft}
	neckCy := (hy + shoulderY + b*0.3) / 2
	neckHy := (shoulderY + b*0.3 - hy) / 2
	neck.sdf = func(x, y float64) float64 { return sdRoundBox(x, y, hx, neckCy, neckW, neckHy, neckW*0.3) }
	neck.color = func(x, y float64) vec3 {
		uu := (x - hx) / neckW
		return toSRGB(skinLin.scale(0.6 + 0.15*uu*math.Copysign(1, lx)))
	}
	rectBox(&neck, hx, neckCy, neckW, neckHy)
	parts = append(parts, neck, torso)

	// V-neck opening of skin inside the torso.
	vneck := part{soft: soft}
	vd := b * uniform(r, 0.3, 0.6)
	vneck.sdf = func(x, y float64) float64 {
		return math.Max(sdEllipse(x, y, hx, shoulderY, neckW*1.1, vd), torso.sdf(x, y))
	}
	vneck.color = neck.color
	rectBox(&vneck, hx, shoulderY, neckW*1.1, vd)
	parts = append(parts, vneck)

	head := part{soft: soft}
	head.sdf = func(x, y float64) float64 { return sdEllipse(x, y, hx, hy, a, b) }
	head.color = func(x, y float64) vec3 {
		uu, vv := (x-hx)/a, (y-hy)/b
		nz := math.Sqrt(math.Max(0, 1-uu*uu-vv*vv))
		k := 0.45 + 0.55*math.Max(0, uu*lx+nz*0.85)
		return toSRGB(skinLin.scale(k))
	}
	rectBox(&head, hx, hy, a, b)
	parts = append(parts, head)

	// Fringe over the forehead (inside the head silhouette).
	fringeY := hy - b*uniform(r, 0.35, 0.55)
	fringe := part{soft: soft * 2}
	fringe.sdf = func(x, y float64) float64 {
		line := fringeY + b*0.06*math.Sin((x-hx)/a*5)
		return math.Max(head.sdf(x, y)+soft, y-line)
	}
	fringe.color = hairPart.color
	rectBox(&fringe, hx, hy-b/2, a, b/2)
	parts = append(parts, fringe)

	// Facial features: eyes, brows and mouth as small dark ellipses.
	feat := func(cx, cy, fa, fb float64, c vec3) part {
		p := part{soft: soft}
		p.sdf = func(x, y float64) float64 { return sdEllipse(x, y, cx, cy, fa, fb) }
		p.color = func(x, y float64) vec3 { return c }
		rectBox(&p, cx, cy, fa, fb)
		return p
	}
	eyeC := toSRGB(skinLin.scale(0.15))
	parts = append(parts,
		feat(hx-a*0.38, hy-b*0.08, a*0.13, b*0.05, eyeC),
		feat(hx+a*0.38, hy-b*0.08, a*0.13, b*0.05, eyeC),
		feat(hx, hy+b*0.5, a*0.28, b*0.05, toSRGB(toLinear(rgb8(150, 60, 60)).scale(0.8))),
	)

	s := &scene{w: w, h: h, noise: uniform(r, 1.0, 2.5) / 255, seed: uint64(seed)*131 + 7}
	s.backdrop = func(x, y float64) vec3 { return bgTex(x, y) }
	s.parts = parts
	img, alpha := s.render()

	// Detector-like face box: face ellipse bounds, shrunk and jittered.
	jx := a * uniform(r, -0.05, 0.05)
	jy := b * uniform(r, -0.05, 0.05)
	face := image.Rect(
		int(math.Round(hx-0.9*a+jx)), int(math.Round(hy-0.8*b+jy)),
		int(math.Round(hx+0.9*a+jx)), int(math.Round(hy+0.95*b+jy)),
	).Intersect(image.Rect(0, 0, w, h))
	return img, alpha, face
}
