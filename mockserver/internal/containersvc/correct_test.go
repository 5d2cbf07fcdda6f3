package containersvc

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image/jpeg"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCorrectKeyChecks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name, key, id string
	}{
		{"empty", "", MsgNoID},
		{"slash", "a/b.jpg", MsgInvalidID},
		{"backslash", `a\b.jpg`, MsgInvalidID},
		{"dotdot", "..", MsgInvalidID},
		{"dotdot inside", "a..b", MsgInvalidID},
		{"parent path", "../sdk_license/pfc-mock.lic", MsgInvalidID},
		{"hidden", ".upload-123", MsgInvalidID},
		{"newline", "a\nb", MsgInvalidID},
		{"nul", "a\x00b", MsgInvalidID},
		{"del", "a\x7fb", MsgInvalidID},
		{"bad utf8", "a\xffb", MsgInvalidID},
		{"too long", strings.Repeat("a", MaxKeyLength+1), MsgInvalidID},
		{"unknown", "nosuch.jpg", MsgUnknownImageID},
		{"directory", "sub", MsgUnknownImageID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.key == "sub" {
				require.NoError(t, os.MkdirAll(filepath.Join(f.svc.Mounts().Input, "sub"), 0o755))
			}
			res, herr := f.svc.Correct(t.Context(), tc.key, nil)
			require.NotNil(t, herr)
			assert.Nil(t, res)
			assert.Equal(t, http.StatusBadRequest, herr.Status)
			assert.Equal(t, tc.id, herr.Code)
			line := f.logs.find(t, tc.id)
			require.NotNil(t, line)
			assert.Equal(t, "debug", line["level"])
			assert.EqualValues(t, 400, line["status"])
		})
	}
}

func TestCorrectQueryParsing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "p.jpg", jpegBytes(t, 64, 48))
	for _, tc := range []struct {
		query, param, code string
	}{
		{"outputQuality=39", "outputQuality", "invalid_parameter"},
		{"outputQuality=101", "outputQuality", "invalid_parameter"},
		{"outputQuality=9x", "outputQuality", "invalid_parameter"},
		{"outputQuality=0x50", "outputQuality", "invalid_parameter"},
		{"width=abc", "width", "invalid_parameter"},
		{"width=31", "width", "invalid_parameter"},
		{"height=10001", "height", "invalid_parameter"},
		{"scale=0", "scale", "invalid_parameter"},
		{"autocrop=yes", "autocrop", "invalid_parameter"},
		{"autocrop=TRUE", "autocrop", "invalid_parameter"},
		{"preserveInputFileName=1", "preserveInputFileName", "invalid_parameter"},
		{"enableComposite=", "enableComposite", "invalid_parameter"},
		{"skip=photos", "skip", "invalid_parameter"},
		{"skip-exif-software=a,,b", "skip-exif-software", "invalid_parameter"},
		{"preset=", "preset", "invalid_parameter"},
		{"width=100&width=200", "width", "invalid_parameter"},
		{"outputColorSpace=../x.icc", "outputColorSpace", "invalid_parameter"},
		{"outputColorSpace=missing.icc", "outputColorSpace", "invalid_parameter"},
		{"outputType=gif", "outputType", MsgUnknownOutputType},
		{"outputType=tiff&width=1", "outputType", MsgUnknownOutputType},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			_, herr := f.svc.Correct(t.Context(), "p.jpg", q)
			require.NotNil(t, herr)
			assert.Equal(t, http.StatusBadRequest, herr.Status)
			assert.Equal(t, tc.code, herr.Code)
			assert.Equal(t, tc.param, herr.Parameter)
			id := MsgInvalidParameter
			if tc.code == MsgUnknownOutputType {
				id = MsgUnknownOutputType
			}
			line := f.logs.find(t, id)
			require.NotNil(t, line)
			assert.Equal(t, "debug", line["level"])
		})
	}
}

func TestParseRequestReportsEveryProblem(t *testing.T) {
	t.Parallel()
	c := Config{}
	require.NoError(t, c.check())
	q, _ := url.ParseQuery("width=5&outputQuality=1&skip=x")
	_, herr := c.parseRequest(q)
	require.NotNil(t, herr)
	assert.Equal(t, "outputQuality", herr.Parameter, "first in table order")
	for _, p := range []string{"outputQuality", "width", "skip"} {
		assert.Contains(t, herr.Message, p+":")
	}
}

