package hostedsvc

import (
	"bytes"
	"encoding/binary"
	"math"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParsePFCResolves(t *testing.T) {
	q, err := url.ParseQuery("fileKey=k&width=100&scale=50&removeBackground=true&bgGenerativePrompt=sky&bgFileKey=x&bgColor=red&cache=false&autocrop=true&autocropSize=1.5")
	require.NoError(t, err)
	sp, aerr := parsePFC(q)
	require.Nil(t, aerr)
	param, value := resizeOf(sp)
	assert.Equal(t, pfcdoc.Width, param)
	assert.Equal(t, 100, value)
	assert.Equal(t, pfcdoc.ModeGenerative, bgModeOf(sp))
	assert.Equal(t, []string{"scale", "bgColor", "bgFileKey"}, ignoredNames(sp.ignored))
	assert.False(t, sp.cache)
	require.NotNil(t, autocropValuesOf(sp)[0])
	assert.Equal(t, 1.5, *autocropValuesOf(sp)[0])
	assert.Nil(t, autocropValuesOf(sp)[1])

	sp, aerr = parsePFC(url.Values{"fileKey": {"k"}})
	require.Nil(t, aerr)
	assert.True(t, sp.cache, "cache defaults to true")
	assert.Equal(t, pfcdoc.ModeNone, bgModeOf(sp))
	assert.True(t, sp.req.PreserveMetadata, "preserveMetadata defaults to true")
	assert.Equal(t, FileTypeImage, sp.fileType)
}

func TestParsePFCErrorsInTableOrder(t *testing.T) {
	q := url.Values{"webhookUrl": {"http://x"}, "fileKey": {"k"}, "scale": {"0"}, "cache": {"1"}}
	_, aerr := parsePFC(q)
	require.NotNil(t, aerr)
	assert.Equal(t, "cache", aerr.Parameter)
	assert.Equal(t, 400, aerr.Status)
	assert.Equal(t, `cache: must be true or false, got "1"; scale: must be a positive integer percentage, got 0; webhookUrl: must use https (the service rejects plain http)`, aerr.Message)

	_, aerr = parsePFC(url.Values{"fileKey": {"a", "b"}})
	require.NotNil(t, aerr)
	assert.Equal(t, "fileKey", aerr.Parameter)
	assert.Equal(t, "fileKey: must be given at most once", aerr.Message)

	_, aerr = parsePFC(url.Values{"fileKey": {"k"}, "autocrop": {"true"}, "autocropX": {"1", "2"}})
	require.NotNil(t, aerr)
	assert.Equal(t, "autocropX: must be given at most once", aerr.Message, "reported once")
}

func TestVideoDimensions(t *testing.T) {
	box := func(typ string, payload []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(8+len(payload)))
		return append(append(b, typ...), payload...)
	}
	tkhd := func(w, h int, size int) []byte {
		p := make([]byte, size)
		binary.BigEndian.PutUint32(p[size-8:], uint32(w)<<16)
		binary.BigEndian.PutUint32(p[size-4:], uint32(h)<<16)
		return box("tkhd", p)
	}
	audio := box("trak", tkhd(0, 0, 84))
	video := box("trak", tkhd(1280, 720, 96))
	file := append(box("ftyp", []byte("isom0000")), box("moov", append(audio, video...))...)
	w, h, ok := videoDimensions(bytes.NewReader(file), int64(len(file)))
	require.True(t, ok)
	assert.Equal(t, 1280, w)
	assert.Equal(t, 720, h)

	// 64-bit box size.
	big := binary.BigEndian.AppendUint32(nil, 1)
	big = append(big, "free"...)
	big = binary.BigEndian.AppendUint64(big, 24)
	big = append(big, make([]byte, 8)...)
	file2 := append(big, box("moov", video)...)
	w, h, ok = videoDimensions(bytes.NewReader(file2), int64(len(file2)))
	require.True(t, ok)
	assert.Equal(t, 1280, w)
	assert.Equal(t, 720, h)

	for name, bad := range map[string][]byte{
		"no moov":     box("mdat", make([]byte, 10)),
		"only audio":  box("moov", audio),
		"truncated":   file[:len(file)-10],
		"bad size":    {0, 0, 0, 3, 'm', 'o', 'o', 'v'},
		"odd tkhd":    box("moov", box("trak", box("tkhd", make([]byte, 10)))),
		"empty input": {},
	} {
		_, _, ok := videoDimensions(bytes.NewReader(bad), int64(len(bad)))
		assert.False(t, ok, name)
	}
}

