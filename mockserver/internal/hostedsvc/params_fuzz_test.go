package hostedsvc

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
	"github.com/pfcsdk/pfc-go/pfc"
)

// pick returns the (b mod len+1)-th of values, "" for 0: an optional enum.
func pick[T ~string](b uint8, values ...T) T {
	i := int(b) % (len(values) + 1)
	if i == 0 {
		return ""
	}
	return values[i-1]
}

// optBool returns nil, &false or &true from two bits of flags.
func optBool(flags uint16, shift uint) *bool {
	switch flags >> shift & 3 {
	case 1:
		return new(bool)
	case 2:
		b := true
		return &b
	}
	return nil
}

// FuzzOptionsRoundTrip: what the hosted client sends is what the mock
// understands. Options that CorrectionOptions.Validate accepts are encoded
// with Query, sent through the mock's query parsing (httpx.ParseQuery, as
// the handler does) and parsePFC, which must accept them and resolve the
// same values, resize parameter, background mode and ignored parameters
// as hosted.Plan.
func FuzzOptionsRoundTrip(f *testing.F) {
	f.Add("key", "", 0, 0, 0, 0, 0, 0, uint8(0), uint16(0), "", "", "", ",,,,,", "")
	f.Add("key 1", "School and Sports", 800, 600, 0, 0, 0, 85, uint8(0x5a), uint16(0x1ff), "red", "", "", "1.2,0.5,,4,3,", "https://h.example/x?t=1")
	f.Add("k", "my preset", 0, 0, 4000, 300, 50, 40, uint8(0xff), uint16(0xffff), "#00ff7f", "a beach", "bg-key", "0.9,-.5,+3,,,.25", "https://[::1]:8443/a")
	f.Add("k%2F&=", "none", 0, 0, 0, 0, 1<<20, 100, uint8(0x21), uint16(0x0a0), "transparent", "", "bgk", "", "https://u:p@h/#frag")
	f.Add("ключ", "Universal", 32, 10000, 32, 10000, 7, 0, uint8(0x77), uint16(0x3c3), "TRANSPARENT", "prompt\nline", "", "1,2,3,4,5,6", "https://h")
	f.Fuzz(func(t *testing.T, fileKey, preset string, width, height, long, short, scale, quality int,
		enums uint8, flags uint16, bgColor, bgPrompt, bgFileKey, autocrop, webhook string) {
		o := &hosted.CorrectionOptions{
			FileKey: fileKey, Preset: preset,
			FileType:   pick(enums, hosted.FileTypeImage, hosted.FileTypeVideo),
			OutputType: pick(enums>>2, pfc.OutputJPEG, pfc.OutputPNG, pfc.OutputOriginal),
			Resize:     pick(enums>>4, hosted.ResizeAuto, hosted.ResizeGeneral, hosted.ResizeSmallDetails),
			Skip:       pick(enums>>6, pfc.SkipClipart, pfc.SkipLegacy, pfc.SkipNone),
			BgShadow:   pick(uint8(flags>>12), hosted.ShadowSoft, hosted.ShadowHard, hosted.ShadowFloating),
			Width:      width, Height: height, Long: long, Short: short, Scale: scale, OutputQuality: quality,
			Cache: optBool(flags, 0), PreserveMetadata: optBool(flags, 2),
			Autocrop: flags&(1<<4) != 0, AutocropDetectOnly: flags&(1<<5) != 0,
			RemoveGlares: flags&(1<<6) != 0, RemoveBackground: flags&(1<<7) != 0,
			UpdateThumbnail: flags&(1<<8) != 0, IncludeDetectionData: flags&(1<<9) != 0,
			BgColor: bgColor, BgGenerativePrompt: bgPrompt, BgFileKey: bgFileKey, WebhookURL: webhook,
		}
		ac := strings.SplitN(autocrop, ",", 6)
		for i, p := range []*string{&o.AutocropSize, &o.AutocropX, &o.AutocropY, &o.CropARW, &o.CropARH, &o.AutocropTopHeadGap} {
			if i < len(ac) {
				*p = ac[i]
			}
		}
		if o.Validate() != nil {
			return // the client sends nothing
		}
		raw, err := o.Query()
		if err != nil {
			t.Fatalf("Validate accepted what Query refuses: %v", err)
		}
		r, err := http.NewRequest(http.MethodGet, "http://mock.test/v2/pfc?"+raw, nil)
		if err != nil {
			t.Fatalf("the client's query is not a valid URL: %v", err)
		}
		q, herr := httpx.ParseQuery(r)
		if herr != nil {
			t.Fatalf("the mock cannot parse the client's query %q: %v", raw, herr)
		}
		sp, herr := parsePFC(q)
		if herr != nil {
			t.Fatalf("the mock refuses what the client validated: %v (query %q)", herr, raw)
		}
		checkAgreement(t, o, sp)
	})
}

// checkAgreement compares the mock's reading of a request with the
// client's options and plan.
// hostedOutputType is the hosted API's spelling of each output format
// (the API documentation's jpg, png, original).
var hostedOutputType = map[pfc.OutputFormat]string{
	"": "", pfc.OutputJPEG: "jpg", pfc.OutputPNG: "png", pfc.OutputOriginal: "original",
}