func TestParseRequestDefaultsAndPriority(t *testing.T) {
	t.Parallel()
	comp := false
	c := Config{SkipMode: "legacy", SkipEXIFSoftware: []string{"Snap"}, PreserveInputFileName: true, EnableComposite: &comp}
	require.NoError(t, c.check())
	r, herr := c.parseRequest(url.Values{})
	require.Nil(t, herr)
	assert.Equal(t, &Request{Quality: 90, ColorSpace: "original", Skip: "legacy", SkipEXIFSoftware: []string{"Snap"},
		PreserveInputFileName: true}, r)

	for _, tc := range []struct {
		query, param string
		value        int
	}{
		{"scale=50&short=100&long=200&height=300&width=400", "width", 400},
		{"scale=50&short=100&long=200&height=300", "height", 300},
		{"scale=50&short=100&long=200", "long", 200},
		{"scale=50&short=100", "short", 100},
		{"scale=50", "scale", 50},
	} {
		q, _ := url.ParseQuery(tc.query)
		r, herr := c.parseRequest(q)
		require.Nil(t, herr)
		assert.Equal(t, tc.param, r.ResizeParam, tc.query)
		assert.Equal(t, tc.value, r.ResizeValue, tc.query)
	}
	q, _ := url.ParseQuery("outputType=JPEG&skip-exif-software=&preserveInputFileName=false&enableComposite=true&outputColorSpace=sRGB")
	r, herr = c.parseRequest(q)
	require.Nil(t, herr)
	assert.Equal(t, "jpg", r.OutputType)
	assert.Empty(t, r.SkipEXIFSoftware)
	assert.False(t, r.PreserveInputFileName)
	assert.True(t, r.EnableComposite)
	assert.Equal(t, "srgb", r.ColorSpace)
}

func TestCorrectUploadedImage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.SiteURL = "http://pfc.example:8080/" })
	up, herr := f.svc.Upload(t.Context(), "image/jpeg", bytes.NewReader(jpegBytes(t, 120, 80)))
	require.Nil(t, herr)
	q, _ := url.ParseQuery("width=60&outputType=png")
	res, herr := f.svc.Correct(t.Context(), up.ImageKey, q)
	require.Nil(t, herr)
	assert.Regexp(t, `^http://pfc\.example:8080/output/[0-9a-f]{32}\.png$`, res.CorrectedURL)
	assert.GreaterOrEqual(t, res.Scene, -1)

	name := outputName(t, res.CorrectedURL)
	out, fi, herr := f.svc.OpenOutput(name)
	require.Nil(t, herr)
	defer out.Close()
	assert.Positive(t, fi.Size())
	head := make([]byte, 8)
	_, err := out.Read(head)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG\r\n\x1a\n", string(head))
	assertNoTemporaries(t, f.svc.Mounts().Output)
	assert.NotNil(t, f.logs.find(t, MsgCorrected))
}

func TestCorrectResizesByPriority(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "a.jpg", jpegBytes(t, 200, 100))
	q, _ := url.ParseQuery("height=50&long=150&scale=10")
	res, herr := f.svc.Correct(t.Context(), "a.jpg", q)
	require.Nil(t, herr)
	out, _, herr := f.svc.OpenOutput(outputName(t, res.CorrectedURL))
	require.Nil(t, herr)
	defer out.Close()
	cfg, err := jpeg.DecodeConfig(out)
	require.NoError(t, err)
	assert.Equal(t, [2]int{100, 50}, [2]int{cfg.Width, cfg.Height}, "height wins over long and scale")
}

func TestCorrectDirectFileMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.PreserveInputFileName = true })
	f.placeInput(t, "holiday photo.jpg", jpegBytes(t, 96, 64))
	res, herr := f.svc.Correct(t.Context(), "holiday photo.jpg", nil)
	require.Nil(t, herr)
	assert.Equal(t, "http://localhost/output/holiday%20photo.jpg", res.CorrectedURL)
	assert.FileExists(t, filepath.Join(f.svc.Mounts().Output, "holiday photo.jpg"))

	// The query parameter overrides the environment default.
	q := url.Values{"preserveInputFileName": {"false"}}
	res, herr = f.svc.Correct(t.Context(), "holiday photo.jpg", q)
	require.Nil(t, herr)
	assert.NotContains(t, res.CorrectedURL, "holiday")
}

func TestCorrectWithoutLicenceCopiesInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"no file", func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, LicenseFileName))) }},
		{"tampered", func(t *testing.T, dir string) {
			l := NewLicense("tests", time.Time{})
			l.Licensee = "someone else"
			require.NoError(t, WriteLicense(dir, l))
		}},
		{"expired", func(t *testing.T, dir string) { require.NoError(t, WriteLicense(dir, NewLicense("tests", t0))) }},
		{"not json", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, LicenseFileName), []byte("KEY-123"), 0o644))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil)
			tc.setup(t, f.svc.Mounts().License)
			src := jpegBytes(t, 80, 60)
			f.placeInput(t, "in.jpg", src)
			q := url.Values{"outputType": {"png"}, "width": {"40"}}
			res, herr := f.svc.Correct(t.Context(), "in.jpg", q)
			require.Nil(t, herr)
			assert.Equal(t, -1, res.Scene)
			got, err := os.ReadFile(filepath.Join(f.svc.Mounts().Output, outputName(t, res.CorrectedURL)))
			require.NoError(t, err)
			assert.Equal(t, src, got, "byte-identical to the original")
			line := f.logs.find(t, MsgLicense)
			require.NotNil(t, line)
			assert.Equal(t, "warning", line["level"])
			assert.NotEmpty(t, line["reason"])
			assert.False(t, f.svc.Version().License.Valid)
		})
	}
}