func TestSizeClass(t *testing.T) {
	assert.Equal(t, "S", sizeClass(1000, 2000))
	assert.Equal(t, "M", sizeClass(2001, 1000))
	assert.Equal(t, "L", sizeClass(6000, 4000))
	assert.Equal(t, "XL", sizeClass(6001, 4000))
}

func TestConfigValidation(t *testing.T) {
	_, err := New(Config{}, Deps{})
	require.ErrorIs(t, err, ErrInvalidConfig)
	for _, want := range []string{"APIKeys", "WorkDir", "WebhookSigner"} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = New(Config{APIKeys: []string{""}, BaseURL: "ftp://x", Workers: -1, ProcessingDelay: -1}, Deps{WorkDir: t.TempDir()})
	require.ErrorIs(t, err, ErrInvalidConfig)
	for _, want := range []string{"empty key", "BaseURL", "Workers", "ProcessingDelay"} {
		assert.Contains(t, err.Error(), want)
	}
}

// TestParsePFCFollowsTheTable: every parameter of pfcdoc.Hosted is
// known to the parser, enums take exactly the table's values, and ranges
// are the table's.
func TestParsePFCFollowsTheTable(t *testing.T) {
	for _, p := range pfcdoc.Hosted {
		q := url.Values{"fileKey": {"k"}, "autocrop": {"true"}}
		if p.Name != "fileKey" {
			q.Set(p.Name, "§")
		}
		_, aerr := parsePFC(q)
		if p.Name == "fileKey" {
			assert.Nil(t, aerr)
			continue
		}
		if p.Kind == pfcdoc.KindString && p.Values == nil && p.Name != "bgColor" && p.Name != "webhookUrl" && !slices.Contains(autocropParams[:], p.Name) {
			assert.Nil(t, aerr, "%s takes any string", p.Name)
			continue
		}
		require.NotNil(t, aerr, p.Name)
		assert.Equal(t, p.Name, aerr.Parameter)
		for _, v := range p.Values {
			q.Set(p.Name, v)
			_, aerr := parsePFC(q)
			assert.Nil(t, aerr, "%s=%s", p.Name, v)
		}
		if r := p.Range; r != nil {
			for v, ok := range map[int]bool{r.Min: true, r.Max: true, r.Min - 1: false, r.Max + 1: false} {
				q.Set(p.Name, strconv.Itoa(v))
				_, aerr := parsePFC(q)
				assert.Equal(t, ok, aerr == nil, "%s=%d", p.Name, v)
			}
		}
	}
}

// TestParsePFCIgnored: the priority rules of pfcdoc decide what is
// used; the rest is accepted and listed as ignored.
func TestParsePFCIgnored(t *testing.T) {
	cases := map[string]struct {
		mode    string
		ignored []string
	}{
		"bgColor=transparent":                                {pfcdoc.ModeNone, []string{"bgColor"}},
		"bgColor=red&bgShadow=soft&bgFileKey=x":              {pfcdoc.ModeNone, []string{"bgColor", "bgFileKey", "bgShadow"}},
		"removeBackground=true&bgShadow=hard":                {pfcdoc.ModeTransparent, []string{"bgShadow"}},
		"removeBackground=true&bgFileKey=x&bgShadow=hard":    {pfcdoc.ModeImage, nil},
		"removeBackground=true&bgColor=red&long=40&short=50": {pfcdoc.ModeColor, []string{"short"}},
		"autocropDetectOnly=true&cropARW=4&bgColor=red":      {pfcdoc.ModeNone, []string{"autocropDetectOnly", "cropARW", "bgColor"}},
		"autocrop=true&autocropDetectOnly=true&cropARW=4":    {pfcdoc.ModeNone, nil},
	}
	for query, want := range cases {
		q, err := url.ParseQuery("fileKey=k&" + query)
		require.NoError(t, err)
		sp, aerr := parsePFC(q)
		require.Nil(t, aerr, query)
		assert.Equal(t, want.mode, bgModeOf(sp), query)
		assert.Equal(t, want.ignored, ignoredNamesOrNil(sp.ignored), query)
	}
}

