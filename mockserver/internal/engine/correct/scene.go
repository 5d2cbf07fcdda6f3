package correct

import (
	"image"
	"strconv"
	"strings"
)

// Scene is a scene category as reported in detectionData.scene (hosted) and
// the scene field of the correction container; the package documentation
// has the table.
type Scene int

// The scene categories.
const (
	// SceneUnknown: no rule was conclusive.
	SceneUnknown Scene = -1
	// ScenePortrait: one face, or a large skin area in the centre.
	ScenePortrait Scene = 0
	// SceneGroup: two or more faces.
	SceneGroup Scene = 1
	// SceneLandscape: smooth sky (blue or overcast) across the top.
	SceneLandscape Scene = 2
	// SceneNature: vegetation greens dominate.
	SceneNature Scene = 3
	// SceneNight: dark overall, mostly shadows.
	SceneNight Scene = 4
	// SceneProduct: an object on a uniform (studio) background.
	SceneProduct Scene = 5
	// SceneSunset: saturated warm light across the top.
	SceneSunset Scene = 6
	// SceneHighKey: bright, low-chroma majority (snow, beach, high key).
	SceneHighKey Scene = 7
)

var sceneNames = [...]string{"unknown", "portrait", "group", "landscape", "nature", "night", "product", "sunset", "highkey"}

// Scenes lists every category, SceneUnknown first.
func Scenes() []Scene {
	s := make([]Scene, 0, len(sceneNames))
	for i := range sceneNames {
		s = append(s, Scene(i-1))
	}
	return s
}

// Valid reports whether s is in the table.
func (s Scene) Valid() bool { return s >= SceneUnknown && s <= SceneHighKey }

// String returns the scene's name ("portrait"), or "scene(N)" outside the
// table.
func (s Scene) String() string {
	if !s.Valid() {
		return "scene(" + strconv.Itoa(int(s)) + ")"
	}
	return sceneNames[s+1]
}

// ParseScene accepts a scene number ("2", "-1") or name ("landscape",
// case-insensitive) from the table.
func ParseScene(v string) (Scene, bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil {
		s := Scene(n)
		return s, s.Valid()
	}
	for i, name := range sceneNames {
		if strings.EqualFold(v, name) {
			return Scene(i - 1), true
		}
	}
	return SceneUnknown, false
}

// Scene detection works on an averaged copy at most sceneSide cells on the
// long side, each cell the mean of up to cellSamples² points of the source.
const (
	sceneSide   = 160
	cellSamples = 4
)

// cells is a small RGB image (3 bytes per cell).
type cells struct {
	w, h int
	pix  []uint8
}

func (c *cells) at(x, y int) (r, g, b int32) {
	i := (y*c.w + x) * 3
	return int32(c.pix[i]), int32(c.pix[i+1]), int32(c.pix[i+2])
}

// downsample averages img into at most side×side cells, keeping the aspect
// ratio. Reads about side²·cellSamples² pixels whatever the image size.
func downsample(img *image.NRGBA, side int) cells {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	w, h := W, H
	if w > side || h > side {
		if W >= H {
			w, h = side, max(1, (H*side+W/2)/W)
		} else {
			w, h = max(1, (W*side+H/2)/H), side
		}
	}
	out := cells{w: w, h: h, pix: make([]uint8, w*h*3)}
	var xs [cellSamples]int
	for cy := 0; cy < h; cy++ {
		y0, y1 := cy*H/h, (cy+1)*H/h
		for cx := 0; cx < w; cx++ {
			x0, x1 := cx*W/w, (cx+1)*W/w
			for j := range xs {
				xs[j] = x0 + (2*j+1)*(x1-x0)/(2*cellSamples)
			}
			var sr, sg, sb, n uint32
			for j := 0; j < cellSamples; j++ {
				y := y0 + (2*j+1)*(y1-y0)/(2*cellSamples)
				row := img.Pix[y*img.Stride:]
				for _, x := range xs {
					p := row[x*4 : x*4+3]
					sr += uint32(p[0])
					sg += uint32(p[1])
					sb += uint32(p[2])
					n++
				}
			}
			o := (cy*w + cx) * 3
			out.pix[o] = uint8((sr + n/2) / n)
			out.pix[o+1] = uint8((sg + n/2) / n)
			out.pix[o+2] = uint8((sb + n/2) / n)
		}
	}
	return out
}

