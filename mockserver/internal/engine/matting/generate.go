package matting

import (
	"hash/fnv"
	"image"
	"math"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// Generate returns a w×h opaque background for a text prompt. It is a
// deterministic procedural STAND-IN for a generative model: the normalised
// prompt (trimmed, lower-cased) is hashed to a seed; keywords pick a themed
// palette and layout (listed in the package documentation), other prompts get a palette derived from
// the hash; soft fractal noise, theme features (clouds, horizon bands,
// bokeh) and a one-level dither are added. The same prompt and size give the
// same bytes; the look does not depend on the size (coordinates are
// normalised). Non-positive sizes give an empty image.
func Generate(prompt string, w, h int) *image.NRGBA {
	if w <= 0 || h <= 0 {
		return image.NewNRGBA(image.Rectangle{})
	}
	sc := GenerateScene(prompt, w, h)
	small, gw, gh, f, seed := sc.Small, sc.W, sc.H, sc.Factor, sc.Seed
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			v := min(max((float32(y)+0.5)/float32(f)-0.5, 0), float32(gh-1))
			yi := min(int(v), gh-1)
			yj := min(yi+1, gh-1)
			fy := v - float32(yi)
			row := out.Pix[y*out.Stride:]
			for x := 0; x < w; x++ {
				u := min(max((float32(x)+0.5)/float32(f)-0.5, 0), float32(gw-1))
				xi := min(int(u), gw-1)
				xj := min(xi+1, gw-1)
				fx := u - float32(xi)
				d := float32(genHash(x, y, seed)>>40)/float32(1<<24) - 0.5
				for c := 0; c < 3; c++ {
					a := small[3*(yi*gw+xi)+c]*(1-fx) + small[3*(yi*gw+xj)+c]*fx
					b := small[3*(yj*gw+xi)+c]*(1-fx) + small[3*(yj*gw+xj)+c]*fx
					row[4*x+c] = clamp8((a*(1-fy)+b*fy)*255 + d)
				}
				row[4*x+3] = 255
			}
		}
	})
	return out
}

// Scene is the smooth part of a generated background, rendered at reduced
// resolution (see GenerateScene).
type Scene struct {
	// Small holds W×H colours in raster order, three float32 values each
	// (sRGB in [0,1], not clamped).
	Small []float32
	// W and H are the scene's size: ⌈w/Factor⌉×⌈h/Factor⌉.
	W, H int
	// Factor is the enlargement to full resolution, ⌈max(w,h)/512⌉.
	Factor int
	// Seed is the hash of the normalised prompt; it also seeds the
	// full-resolution dither.
	Seed uint64
}

// GenerateScene renders the scene of Generate(prompt, w, h) at reduced
// resolution (w and h positive). Generate enlarges it to w×h: pixel (x,y)
// is bilinear in Small at ((x+0.5)/Factor-0.5, (y+0.5)/Factor-0.5),
// clamped to the scene, times 255 plus a dither in [-0.5, 0.5) from the
// top 24 bits of a 64-bit hash of (x, y, Seed), rounded and clamped to 8
// bits, opaque.
func GenerateScene(prompt string, w, h int) Scene {
	norm := strings.ToLower(strings.Join(strings.Fields(prompt), " "))
	hs := fnv.New64a()
	_, _ = hs.Write([]byte(norm))
	seed := hs.Sum64()
	th := pickTheme(norm, seed)

	// The scene is smooth, so it is rendered at a bounded resolution and
	// enlarged bilinearly; the dither is added at full resolution.
	f := max(1, int(math.Ceil(float64(max(w, h))/512)))
	gw, gh := (w+f-1)/f, (h+f-1)/f
	small := make([]float32, 3*gw*gh)
	aspect := float64(w) / float64(h)
	parallel.Rows(gh, func(y0, y1 int) {
		for gy := y0; gy < y1; gy++ {
			v := (float64(gy) + 0.5) / float64(gh)
			for gx := 0; gx < gw; gx++ {
				u := (float64(gx) + 0.5) / float64(gw)
				c := th.color(u, v, aspect, seed)
				o := 3 * (gy*gw + gx)
				small[o], small[o+1], small[o+2] = float32(c[0]), float32(c[1]), float32(c[2])
			}
		}
	})
	return Scene{Small: small, W: gw, H: gh, Factor: f, Seed: seed}
}

// rgb is an sRGB colour in [0,1].
type rgb [3]float64

func hexRGB(r, g, b uint8) rgb { return rgb{float64(r) / 255, float64(g) / 255, float64(b) / 255} }

