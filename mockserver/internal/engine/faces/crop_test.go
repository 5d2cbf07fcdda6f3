package faces

import (
	"errors"
	"image"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCropParamsDefaults(t *testing.T) {
	t.Parallel()
	p, err := ParseCropParams("", " ", "", "", "", "")
	require.NoError(t, err)
	assert.Equal(t, DefaultCropParams(), p)
	assert.Equal(t, CropParams{Size: 0.5, X: 0.5, Y: 0.4, ARW: 3, ARH: 4}, p)
}

func TestParseCropParamsValues(t *testing.T) {
	t.Parallel()
	p, err := ParseCropParams("0.6", "45%", "0,35", "16", "9", "-1")
	require.NoError(t, err)
	assert.Equal(t, CropParams{Size: 0.6, X: 0.45, Y: 0.35, ARW: 16, ARH: 9, TopHeadGap: -1}, p)

	p, err = ParseCropParams(" 2e-1 ", "", "", "1.5", "1", "0.1")
	require.NoError(t, err)
	assert.InDelta(t, 0.2, p.Size, 1e-12)
	assert.Equal(t, 1.5, p.ARW)
	assert.Equal(t, 0.1, p.TopHeadGap)
}

func TestParseCropParamsErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args  [6]string
		param string
	}{
		{[6]string{"abc", "", "", "", "", ""}, ParamSize},
		{[6]string{"0", "", "", "", "", ""}, ParamSize},
		{[6]string{"NaN", "", "", "", "", ""}, ParamSize},
		{[6]string{"", "Inf", "", "", "", ""}, ParamX},
		{[6]string{"", "1.1", "", "", "", ""}, ParamX},
		{[6]string{"", "", "-0.1", "", "", ""}, ParamY},
		{[6]string{"", "", "0x1p-2", "", "", ""}, ParamY},
		{[6]string{"", "", "", "0", "", ""}, ParamARW},
		{[6]string{"", "", "", "50%", "", ""}, ParamARW},
		{[6]string{"", "", "", "", "-4", ""}, ParamARH},
		{[6]string{"", "", "", "", "1_000", ""}, ParamARH},
		{[6]string{"", "", "", "", "", "zero"}, ParamTopHeadGap},
		{[6]string{"", "", "", "", "", "1,2,3"}, ParamTopHeadGap},
	}
	for _, c := range cases {
		_, err := ParseCropParams(c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5])
		require.Error(t, err, "%q", c.args)
		var pe *CropParamError
		require.True(t, errors.As(err, &pe), "%q", c.args)
		assert.Equal(t, c.param, pe.Param, "%q", c.args)
		assert.ErrorIs(t, err, ErrInvalidCropParam)
		assert.Contains(t, err.Error(), "faces: ")
		assert.Contains(t, err.Error(), c.param)
	}
}

// portrait is a 2000×2000 image with one face: box 200 px, eyes 72 px apart.
var portraitFace = Face{
	Box:      image.Rect(400, 900, 600, 1100),
	LeftEye:  PointF{X: 464, Y: 985},
	RightEye: PointF{X: 536, Y: 985},
}

const portraitW, portraitH = 2000, 2000

// Head model for portraitFace: height 1.5·200 = 300, top 900-80 = 820,
// centre x 500, eye line 985.
func crop(t *testing.T, p CropParams) image.Rectangle {
	t.Helper()
	r, err := AutoCrop(portraitW, portraitH, []Face{portraitFace}, p)
	require.NoError(t, err)
	require.True(t, r.In(image.Rect(0, 0, portraitW, portraitH)), "%v", r)
	return r
}

func TestAutoCropDefaults(t *testing.T) {
	t.Parallel()
	r := crop(t, DefaultCropParams())
	// Crop height 300/0.5 = 600, width 450 (3:4); head centre at 0.5, eyes at 0.4.
	assert.Equal(t, image.Rect(275, 745, 725, 1345), r)
}

