package containersvc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/colorspace"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
)

// Test profiles, written here rather than committed: ICC v2 matrix/TRC
// profiles with the published D50 colorants of Adobe RGB (1998) (gamma
// 563/256) and Display P3 (the sRGB curve).
func adobeRGBProfile() []byte {
	return colorspace.EncodeV2("Adobe RGB (1998) test", &colorspace.Profile{
		Matrix: [3][3]float64{
			{0.60974, 0.20528, 0.14919},
			{0.31111, 0.62567, 0.06322},
			{0.01947, 0.06087, 0.74457},
		},
		TRC:   [3]colorspace.Curve{colorspace.Gamma(563.0 / 256), colorspace.Gamma(563.0 / 256), colorspace.Gamma(563.0 / 256)},
		White: colorspace.D50,
	})
}

func displayP3Profile() []byte {
	c := colorspace.Parametric(3, 2.4, 1/1.055, 0.055/1.055, 1/12.92, 0.04045)
	return colorspace.EncodeV2("Display P3 test", &colorspace.Profile{
		Matrix: [3][3]float64{
			{0.51512, 0.29198, 0.15710},
			{0.24120, 0.69225, 0.06657},
			{-0.00105, 0.04189, 0.78407},
		},
		TRC:   [3]colorspace.Curve{c, c, c},
		White: colorspace.D50,
	})
}

// lutProfile is a valid profile with only a LUT (A2B0) transform.
func lutProfile() []byte {
	p := adobeRGBProfile()
	i := bytes.Index(p, []byte("rXYZ"))
	copy(p[i:], "A2B0") // no rXYZ: not a matrix/TRC profile any more
	return p
}

// colourful is a small image of saturated and neutral blocks.
func colourful() *image.NRGBA {
	cols := []color.NRGBA{{200, 120, 80, 255}, {40, 180, 90, 255}, {30, 60, 200, 255}, {128, 128, 128, 255},
		{250, 20, 20, 255}, {230, 200, 150, 255}}
	img := image.NewNRGBA(image.Rect(0, 0, 48, 32))
	for y := range 32 {
		for x := range 48 {
			img.SetNRGBA(x, y, cols[(x/16)+3*(y/16)])
		}
	}
	return img
}

// taggedPNG encodes img with the ICC profile icc in an iCCP chunk (none
// when nil).
func taggedPNG(t *testing.T, img image.Image, icc []byte) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	if icc == nil {
		return b.Bytes()
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(icc)
	require.NoError(t, zw.Close())
	data := append([]byte("test\x00\x00"), z.Bytes()...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(append(chunk, "iCCP"...), data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	src := b.Bytes()
	const afterIHDR = 8 + 25
	return append(append(append([]byte{}, src[:afterIHDR]...), chunk...), src[afterIHDR:]...)
}

// decoded reads an output file back: its pixels and ICC profile.
func decoded(t *testing.T, data []byte) (*image.NRGBA, []byte) {
	t.Helper()
	img, err := imageio.Decode(bytes.NewReader(data), imageio.Limits{})
	require.NoError(t, err)
	return img.Pix, img.Meta.ICC
}

// converted is what the colour conversion makes of img.
func converted(t *testing.T, img *image.NRGBA, src, dst []byte) *image.NRGBA {
	c := image.NewNRGBA(img.Rect)
	copy(c.Pix, img.Pix)
	ok, err := colorspace.Convert(c, src, dst)
	require.NoError(t, err)
	require.True(t, ok)
	return c
}

// TestOutputColorSpace: srgb converts an image tagged Adobe RGB or
// Display P3 to sRGB and embeds an sRGB profile; original (the default)
// keeps pixels and profile; an ICC file from /presets converts to it and
// embeds it; a LUT-based profile or a file that is no profile leaves the
// colours and the source's profile as they are, with a log line.
func TestOutputColorSpace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	presets := f.svc.Mounts().Presets
	adobe, p3 := adobeRGBProfile(), displayP3Profile()
	require.NoError(t, os.WriteFile(filepath.Join(presets, "Display P3.icc"), p3, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(presets, "lut.icc"), lutProfile(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(presets, "junk.icc"), []byte("icc"), 0o644))
	src := colourful()
	f.placeInput(t, "adobe.png", taggedPNG(t, src, adobe))
	f.placeInput(t, "p3.png", taggedPNG(t, src, p3))
	f.placeInput(t, "plain.png", taggedPNG(t, src, nil))
	run := func(key, q string) (*image.NRGBA, []byte) {
		return decoded(t, f.correctedBytes(t, key, "preset=none&"+q))
	}

	for _, tc := range []struct {
		key string
		icc []byte
	}{{"adobe.png", adobe}, {"p3.png", p3}} {
		pix, icc := run(tc.key, "outputColorSpace=srgb")
		assert.Equal(t, colorspace.SRGBProfile(), icc, "%s: an sRGB profile is embedded", tc.key)
		assert.True(t, bytes.Equal(converted(t, src, tc.icc, colorspace.SRGBProfile()).Pix, pix.Pix), tc.key)
		assert.False(t, bytes.Equal(src.Pix, pix.Pix), "%s: the colours change", tc.key)

		for _, q := range []string{"outputColorSpace=original", "outputColorSpace=ORIGINAL", ""} {
			pix, icc = run(tc.key, q)
			assert.Equal(t, tc.icc, icc, "%s %q keeps the profile", tc.key, q)
			assert.True(t, bytes.Equal(src.Pix, pix.Pix), "%s %q keeps the pixels", tc.key, q)
		}
	}

	pix, icc := run("plain.png", "outputColorSpace=srgb")
	assert.Nil(t, icc, "an untagged image is sRGB already")
	assert.True(t, bytes.Equal(src.Pix, pix.Pix))

	pix, icc = run("plain.png", "outputColorSpace="+url.QueryEscape("Display P3.icc"))
	assert.Equal(t, p3, icc, "the profile from /presets is embedded")
	assert.True(t, bytes.Equal(converted(t, src, nil, p3).Pix, pix.Pix))
	assert.False(t, bytes.Equal(src.Pix, pix.Pix))

	pix, icc = run("adobe.png", "outputColorSpace="+url.QueryEscape("Display P3.icc"))
	assert.Equal(t, p3, icc)
	assert.True(t, bytes.Equal(converted(t, src, adobe, p3).Pix, pix.Pix))

	for _, name := range []string{"lut.icc", "junk.icc"} {
		pix, icc = run("adobe.png", "outputColorSpace="+name)
		assert.Equal(t, adobe, icc, "%s: the source's profile stays", name)
		assert.True(t, bytes.Equal(src.Pix, pix.Pix), "%s: colours left unconverted", name)
	}
	line := f.logs.find(t, MsgSkipped)
	require.NotNil(t, line)
	assert.Contains(t, line["reason"], "unconverted")

	// A JPEG output carries the profile too.
	out := f.correctedBytes(t, "p3.png", "preset=none&outputType=jpg&outputColorSpace=srgb")
	_, icc = decoded(t, out)
	assert.Equal(t, colorspace.SRGBProfile(), icc)
}