// hsv returns hue in degrees (0..360, 0 for grey), saturation and value
// (0..1) of an 8-bit colour.
func hsv(r, g, b int32) (hue, sat, val float64) {
	mx, mn := max(r, g, b), min(r, g, b)
	if mx == 0 {
		return 0, 0, 0
	}
	d := float64(mx - mn)
	sat, val = d/float64(mx), float64(mx)/255
	if d == 0 {
		return 0, sat, val
	}
	switch mx {
	case r:
		hue = 60 * float64(g-b) / d
		if hue < 0 {
			hue += 360
		}
	case g:
		hue = 60*float64(b-r)/d + 120
	default:
		hue = 60*float64(r-g)/d + 240
	}
	return hue, sat, val
}

func luma8(r, g, b int32) float64 {
	return (lumaR*float64(r) + lumaG*float64(g) + lumaB*float64(b)) / 255
}

// sceneFeatures are the measurements the scene rules use; every fraction
// is of the cells of the region named.
type sceneFeatures struct {
	meanLuma      float64 // whole image, 0..1
	darkFrac      float64 // luma < 0.16
	skinCenter    float64 // skin weight ≥ ½, central 60% × 60%
	skinEdge      float64 // skin weight ≥ ½, outer 20% frame
	skyTop        float64 // sky-like cells, top third
	skyBottom     float64 // sky-like cells, bottom third
	warmTop       float64 // saturated warm bright cells, top half
	topLuma       float64 // mean luma of the top third, 0..1
	bottomLuma    float64 // mean luma of the bottom third, 0..1
	vegetation    float64 // green-hue cells, whole image
	brightNeutral float64 // luma ≥ 0.7 and saturation < 0.15, whole image
	borderMAD     float64 // mean abs deviation of the border ring from its mean colour, 8-bit levels
	borderLuma    float64 // mean luma of the border ring, 0..1
	subject       float64 // interior cells far (> 60 summed levels) from the border colour
}

// Scene rule thresholds (doc.go lists them as rules).
const (
	productBorderMAD = 6.0
	productMinObj    = 0.05
	productMaxObj    = 0.90
	nightMeanLuma    = 0.22
	nightDarkFrac    = 0.55
	sunsetWarmTop    = 0.30
	sunsetTopLift    = 0.10
	landscapeSkyTop  = 0.40
	landscapeSkyLow  = 0.25
	portraitSkin     = 0.35
	portraitEdgeSkin = 1.0 / 3 // skin in the frame at most this share of the centre's
	natureVegetation = 0.30
	highKeyMeanLuma  = 0.70
	highKeyNeutral   = 0.50
)

func measure(c cells) sceneFeatures {
	var f sceneFeatures
	n := float64(c.w * c.h)
	third := max(1, c.h/3)
	var topN, bottomN, warmN, centerN, edgeN float64
	cx0, cx1 := c.w/5, c.w-c.w/5
	cy0, cy1 := c.h/5, c.h-c.h/5
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			r, g, b := c.at(x, y)
			l := luma8(r, g, b)
			hue, sat, _ := hsv(r, g, b)
			f.meanLuma += l
			if l < 0.16 {
				f.darkFrac++
			}
			if l >= 0.7 && sat < 0.15 {
				f.brightNeutral++
			}
			if hue >= 65 && hue <= 170 && sat >= 0.18 && l >= 0.06 {
				f.vegetation++
			}
			skin := skinWeight(r*unit12, g*unit12, b*unit12) >= weightOne/2
			if x >= cx0 && x < cx1 && y >= cy0 && y < cy1 {
				centerN++
				if skin {
					f.skinCenter++
				}
			} else {
				edgeN++
				if skin {
					f.skinEdge++
				}
			}
			if y < c.h/2 || (c.h == 1) {
				warmN++
				if r >= g && g >= b && hue <= 45 && sat >= 0.55 && l >= 0.35 {
					f.warmTop++
				}
			}
			top, bottom := y < third, y >= c.h-third
			if top {
				f.topLuma += l
			}
			if bottom {
				f.bottomLuma += l
			}
			if top || bottom {
				sky := isSky(c, x, y, l, hue, sat)
				if top {
					topN++
					if sky {
						f.skyTop++
					}
				}
				if bottom {
					bottomN++
					if sky {
						f.skyBottom++
					}
				}
			}
		}
	}
	f.meanLuma /= n
	f.darkFrac /= n
	f.brightNeutral /= n
	f.vegetation /= n
	f.skinCenter /= max(centerN, 1)
	f.skinEdge /= max(edgeN, 1)
	f.topLuma /= max(topN, 1)
	f.bottomLuma /= max(bottomN, 1)
	f.warmTop /= max(warmN, 1)
	f.skyTop /= max(topN, 1)
	f.skyBottom /= max(bottomN, 1)
	f.borderMAD, f.borderLuma, f.subject = border(c)
	return f
}