func TestAutoCropParametersMoveAndScale(t *testing.T) {
	t.Parallel()
	base := DefaultCropParams()

	p := base
	p.Size = 0.25 // head a quarter of the crop: crop twice as tall
	r := crop(t, p)
	assert.Equal(t, 1200, r.Dy())
	assert.Equal(t, 900, r.Dx())
	assert.Equal(t, 500-450, r.Min.X)
	assert.Equal(t, 985-480, r.Min.Y) // eyes at 0.4·1200 = 480 below the top

	p = base
	p.X = 0.25 // head centre a quarter in from the left edge
	r = crop(t, p)
	assert.Equal(t, 388, r.Min.X) // 500 - 0.25·450 = 387.5, rounded
	assert.Equal(t, 450, r.Dx())

	p = base
	p.Y = 0.5 // eye line in the middle
	r = crop(t, p)
	assert.Equal(t, 985-300, r.Min.Y)

	p = base
	p.TopHeadGap = 0.1 // head top 60 px below the crop top; Y ignored
	r = crop(t, p)
	assert.Equal(t, 820-60, r.Min.Y)
	p.Y = 0.9
	assert.Equal(t, r, crop(t, p))
	p.TopHeadGap = -0.5 // disabled again
	assert.Equal(t, 985-540, crop(t, p).Min.Y)

	p = base
	p.ARW, p.ARH = 16, 9
	r = crop(t, p)
	assert.Equal(t, r.Dx()*9, r.Dy()*16, "exact 16:9: %v", r)
	assert.InDelta(t, 600, r.Dy(), 5)
	assert.Equal(t, 0, r.Min.X, "1072 px wide around x=500: shifted inside")

	p.ARW, p.ARH = 1, 1
	r = crop(t, p)
	assert.Equal(t, image.Rect(200, 745, 800, 1345), r)

	p.ARW, p.ARH = 1.414, 1 // no small integer ratio: sides rounded separately
	r = crop(t, p)
	assert.Equal(t, 600, r.Dy())
	assert.Equal(t, 848, r.Dx())
}

func TestAutoCropClampsInsideImage(t *testing.T) {
	t.Parallel()
	p := DefaultCropParams()
	// Face near the top-left corner: crop keeps its size, shifted inside.
	f := portraitFace
	f.Box = f.Box.Sub(image.Pt(380, 880))
	f.LeftEye = PointF{X: f.LeftEye.X - 380, Y: f.LeftEye.Y - 880}
	f.RightEye = PointF{X: f.RightEye.X - 380, Y: f.RightEye.Y - 880}
	r, err := AutoCrop(portraitW, portraitH, []Face{f}, p)
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 450, 600), r)

	// Near the bottom-right corner.
	f = portraitFace
	f.Box = f.Box.Add(image.Pt(1390, 890))
	f.LeftEye = PointF{X: f.LeftEye.X + 1390, Y: f.LeftEye.Y + 890}
	f.RightEye = PointF{X: f.RightEye.X + 1390, Y: f.RightEye.Y + 890}
	r, err = AutoCrop(portraitW, portraitH, []Face{f}, p)
	require.NoError(t, err)
	assert.Equal(t, image.Rect(1550, 1400, 2000, 2000), r)

	// Crop larger than the image (750 px tall): shrunk to the largest 3:4
	// that fits.
	f = portraitFace
	f.Box = f.Box.Sub(image.Pt(0, 600))
	f.LeftEye.Y -= 600
	f.RightEye.Y -= 600
	p.Size = 0.4
	r, err = AutoCrop(800, 600, []Face{f}, p)
	require.NoError(t, err)
	assert.Equal(t, 600, r.Dy())
	assert.Equal(t, 450, r.Dx())
	assert.True(t, r.In(image.Rect(0, 0, 800, 600)))

	// Wide crop on a tall image: limited by the width.
	p.ARW, p.ARH = 2, 1
	p.Size = 0.1
	r, err = AutoCrop(700, 2000, []Face{portraitFace}, p)
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, r.Min.Y, 700, r.Min.Y+350), r)
}