func mixRGB(a, b rgb, t float64) rgb {
	t = math.Max(0, math.Min(1, t))
	return rgb{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

// layout is the composition family of a theme.
type layout int

const (
	layoutGradient layout = iota // vertical multi-stop gradient
	layoutSky                    // gradient with soft clouds
	layoutHorizon                // sky, sea or land band, ground
	layoutStudio                 // radial falloff from a lit centre
	layoutBokeh                  // gradient with soft out-of-focus discs
)

// theme is a palette plus a layout.
type theme struct {
	stops  []rgb   // top to bottom (studio: centre to edge)
	accent []rgb   // clouds, bands, bokeh discs
	noise  float64 // amplitude of the soft fractal noise
	layout layout
}

// themes by keyword, in priority order (the first keyword found wins).
var themes = []struct {
	words []string
	th    theme
}{
	{[]string{"sunset", "sunrise", "dusk", "golden hour"}, theme{
		stops:  []rgb{hexRGB(58, 44, 110), hexRGB(196, 84, 110), hexRGB(250, 150, 70), hexRGB(252, 206, 130)},
		accent: []rgb{hexRGB(255, 190, 150)}, noise: 0.03, layout: layoutSky}},
	{[]string{"beach", "ocean", "sea", "coast", "tropical"}, theme{
		stops:  []rgb{hexRGB(80, 150, 225), hexRGB(190, 226, 246)},
		accent: []rgb{hexRGB(30, 120, 170), hexRGB(232, 212, 165)}, noise: 0.02, layout: layoutHorizon}},
	{[]string{"desert", "dune", "sand"}, theme{
		stops:  []rgb{hexRGB(120, 170, 220), hexRGB(235, 215, 190)},
		accent: []rgb{hexRGB(214, 170, 110), hexRGB(196, 146, 90)}, noise: 0.03, layout: layoutHorizon}},
	{[]string{"snow", "winter", "ice"}, theme{
		stops:  []rgb{hexRGB(170, 195, 225), hexRGB(236, 242, 250)},
		accent: []rgb{hexRGB(245, 248, 252), hexRGB(225, 232, 242)}, noise: 0.02, layout: layoutHorizon}},
	{[]string{"forest", "jungle", "garden", "park", "nature", "leaves", "grass"}, theme{
		stops:  []rgb{hexRGB(40, 70, 40), hexRGB(70, 110, 55), hexRGB(50, 85, 45)},
		accent: []rgb{hexRGB(150, 190, 90), hexRGB(200, 220, 120), hexRGB(30, 55, 30)}, noise: 0.06, layout: layoutBokeh}},
	{[]string{"city", "urban", "street", "night city", "lights"}, theme{
		stops:  []rgb{hexRGB(22, 28, 52), hexRGB(50, 60, 90)},
		accent: []rgb{hexRGB(250, 200, 110), hexRGB(150, 180, 255), hexRGB(255, 120, 90)}, noise: 0.03, layout: layoutBokeh}},
	{[]string{"office", "room", "interior", "living", "kitchen", "cafe"}, theme{
		stops:  []rgb{hexRGB(225, 215, 198), hexRGB(190, 172, 150)},
		accent: []rgb{hexRGB(250, 240, 220), hexRGB(160, 140, 115)}, noise: 0.03, layout: layoutBokeh}},
	{[]string{"sky", "cloud", "clouds", "heaven"}, theme{
		stops:  []rgb{hexRGB(60, 130, 215), hexRGB(200, 228, 250)},
		accent: []rgb{hexRGB(255, 255, 255)}, noise: 0.02, layout: layoutSky}},
	{[]string{"studio", "backdrop", "grey", "gray"}, theme{
		stops: []rgb{hexRGB(205, 205, 208), hexRGB(120, 120, 126)},
		noise: 0.01, layout: layoutStudio}},
	{[]string{"black", "dark", "night"}, theme{
		stops: []rgb{hexRGB(28, 28, 36), hexRGB(6, 6, 10)},
		noise: 0.01, layout: layoutStudio}},
	{[]string{"white", "clean", "minimal", "bright"}, theme{
		stops: []rgb{hexRGB(252, 252, 252), hexRGB(232, 232, 234)},
		noise: 0.005, layout: layoutStudio}},
}

// colour words tint a plain gradient when no theme keyword matched.
var colourWords = map[string]rgb{
	"red": hexRGB(200, 40, 50), "orange": hexRGB(240, 130, 40), "yellow": hexRGB(240, 210, 60),
	"green": hexRGB(60, 150, 80), "blue": hexRGB(50, 100, 200), "purple": hexRGB(120, 60, 170),
	"pink": hexRGB(240, 140, 180), "brown": hexRGB(130, 85, 50), "beige": hexRGB(225, 205, 170),
	"teal": hexRGB(30, 140, 140),
}

func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isLetter(s[j-1])
		after := j+len(w) == len(s) || !isLetter(s[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' }

// pickTheme chooses the theme for a normalised prompt.
func pickTheme(p string, seed uint64) theme {
	for _, t := range themes {
		for _, w := range t.words {
			if hasWord(p, w) {
				return t.th
			}
		}
	}
	names := []string{"red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "beige", "teal"}
	for _, n := range names {
		if hasWord(p, n) {
			c := colourWords[n]
			return theme{stops: []rgb{mixRGB(c, rgb{1, 1, 1}, 0.35), c, mixRGB(c, rgb{}, 0.3)}, noise: 0.03, layout: layoutGradient}
		}
	}
	// Anything else: two harmonious hues from the hash, soft bokeh.
	hue := float64(seed%360) / 360
	hue2 := math.Mod(hue+0.08+float64((seed>>9)%20)/100, 1)
	c1 := hsl(hue, 0.45, 0.72)
	c2 := hsl(hue2, 0.5, 0.45)
	return theme{stops: []rgb{c1, c2}, accent: []rgb{hsl(hue, 0.4, 0.85), hsl(hue2, 0.5, 0.3)}, noise: 0.04, layout: layoutBokeh}
}

func hsl(h, s, l float64) rgb {
	q := l * (1 + s)
	if l >= 0.5 {
		q = l + s - l*s
	}
	p := 2*l - q
	f := func(t float64) float64 {
		t = math.Mod(t+1, 1)
		switch {
		case t < 1.0/6:
			return p + (q-p)*6*t
		case t < 0.5:
			return q
		case t < 2.0/3:
			return p + (q-p)*(2.0/3-t)*6
		}
		return p
	}
	return rgb{f(h + 1.0/3), f(h), f(h - 1.0/3)}
}

// gradient evaluates the stops at t in [0,1].
func gradient(stops []rgb, t float64) rgb {
	if len(stops) == 1 {
		return stops[0]
	}
	t = math.Max(0, math.Min(1, t)) * float64(len(stops)-1)
	i := min(int(t), len(stops)-2)
	return mixRGB(stops[i], stops[i+1], t-float64(i))
}

// color evaluates the theme at normalised position (u, v) in [0,1]².
func (th theme) color(u, v, aspect float64, seed uint64) rgb {
	x := u * aspect // isotropic noise coordinates
	n := genFBM(x*3, v*3, seed) - 0.5
	var c rgb
	switch th.layout {
	case layoutStudio:
		d := math.Hypot((u-0.5)*aspect, (v-0.45)) / math.Hypot(0.5*aspect, 0.55)
		c = gradient(th.stops, d*d*1.2)
	case layoutHorizon:
		horizon := 0.55 + 0.04*(genFBM(x*2, 7, seed)-0.5)
		switch {
		case v < horizon:
			c = gradient(th.stops, v/horizon)
		case v < horizon+0.12 && len(th.accent) > 0:
			c = mixRGB(th.accent[0], th.stops[len(th.stops)-1], 0.2*(1-(v-horizon)/0.12))
		default:
			c = th.accent[len(th.accent)-1]
			c = mixRGB(c, rgb{}, 0.15*(v-horizon))
		}
	default:
		c = gradient(th.stops, v)
	}
	switch th.layout {
	case layoutSky:
		cloud := smooth01(0.52, 0.75, genFBM(x*2.2+11, v*4, seed+1))
		c = mixRGB(c, th.accent[0], 0.7*cloud*(1-v*0.6))
	case layoutBokeh:
		for i := 0; i < 24; i++ {
			bx := float64(genHash(i, 1, seed)>>11) / (1 << 53) * aspect
			by := float64(genHash(i, 2, seed)>>11) / (1 << 53)
			br := 0.03 + 0.09*float64(genHash(i, 3, seed)>>11)/(1<<53)
			d := math.Hypot(x-bx, v-by) / br
			if d < 1 && len(th.accent) > 0 {
				ac := th.accent[int(genHash(i, 4, seed)%uint64(len(th.accent)))]
				c = mixRGB(c, ac, 0.35*(1-smooth01(0.6, 1, d)))
			}
		}
	}
	k := 1 + th.noise*2*n
	return rgb{c[0] * k, c[1] * k, c[2] * k}
}

func smooth01(e0, e1, x float64) float64 {
	t := math.Max(0, math.Min(1, (x-e0)/(e1-e0)))
	return t * t * (3 - 2*t)
}

func genHash(x, y int, seed uint64) uint64 {
	h := uint64(int64(x))*0x9E3779B97F4A7C15 ^ uint64(int64(y))*0xC2B2AE3D27D4EB4F ^ seed*0x165667B19E3779F9
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func genNoise(x, y float64, seed uint64) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	ix, iy := int(x0), int(y0)
	fx, fy := x-x0, y-y0
	sx, sy := fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	at := func(i, j int) float64 { return float64(genHash(i, j, seed)>>11) / (1 << 53) }
	a := at(ix, iy) + (at(ix+1, iy)-at(ix, iy))*sx
	b := at(ix, iy+1) + (at(ix+1, iy+1)-at(ix, iy+1))*sx
	return a + (b-a)*sy
}

// genFBM is four octaves of value noise, in [0,1].
func genFBM(x, y float64, seed uint64) float64 {
	sum, amp, norm := 0.0, 1.0, 0.0
	for o := 0; o < 4; o++ {
		sum += amp * genNoise(x, y, seed+uint64(o)*7919)
		norm += amp
		amp *= 0.5
		x, y = x*2.01, y*2.01
	}
	return sum / norm
}