func checkAgreement(t *testing.T, o *hosted.CorrectionOptions, sp *pfcQuery) {
	t.Helper()
	plan := o.Plan()
	wantType := string(o.FileType)
	if wantType == "" {
		wantType = FileTypeImage
	}
	deref := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	req := sp.req
	wantQuality := o.OutputQuality
	if wantQuality == 0 {
		wantQuality = pfcdoc.DefaultQuality
	}
	wantMode := ""
	if plan.Resize != "" {
		wantMode = or(string(o.Resize), "auto")
	}
	wantSkip := ""
	if o.Preset != "" && o.Preset != "Universal" {
		wantSkip = or(string(o.Skip), "clipart")
	}
	resizeParam, resizeValue := resizeOf(sp)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"fileKey", sp.fileKey, o.FileKey},
		{"fileType", sp.fileType, wantType},
		{"preset", req.Preset, or(o.Preset, "Universal")},
		{"outputType", req.OutputType, hostedOutputType[o.OutputType]},
		{"resize", req.Resize.Mode, wantMode},
		{"outputQuality", req.Quality, wantQuality},
		{"skip", req.Skip, wantSkip},
		{"cache", sp.cache, deref(o.Cache, true)},
		{"preserveMetadata", req.PreserveMetadata, deref(o.PreserveMetadata, true)},
		{"removeGlares", req.RemoveGlares, o.RemoveGlares},
		{"updateThumbnail", req.UpdateThumbnail, o.UpdateThumbnail},
		{"includeDetectionData", req.IncludeDetectionData, o.IncludeDetectionData},
		{"webhookUrl", sp.webhookURL, o.WebhookURL},
		{"autocrop", req.AutoCrop != nil, o.Autocrop},
		{"autocropDetectOnly", req.AutoCrop != nil && req.AutoCrop.DetectOnly, o.Autocrop && o.AutocropDetectOnly},
		{"resize parameter", resizeParam, string(plan.Resize)},
		{"resize value", resizeValue, plan.ResizeValue},
		{"background mode", bgModeOf(sp), string(plan.Background)},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: the mock reads %#v, the client means %#v", c.name, c.got, c.want)
		}
	}
	// Ignored parameters: those of the priority rules the mock lists
	// itself; the others Plan reports (resize without a size, skip under
	// AI preset selection, outputQuality of a PNG) the mock applies when it
	// builds the processor's request.
	req = buildRequest(&job{q: sp, preset: req.Preset}, "jpg", "")
	var rest []string
	for _, name := range plan.IgnoredNames() {
		if !slices.Contains(ignoredNames(sp.ignored), name) {
			rest = append(rest, name)
		}
	}
	for _, name := range ignoredNames(sp.ignored) {
		if !slices.Contains(plan.IgnoredNames(), name) {
			t.Errorf("the mock ignores %s, the client's plan does not (plan: %v)", name, plan.IgnoredNames())
		}
	}
	for _, name := range rest {
		switch name {
		case "resize":
			if req.Resize.Mode != "" {
				t.Errorf("resize: ignored by the plan, the mock resizes with mode %q", req.Resize.Mode)
			}
		case "skip":
			if req.Skip != "" {
				t.Errorf("skip: ignored by the plan, the mock applies %q", req.Skip)
			}
		case "outputQuality":
			if req.OutputType != "png" {
				t.Errorf("outputQuality: ignored by the plan (PNG), the mock writes %q", req.OutputType)
			}
		default:
			t.Errorf("%s: ignored by the plan, not by the mock", name)
		}
	}
	if o.Skip != "" && !slices.Contains(rest, "skip") && req.Skip != string(o.Skip) {
		t.Errorf("skip: the client sends %q, the mock applies %q", o.Skip, req.Skip)
	}
	if bgModeOf(sp) == pfcdoc.ModeColor {
		want, err := hosted.ParseColor(o.BgColor)
		if err != nil || want != sp.req.Background.Color {
			t.Errorf("bgColor %q: the mock reads %v, the client %v (%v)", o.BgColor, sp.req.Background.Color, want, err)
		}
	}
	if o.Autocrop {
		for i, s := range []string{o.AutocropSize, o.AutocropX, o.AutocropY, o.CropARW, o.CropARH, o.AutocropTopHeadGap} {
			got := autocropValuesOf(sp)[i]
			if s == "" {
				if got != nil {
					t.Errorf("%s: absent, the mock reads %v", autocropParams[i], *got)
				}
				continue
			}
			want, err := strconv.ParseFloat(s, 64)
			if got == nil || err != nil || *got != want {
				t.Errorf("%s=%q: the mock reads %v", autocropParams[i], s, got)
			}
		}
	}
}

func equal(a, b any) bool {
	as, ok1 := a.([]string)
	bs, ok2 := b.([]string)
	if ok1 && ok2 {
		return slices.Equal(as, bs)
	}
	return a == b
}