func TestAutoCropAlwaysInsideWithExactAspect(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(7))
	ratios := [][2]float64{{3, 4}, {4, 3}, {1, 1}, {16, 9}, {2, 3}, {5, 7}}
	for i := 0; i < 500; i++ {
		w, h := 64+rng.Intn(3000), 64+rng.Intn(3000)
		s := 10 + rng.Intn(min(w, h)-10)
		x, y := rng.Intn(w-s+1), rng.Intn(h-s+1)
		f := Face{Box: image.Rect(x, y, x+s, y+s)}
		ar := ratios[rng.Intn(len(ratios))]
		p := CropParams{Size: 0.05 + 0.95*rng.Float64(), X: rng.Float64(), Y: rng.Float64(), ARW: ar[0], ARH: ar[1]}
		if rng.Intn(2) == 0 {
			p.TopHeadGap = 0.5 * rng.Float64()
		}
		r, err := AutoCrop(w, h, []Face{f}, p)
		require.NoError(t, err)
		require.True(t, r.In(image.Rect(0, 0, w, h)) && !r.Empty(), "%v in %dx%d", r, w, h)
		require.Equal(t, float64(r.Dx())*ar[1], float64(r.Dy())*ar[0], "%v for %v", r, ar)
	}
}

func TestAutoCropFaceSelection(t *testing.T) {
	t.Parallel()
	p := DefaultCropParams()
	_, err := AutoCrop(2000, 2000, nil, p)
	assert.ErrorIs(t, err, ErrNoFace)
	_, err = AutoCrop(2000, 2000, []Face{{}}, p)
	assert.ErrorIs(t, err, ErrNoFace)

	other := Face{Box: image.Rect(1200, 300, 1380, 480)}
	_, err = AutoCrop(2000, 2000, []Face{other, portraitFace}, p)
	assert.ErrorIs(t, err, ErrMultipleFaces)

	small := Face{Box: image.Rect(1500, 300, 1600, 400)} // quarter of the area
	want := crop(t, p)
	r, err := AutoCrop(2000, 2000, []Face{small, portraitFace}, p)
	require.NoError(t, err)
	assert.Equal(t, want, r, "the dominant face is used")

	_, err = AutoCrop(0, 100, []Face{portraitFace}, p)
	assert.ErrorIs(t, err, ErrInvalidImageSize)

	_, err = AutoCrop(2000, 2000, []Face{portraitFace}, CropParams{})
	var pe *CropParamError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, ParamSize, pe.Param)
}

func TestAutoCropWithoutEyesUsesPriors(t *testing.T) {
	t.Parallel()
	noEyes := Face{Box: portraitFace.Box}
	r, err := AutoCrop(portraitW, portraitH, []Face{noEyes}, DefaultCropParams())
	require.NoError(t, err)
	// Prior eye line at 900+0.425·200 = 985, centre at 400+(0.325+0.685)/2·200 = 501.
	assert.Equal(t, image.Rect(276, 745, 726, 1345), r)
}

func TestAutoCropOnPhoto(t *testing.T) {
	t.Parallel()
	img := loadAstronaut(t)
	faces := detectAstronaut(t)
	require.Len(t, faces, 1)
	r, err := AutoCrop(img.Bounds().Dx(), img.Bounds().Dy(), faces, DefaultCropParams())
	require.NoError(t, err)
	assert.True(t, faces[0].Box.In(r), "crop %v holds the face %v", r, faces[0].Box)
	assert.Equal(t, r.Dx()*4, r.Dy()*3)
}

// TestAutoCropTakesAnyPositiveSize: the seed gives the editor's values no
// range, so a head size over 1, a 1:30 ratio and a head gap of 1.5 are
// taken, and the crop stays inside the image.
func TestAutoCropTakesAnyPositiveSize(t *testing.T) {
	t.Parallel()
	p, err := ParseCropParams("1.25", "", "", "1", "30", "1.5")
	require.NoError(t, err)
	r, err := AutoCrop(portraitW, portraitH, []Face{portraitFace}, p)
	require.NoError(t, err)
	assert.True(t, r.In(image.Rect(0, 0, portraitW, portraitH)), "%v", r)
	assert.False(t, r.Empty())
}