// isSky: blue (hue 185°–250°, saturation ≥ 0.12, luma ≥ 0.35) or overcast
// (luma ≥ 0.7, saturation < 0.12), and smooth towards the right and lower
// neighbours (summed difference ≤ 24 levels).
func isSky(c cells, x, y int, l, hue, sat float64) bool {
	blue := hue >= 185 && hue <= 250 && sat >= 0.12 && l >= 0.35
	overcast := l >= 0.7 && sat < 0.12
	if !blue && !overcast {
		return false
	}
	r, g, b := c.at(x, y)
	if x+1 < c.w {
		r2, g2, b2 := c.at(x+1, y)
		if absDiff3(r, g, b, r2, g2, b2) > 24 {
			return false
		}
	}
	if y+1 < c.h {
		r2, g2, b2 := c.at(x, y+1)
		if absDiff3(r, g, b, r2, g2, b2) > 24 {
			return false
		}
	}
	return true
}

func absDiff3(r, g, b, r2, g2, b2 int32) int32 {
	return abs32(r-r2) + abs32(g-g2) + abs32(b-b2)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// border measures the ring of cells within 6% of the edges (at least one
// cell): its uniformity, its luma, and the share of interior cells that
// differ clearly from it.
func border(c cells) (mad, lum, subject float64) {
	bw := max(1, (min(c.w, c.h)*6+50)/100)
	if c.w <= 2*bw || c.h <= 2*bw {
		return 255, 0, 0
	}
	inRing := func(x, y int) bool { return x < bw || y < bw || x >= c.w-bw || y >= c.h-bw }
	var sr, sg, sb, n float64
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			if inRing(x, y) {
				r, g, b := c.at(x, y)
				sr, sg, sb, n = sr+float64(r), sg+float64(g), sb+float64(b), n+1
			}
		}
	}
	mr, mg, mb := sr/n, sg/n, sb/n
	var dev, obj, inner float64
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			r, g, b := c.at(x, y)
			d := abs(float64(r)-mr) + abs(float64(g)-mg) + abs(float64(b)-mb)
			if inRing(x, y) {
				dev += d / 3
			} else {
				inner++
				if d > 60 {
					obj++
				}
			}
		}
	}
	return dev / n, (lumaR*mr + lumaG*mg + lumaB*mb) / 255, obj / inner
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// classify applies the scene rules in priority order (doc.go).
func classify(f sceneFeatures, faceCount int) Scene {
	switch {
	case faceCount >= 2:
		return SceneGroup
	case faceCount == 1:
		return ScenePortrait
	case f.skinCenter >= portraitSkin && f.skinEdge <= f.skinCenter*portraitEdgeSkin:
		return ScenePortrait
	case f.borderMAD <= productBorderMAD && f.subject >= productMinObj && f.subject <= productMaxObj:
		return SceneProduct
	case f.meanLuma < nightMeanLuma && f.darkFrac >= nightDarkFrac:
		return SceneNight
	case f.warmTop >= sunsetWarmTop && f.topLuma >= f.bottomLuma+sunsetTopLift:
		return SceneSunset
	case f.skyTop >= landscapeSkyTop && f.skyBottom <= landscapeSkyLow:
		return SceneLandscape
	case f.vegetation >= natureVegetation:
		return SceneNature
	case f.meanLuma >= highKeyMeanLuma && f.brightNeutral >= highKeyNeutral:
		return SceneHighKey
	}
	return SceneUnknown
}

// DetectScene returns the scene category of img given the number of faces
// the caller's face detector found (negative counts as 0). It works on a
// 160-cell downscaled copy, so its cost hardly depends on the image size.
// Deterministic; SceneUnknown for an empty image.
func DetectScene(img *image.NRGBA, faceCount int) Scene {
	if faceCount >= 1 {
		return classify(sceneFeatures{}, faceCount)
	}
	if img == nil || img.Rect.Empty() {
		return SceneUnknown
	}
	return classify(measure(downsample(img, sceneSide)), 0)
}