// resizeOf returns the size parameter a parsed request uses and its value
// ("" and 0 for none).
func resizeOf(pq *pfcQuery) (string, int) {
	r := pq.req.Resize
	for i, v := range []int{r.Width, r.Height, r.Long, r.Short, r.Scale} {
		if v != 0 {
			return pfcdoc.ResizePriority[i], v
		}
	}
	return "", 0
}

// bgModeOf returns a parsed request's background mode (pfcdoc.ModeNone...).
func bgModeOf(pq *pfcQuery) string {
	if pq.req.Background == nil {
		return pfcdoc.ModeNone
	}
	return pq.req.Background.Mode
}

// autocropValuesOf returns the auto-crop values of a parsed request in
// the order of autocropParams (all nil without autocrop).
func autocropValuesOf(pq *pfcQuery) [6]*float64 {
	a := pq.req.AutoCrop
	if a == nil {
		return [6]*float64{}
	}
	return [6]*float64{a.Size, a.X, a.Y, a.AspectWidth, a.AspectHeight, a.TopHeadGap}
}

func ignoredNamesOrNil(ig []pfcdoc.Ignored) []string {
	if len(ig) == 0 {
		return nil
	}
	return ignoredNames(ig)
}

// TestResizeCost: a job that resizes counts the resized image against the
// memory budget too, so a small image upscaled to 14000×14000 is admitted
// as the large job it is.
func TestResizeCost(t *testing.T) {
	cases := map[string]struct {
		w, h  int
		query string
		cost  int64
	}{
		"no resize":          {1000, 500, "", 500_000},
		"same size":          {1000, 500, "width=1000", 500_000},
		"downscale":          {1000, 500, "width=500", 500_000 + 125_000},
		"upscale":            {100, 100, "long=10000", 10_000 + 100_000_000},
		"scale clamped":      {4000, 4000, "scale=1000", 16_000_000 + 20_000*20_000},
		"smallDetails limit": {4000, 4000, "scale=1000&resize=smallDetails", 16_000_000 + 8192*8192},
	}
	for name, c := range cases {
		q, err := url.ParseQuery("fileKey=k&" + c.query)
		require.NoError(t, err)
		sp, aerr := parsePFC(q)
		require.Nil(t, aerr, name)
		assert.Equal(t, c.cost, resizeCost(imageio.Header{Width: c.w, Height: c.h}, sp.req.Resize), name)
	}
}

// TestPixelBytes: the hosted mock counts its pixels in bytes of the memory
// budget, saturating where a PNG header claims more than int64 can hold.
func TestPixelBytes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(3_000_000), pixelBytes(500_000))
	assert.Equal(t, int64(0), pixelBytes(0))
	assert.Equal(t, int64(math.MaxInt64), pixelBytes(1<<61), "a 16-bit PNG claiming 2^60 pixels")
}

// TestJobRequestFieldsAreParameters: every field of JobRequest tagged
// `param` names a parameter of the hosted table, whose kind matches the
// field's, so that the parser can set it from the table alone.
func TestJobRequestFieldsAreParameters(t *testing.T) {
	t.Parallel()
	kinds := map[pfcdoc.Kind]string{pfcdoc.KindBoolean: "bool", pfcdoc.KindInteger: "int", pfcdoc.KindString: "string",
		pfcdoc.KindEnum: "string"}
	for _, f := range pfcdoc.Fields(&JobRequest{}) {
		p, ok := pfcdoc.HostedParam(f.Name)
		if assert.True(t, ok, "%s is tagged %q, not a parameter of /pfc", f.GoName, f.Name) {
			assert.Equal(t, kinds[p.Kind], f.Value.Kind().String(), "%s (%s)", f.GoName, f.Name)
		}
	}
}
