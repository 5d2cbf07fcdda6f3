package containersvc

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCorrectPresets(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	p := f.svc.Mounts().Presets
	require.NoError(t, os.WriteFile(filepath.Join(p, "Warm.preset"), []byte("vibrance = 0.5\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p, "Bare"), []byte("contrast = 0.2\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p, "Old.pcp"), []byte{0, 1, 2, 3}, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p, "Empty.preset"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p, "Pro.preset"), []byte("group = Pro\ncontrast = 0.1\n"), 0o644))
	group := filepath.Join(p, "Studio AI")
	require.NoError(t, os.MkdirAll(group, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(group, "default.preset"), []byte("contrast = 0.1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(group, "landscape.preset"), []byte("vibrance = 0.4\ngroup = Pro\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(group, "0.preset"), []byte("vibrance = 0.1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(group, "notes.txt"), []byte("ignored"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(p, "EmptyGroup"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p, "display.icc"), []byte("icc"), 0o644))
	f.placeInput(t, "a.jpg", jpegBytes(t, 64, 48))

	for _, tc := range []struct {
		preset string
		ok     bool
	}{
		{"Warm", true}, {"Warm.preset", true}, {"Bare", true}, {"Old", true},
		{"Studio AI", true}, {"Pro", true}, {"Universal", true}, {"none", true},
		{"School and Sports", true},
		{"Cold", false}, {"pro", false}, {"EmptyGroup", false}, {"../Warm", false},
		{"Empty", false}, // an empty file: the engine refuses it
	} {
		t.Run(tc.preset, func(t *testing.T) {
			res, herr := f.svc.Correct(t.Context(), "a.jpg", url.Values{"preset": {tc.preset}})
			if tc.ok {
				require.Nil(t, herr)
				assert.NotEmpty(t, res.CorrectedURL)
				return
			}
			require.NotNil(t, herr)
			if tc.preset == "Empty" {
				assert.Equal(t, MsgProcessingPFCError, herr.Code)
				return
			}
			assert.Equal(t, http.StatusBadRequest, herr.Status)
			assert.Equal(t, MsgUnknownPreset, herr.Code)
			line := f.logs.find(t, MsgUnknownPreset)
			require.NotNil(t, line)
			assert.Equal(t, "debug", line["level"])
		})
	}
	_, herr := f.svc.Correct(t.Context(), "a.jpg", url.Values{"outputColorSpace": {"display.icc"}})
	assert.Nil(t, herr)
}

func TestGroupText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "default.preset"), []byte("contrast = 0.1"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "night.preset"), []byte("[scene 2]\nbrightness = 0.2"), 0o644))
	b, err := groupText(dir)
	require.NoError(t, err)
	assert.Equal(t, "contrast = 0.1\n[scene 4]\nbrightness = 0.2\n", string(b))
}

// jpegWithSoftware returns a JPEG whose EXIF IFD0 has Software = sw.
func jpegWithSoftware(t *testing.T, sw string) []byte {
	plain := jpegBytes(t, 64, 48)
	val := append([]byte(sw), 0)
	var tiff bytes.Buffer
	tiff.WriteString("II*\x00")
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(8))
	_ = binary.Write(&tiff, binary.LittleEndian, uint16(1))
	_ = binary.Write(&tiff, binary.LittleEndian, []uint16{0x0131, 2})
	_ = binary.Write(&tiff, binary.LittleEndian, []uint32{uint32(len(val)), 26})
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(0))
	tiff.Write(val)
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	var out bytes.Buffer
	out.Write(plain[:2])
	out.Write([]byte{0xFF, 0xE1})
	_ = binary.Write(&out, binary.BigEndian, uint16(len(seg)+2))
	out.Write(seg)
	out.Write(plain[2:])
	return out.Bytes()
}

func TestEXIFSoftware(t *testing.T) {
	t.Parallel()
	data := jpegWithSoftware(t, "Adobe Photoshop 25.0")
	assert.Equal(t, "Adobe Photoshop 25.0", exifSoftware(bytes.NewReader(data)))
	assert.Empty(t, exifSoftware(bytes.NewReader(jpegBytes(t, 40, 40))))
	assert.Empty(t, exifSoftware(bytes.NewReader([]byte("junk"))))
	// A Software entry whose count is 2^32-1 (negative as a 32-bit int).
	assert.Empty(t, tiffSoftware([]byte("II*\x00\x08\x00\x00\x00\x01\x00\x31\x01\x02\x00\xff\xff\xff\xff\x00\x00\x00\x00")))
	assert.Equal(t, "Photoshop", skippedBySoftware("Adobe Photoshop 25.0", []string{"gimp", "Photoshop"}))
	assert.Empty(t, skippedBySoftware("", []string{"x"}))
}

func TestCorrectSkipsEXIFSoftware(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.SkipEXIFSoftware = []string{"photoshop"} })
	f.placeInput(t, "edited.jpg", jpegWithSoftware(t, "Adobe Photoshop 25.0"))
	_, herr := f.svc.Correct(t.Context(), "edited.jpg", nil)
	require.Nil(t, herr)
	line := f.logs.find(t, MsgSkipped)
	require.NotNil(t, line)
	assert.Equal(t, "info", line["level"])
	assert.Contains(t, line["reason"], "photoshop")

	// skip-exif-software= (empty) turns the default off.
	g := newFixture(t, func(c *Config) { c.SkipEXIFSoftware = []string{"photoshop"} })
	g.placeInput(t, "edited.jpg", jpegWithSoftware(t, "Adobe Photoshop 25.0"))
	_, herr = g.svc.Correct(t.Context(), "edited.jpg", url.Values{"skip-exif-software": {""}})
	require.Nil(t, herr)
	assert.Nil(t, g.logs.find(t, MsgSkipped))
}