func TestCorrectLicenceDroppedInLater(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	m := f.svc.Mounts()
	require.NoError(t, os.Remove(filepath.Join(m.License, LicenseFileName)))
	require.Error(t, f.svc.LicenseError())
	require.NoError(t, WriteLicense(m.License, NewLicense("late", t0.Add(time.Hour))))
	require.NoError(t, f.svc.LicenseError())
	f.clock.Advance(time.Hour)
	assert.ErrorContains(t, f.svc.LicenseError(), "expired")
}

func TestCorrectEngineRejections(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "tiny.png", pngBytes(t, 31, 200))
	f.placeInput(t, "junk.jpg", []byte("not an image at all"))
	f.placeInput(t, "bomb.png", hugeHeaderPNG(t, 100000, 100000))
	for _, key := range []string{"tiny.png", "junk.jpg", "bomb.png"} {
		_, herr := f.svc.Correct(t.Context(), key, nil)
		require.NotNil(t, herr, key)
		assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
		assert.Equal(t, MsgProcessingPFCError, herr.Code)
	}
	line := f.logs.find(t, MsgProcessingPFCError)
	require.NotNil(t, line)
	assert.Equal(t, "error", line["level"])
	assert.Contains(t, line["detail"], "32")
	assertNoFiles(t, f.svc.Mounts().Output)

	// 32 px on the short side is accepted.
	f.placeInput(t, "ok.png", pngBytes(t, 32, 200))
	_, herr := f.svc.Correct(t.Context(), "ok.png", nil)
	assert.Nil(t, herr)
}

func TestCorrectSkipsBeautifyAboveAspect(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "wide.png", pngBytes(t, 32*22, 32))
	_, herr := f.svc.Correct(t.Context(), "wide.png", nil)
	require.Nil(t, herr)
	line := f.logs.find(t, MsgSkipped)
	require.NotNil(t, line)
	assert.Contains(t, line["reason"], "21")
}

func TestCorrectOutputFileErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "a.jpg", jpegBytes(t, 64, 64))
	out := f.svc.Mounts().Output
	require.NoError(t, os.Remove(out))
	require.NoError(t, os.WriteFile(out, nil, 0o644))
	_, herr := f.svc.Correct(t.Context(), "a.jpg", nil)
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assert.Equal(t, MsgTemporaryOutputFile, herr.Code)
	line := f.logs.find(t, MsgTemporaryOutputFile)
	require.NotNil(t, line)
	assert.Equal(t, "error", line["level"])
}

func TestOpenOutputRefusesEscapes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, name := range []string{"", "../sdk_license/pfc-mock.lic", "..", ".out-1", "missing.jpg"} {
		_, _, herr := f.svc.OpenOutput(name)
		require.NotNil(t, herr, name)
		assert.Equal(t, http.StatusNotFound, herr.Status)
	}
}

func TestCorrectCancelledIsNotAnEngineFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.placeInput(t, "a.jpg", jpegBytes(t, 64, 64))
	ctx, cancel := contextWithCancel(t)
	cancel()
	_, herr := f.svc.Correct(ctx, "a.jpg", nil)
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assert.Equal(t, "unavailable", herr.Code)
	assert.Nil(t, f.logs.find(t, MsgProcessingPFCError))
}

func TestCorrectOutputCannotBeStored(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.PreserveInputFileName = true })
	f.placeInput(t, "a.jpg", jpegBytes(t, 64, 64))
	// A non-empty directory where the output should go: the rename fails.
	require.NoError(t, os.MkdirAll(filepath.Join(f.svc.Mounts().Output, "a.jpg", "sub"), 0o755))
	_, herr := f.svc.Correct(t.Context(), "a.jpg", nil)
	require.NotNil(t, herr)
	assert.Equal(t, http.StatusServiceUnavailable, herr.Status)
	assert.Equal(t, MsgTemporaryCloseOutput, herr.Code)
	line := f.logs.find(t, MsgTemporaryCloseOutput)
	require.NotNil(t, line)
	assert.Equal(t, "error", line["level"])
	assertNoTemporaries(t, f.svc.Mounts().Output)
}

// hugeHeaderPNG is a small PNG whose header declares w x h pixels (a
// decompression bomb's header): the engine must refuse it from the header,
// before allocating anything of that size.
func hugeHeaderPNG(t *testing.T, w, h uint32) []byte {
	t.Helper()
	p := pngBytes(t, 4, 4)
	binary.BigEndian.PutUint32(p[16:], w) // IHDR width
	binary.BigEndian.PutUint32(p[20:], h) // IHDR height
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}
