package pfcparams

import (
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits shared by the two APIs.
const (
	// MinSize and MaxSize bound width, height, long and short (the hosted
	// API documents them; the container's mock and client use the same).
	MinSize = 32
	MaxSize = 10000
	// MinOutputQuality, MaxOutputQuality and DefaultOutputQuality are
	// outputQuality's range and default, documented by both APIs.
	MinOutputQuality     = 40
	MaxOutputQuality     = 100
	DefaultOutputQuality = 90
	// MaxScale is the largest scale percentage. Neither API documents a
	// bound ("integer percent"); the clients and mocks of both use this
	// one. At 62,500 % the smallest accepted input (32 px) reaches the
	// largest output of the AI upscaling (20,000 px), which clamps every
	// larger value to the same result.
	MaxScale = 62500
	// MaxNameLength bounds a file name in the container (an image key, an
	// ICC profile).
	MaxNameLength = 255
)

// ColorTransparent is the bgColor value documented as its default; it
// selects the transparent mode.
const ColorTransparent = "transparent"

// The outputType values, as the shared constants spell them.
const (
	OutputJPEG     = "jpeg"
	OutputPNG      = "png"
	OutputOriginal = "original"
)

var boolDefaultTrue, boolDefaultFalse = "true", "false"

// Table declares every correction parameter of the two APIs, in the
// hosted API's documentation order with the container's own parameters
// placed by their neighbours. Callers must not modify it.
var Table = []Param{
	{Name: "fileKey", APIs: Hosted, Kind: String, Required: true, Doc: "key returned by GET /upload"},
	{Name: "fileType", APIs: Hosted, Kind: Enum, Values: []string{"image", "video"}, Default: "image",
		Doc: "kind of the uploaded file"},
	{Name: "preset", APIs: Both, Kind: String, Check: checkPreset,
		Doc: "preset name; omitted means AI preset selection"},
	{Name: "cache", APIs: Hosted, Kind: Bool, Default: boolDefaultTrue, Doc: "reuse an earlier result for identical settings"},
	{Name: "outputType", APIs: Both, Kind: Enum, Values: []string{OutputJPEG, OutputPNG, OutputOriginal},
		Wire:    map[API][]string{Hosted: {"jpg", "png", "original"}, Container: {"JPEG", "PNG", ""}},
		Aliases: map[string]string{"jpg": OutputJPEG}, Fold: true, Default: OutputOriginal,
		Doc: "output format; original keeps the source format"},
	{Name: "resize", APIs: Hosted, Kind: Enum, Values: []string{"auto", "general", "smallDetails"}, Default: "auto",
		Doc: "upscaling mode when a size is requested"},
	{Name: "width", APIs: Both, Kind: Int, Group: GroupResize, Min: MinSize, Max: MaxSize, Unit: "pixels", Doc: "target width"},
	{Name: "height", APIs: Both, Kind: Int, Group: GroupResize, Min: MinSize, Max: MaxSize, Unit: "pixels", Doc: "target height"},
	{Name: "long", APIs: Both, Kind: Int, Group: GroupResize, Min: MinSize, Max: MaxSize, Unit: "pixels", Doc: "target long edge"},
	{Name: "short", APIs: Both, Kind: Int, Group: GroupResize, Min: MinSize, Max: MaxSize, Unit: "pixels", Doc: "target short edge"},
	{Name: "scale", APIs: Both, Kind: Int, Group: GroupResize, Min: 1, Max: MaxScale, Unit: "percent", Doc: "scale percentage"},
	{Name: "outputQuality", APIs: Both, Kind: Int, Min: MinOutputQuality, Max: MaxOutputQuality,
		Default: strconv.Itoa(DefaultOutputQuality), Doc: "JPEG quality"},
	{Name: "outputColorSpace", APIs: Container, Kind: String, Check: checkColorSpace, Default: "original",
		Doc: "original, srgb or the file name of an ICC profile in /presets"},
	{Name: "autocrop", APIs: Both, Kind: Bool, Default: boolDefaultFalse, Doc: "auto cropping of single-person portraits"},
	{Name: "autocropDetectOnly", APIs: Hosted, Kind: Bool, Group: GroupAutocrop, Default: boolDefaultFalse,
		Doc: "report the crop without applying it"},
	{Name: "autocropSize", APIs: Hosted, Kind: String, Group: GroupAutocrop, Check: checkDecimal, Doc: "head size factor"},
	{Name: "autocropX", APIs: Hosted, Kind: String, Group: GroupAutocrop, Check: checkDecimal, Doc: "relative horizontal head offset"},
	{Name: "autocropY", APIs: Hosted, Kind: String, Group: GroupAutocrop, Check: checkDecimal, Doc: "relative vertical head offset"},
	{Name: "cropARW", APIs: Hosted, Kind: String, Group: GroupAutocrop, Check: checkDecimal, Doc: "crop aspect ratio width"},
	{Name: "cropARH", APIs: Hosted, Kind: String, Group: GroupAutocrop, Check: checkDecimal, Doc: "crop aspect ratio height"},
	{Name: "autocropTopHeadGap", APIs: Hosted, Kind: String, Group: GroupAutocrop, Check: checkDecimal,
		Doc: "top-of-head gap target; positive enables"},
	{Name: "skip", APIs: Both, Kind: Enum, Values: []string{"clipart", "legacy", "none"}, Default: "clipart",
		Doc: "non-photo skip mode; ignored under AI preset selection"},
	{Name: "skip-exif-software", APIs: Container, Kind: List, Check: checkSoftware,
		Doc: "skip images edited by the named software"},
	{Name: "preserveInputFileName", APIs: Container, Kind: Bool, Doc: "name the output after the input"},
	{Name: "enableComposite", APIs: Container, Kind: Bool, Default: boolDefaultTrue, Doc: "composite photo extraction"},
	{Name: "removeGlares", APIs: Hosted, Kind: Bool, Default: boolDefaultFalse, Doc: "glasses glare removal"},
	{Name: "removeBackground", APIs: Hosted, Kind: Bool, Default: boolDefaultFalse, Doc: "background removal"},
	{Name: "bgColor", APIs: Hosted, Kind: String, Group: GroupBackground, Check: checkColor, Default: ColorTransparent,
		Doc: "#rrggbb or a CSS colour name"},
	{Name: "bgGenerativePrompt", APIs: Hosted, Kind: String, Group: GroupBackground, Doc: "background to generate"},
	{Name: "bgFileKey", APIs: Hosted, Kind: String, Group: GroupBackground, Doc: "uploaded background image"},
	{Name: "bgShadow", APIs: Hosted, Kind: Enum, Group: GroupBackground, Values: []string{"soft", "hard", "floating"},
		Doc: "synthetic shadow (image and colour modes)"},
	{Name: "preserveMetadata", APIs: Hosted, Kind: Bool, Default: boolDefaultTrue, Doc: "keep metadata and colour profiles"},
	{Name: "updateThumbnail", APIs: Hosted, Kind: Bool, Default: boolDefaultFalse, Doc: "regenerate the embedded thumbnail"},
	{Name: "includeDetectionData", APIs: Hosted, Kind: Bool, Default: boolDefaultFalse, Doc: "add detectionData to the job"},
	{Name: "webhookUrl", APIs: Hosted, Kind: String, Check: CheckWebhookURL, Doc: "https URL the job record is POSTed to"},
}

// decimalPattern is a plain decimal number as the desktop editor writes
// it: optional sign, digits, optional fraction; no exponent, no spaces.
var decimalPattern = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$`)

func checkDecimal(s string) string {
	if decimalPattern.MatchString(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return ""
		}
	}
	return "must be a decimal number such as 0.5, got " + strconv.Quote(s)
}

// CheckWebhookURL returns why u is not an acceptable webhook URL, or "".
// The URL itself is left out of the message: it may embed a secret token.
func CheckWebhookURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "is not a valid URL"
	}
	switch {
	case parsed.Scheme == "http":
		return "must use https (the service rejects plain http)"
	case parsed.Scheme != "https":
		return "must be an absolute https URL"
	case parsed.Hostname() == "":
		return "must be an absolute https URL with a host"
	}
	return ""
}

func checkColor(s string) string {
	if _, why := ParseColor(s); why != "" {
		return "must be #rrggbb or a CSS color name, got " + strconv.Quote(s)
	}
	return ""
}

func checkPreset(s string) string {
	if !Printable(s) {
		return "must be printable text (a preset name)"
	}
	return ""
}

func checkColorSpace(cs string) string {
	if strings.EqualFold(cs, "original") || strings.EqualFold(cs, "srgb") || PlainFileName(cs) {
		return ""
	}
	return "must be original, srgb or the file name of an ICC profile in /presets, got " + strconv.Quote(cs)
}

func checkSoftware(n string) string {
	if strings.TrimSpace(n) == "" || strings.Contains(n, ",") {
		return "software names must be non-empty and contain no comma, got " + strconv.Quote(n)
	}
	return ""
}

// PlainFileName is the container's sanity rule for keys and file names:
// at most MaxNameLength bytes of printable UTF-8, without path separators,
// "..", a colon or a leading dot.
func PlainFileName(s string) bool {
	if s == "" || len(s) > MaxNameLength || strings.HasPrefix(s, ".") || strings.Contains(s, "..") ||
		strings.ContainsAny(s, `/\:`) {
		return false
	}
	return Printable(s)
}

// Printable reports valid UTF-8 without control characters.
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}
