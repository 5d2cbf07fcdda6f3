package hostedsvc

import (
	"image/color"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// autocropParams are the auto-crop tuning values, in the order of
// jobSpec.autocrop: decimal numbers copied from the desktop editor.
var autocropParams = [6]string{"autocropSize", "autocropX", "autocropY", "cropARW", "cropARH", "autocropTopHeadGap"}

// decimalPattern is a plain decimal number as the desktop editor writes
// it: optional sign, digits, optional fraction; no exponent, no spaces.
var decimalPattern = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$`)

// jobSpec is a parsed, validated /pfc request with the priority rules
// applied (pfcdoc): string fields are "" when the parameter was
// omitted.
type jobSpec struct {
	fileKey    string
	fileType   string // image or video
	preset     string // as given; "" is AI preset selection
	cache      bool
	outputType string // "", jpg, png or original
	resizeMode string // "", auto, general or smallDetails
	// resizeParam is the size parameter used (pfcdoc.Width...), ""
	// when none; resizeValue its value.
	resizeParam string
	resizeValue int
	quality     int // outputQuality; 0 when omitted
	autocrop    bool
	detectOnly  bool
	// autocropValues are the parsed autocropParams (nil when absent).
	autocropValues [6]*float64
	skip           string
	removeGlares   bool
	// bg holds the supplied background parameters, bgMode their
	// effective mode (pfcdoc.ModeNone...), bgColor the parsed colour
	// of the color mode.
	bg                   pfcdoc.Background
	bgMode               string
	bgColor              color.NRGBA
	preserveMetadata     bool
	updateThumbnail      bool
	includeDetectionData bool
	webhookURL           string
	// ignored are the supplied parameters the priority rules leave
	// unused (accepted, as the service accepts them).
	ignored []pfcdoc.Ignored
}

// parsePFC parses the query of GET /pfc strictly against the parameter
// table (pfcdoc.Hosted): unknown or repeated parameters, values of the
// wrong type, out-of-range values and invalid values are a 400 naming the
// parameter. All problems are listed in the message; the first one (in
// table order) is the error's parameter. Parameters the rules leave unused
// (bg* without removeBackground=true, bgShadow outside the image and
// colour modes, all but one size, autocropDetectOnly and the auto-crop
// values without autocrop=true) are accepted and ignored, as the service
// ignores them (and hosted.Plan reports them).
func parsePFC(q url.Values) (*jobSpec, *httpx.Error) {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if _, ok := pfcdoc.HostedParam(name); !ok {
			return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeUnknownParameter, name, "is not a parameter of /pfc")
		}
	}
	p := &parser{q: q, vals: map[string]string{}}
	for _, param := range pfcdoc.Hosted {
		p.check(param)
	}
	sp := &jobSpec{
		fileKey: p.vals["fileKey"], fileType: p.vals["fileType"], preset: p.vals["preset"],
		cache: p.vals["cache"] != "false", outputType: p.vals["outputType"], resizeMode: p.vals["resize"],
		quality: p.integer("outputQuality"), autocrop: p.vals["autocrop"] == "true",
		detectOnly: p.vals["autocropDetectOnly"] == "true", skip: p.vals["skip"],
		removeGlares: p.vals["removeGlares"] == "true",
		bg: pfcdoc.Background{Remove: p.vals["removeBackground"] == "true",
			GenerativePrompt: p.vals["bgGenerativePrompt"], FileKey: p.vals["bgFileKey"],
			Color: p.vals["bgColor"], Shadow: p.vals["bgShadow"]},
		preserveMetadata: p.vals["preserveMetadata"] != "false", updateThumbnail: p.vals["updateThumbnail"] == "true",
		includeDetectionData: p.vals["includeDetectionData"] == "true", webhookURL: p.vals["webhookUrl"],
	}
	if sp.fileType == "" {
		sp.fileType = FileTypeImage
	}
	for i, name := range autocropParams {
		sp.autocropValues[i] = p.decimal(name)
	}
	if v, ok := p.vals["bgColor"]; ok {
		c, ok := parseColor(v)
		if !ok {
			p.fail(httpx.CodeInvalidParameter, "bgColor", "must be #rrggbb or a CSS color name, got %q", v)
		}
		sp.bgColor = c
	}
	if v, ok := p.vals["webhookUrl"]; ok {
		if msg := checkWebhookURL(v); msg != "" {
			p.fail(httpx.CodeInvalidParameter, "webhookUrl", "%s", msg)
		}
	}
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	sizes := pfcdoc.Sizes{Width: p.integer("width"), Height: p.integer("height"),
		Long: p.integer("long"), Short: p.integer("short"), Scale: p.integer("scale")}
	var ignoredSizes, ignoredBg []pfcdoc.Ignored
	sp.resizeParam, sp.resizeValue, ignoredSizes = sizes.Resolve()
	sp.bgMode, ignoredBg = sp.bg.Resolve()
	sp.ignored = append(ignoredSizes, ignoredBg...)
	if !sp.autocrop {
		// As hosted.Plan: what describes the auto crop is ignored without
		// it (autocropDetectOnly "requires autocrop=true").
		for _, name := range append([]string{"autocropDetectOnly"}, autocropParams[:]...) {
			if _, ok := p.vals[name]; ok {
				sp.ignored = append(sp.ignored, pfcdoc.Ignored{Name: name, Reason: "requires autocrop=true"})
			}
		}
		sp.detectOnly, sp.autocropValues = false, [6]*float64{}
	}
	slices.SortStableFunc(sp.ignored, func(a, b pfcdoc.Ignored) int {
		return pfcdoc.Index(a.Name) - pfcdoc.Index(b.Name)
	})
	return sp, nil
}

// parser collects the problems of one query; vals holds the parameters
// whose value passed the table's checks.
type parser struct {
	q    url.Values
	vals map[string]string
	errs []*httpx.Error
}

func (p *parser) fail(code, param, format string, args ...any) {
	p.errs = append(p.errs, httpx.ParamError(http.StatusBadRequest, code, param, format, args...))
	delete(p.vals, param)
}

// check validates one parameter against its table entry: present at most
// once, required ones present, and a value of its kind in its allowed set
// or range. A valid value goes to p.vals.
func (p *parser) check(param pfcdoc.Param) {
	name := param.Name
	vs, ok := p.q[name]
	switch {
	case !ok:
		if param.Required {
			p.fail(httpx.CodeMissingParameter, name, "is required")
		}
		return
	case len(vs) != 1:
		p.fail(httpx.CodeInvalidParameter, name, "must be given at most once")
		return
	}
	v := vs[0]
	switch {
	case param.Kind == pfcdoc.KindBoolean && !slices.Contains(param.Values, v):
		p.fail(httpx.CodeInvalidParameter, name, "must be true or false, got %q", v)
	case param.Values != nil && !slices.Contains(param.Values, v):
		p.fail(httpx.CodeInvalidParameter, name, "must be one of %s, got %q", strings.Join(param.Values, ", "), v)
	case param.Kind == pfcdoc.KindInteger:
		p.checkInteger(param, v)
	case param.Required && strings.TrimSpace(v) == "":
		p.fail(httpx.CodeInvalidParameter, name, "must not be empty")
	case v == "":
		p.fail(httpx.CodeInvalidParameter, name, "must not be empty (omit it for the default)")
	default:
		p.vals[name] = v
	}
}

func (p *parser) checkInteger(param pfcdoc.Param, v string) {
	n, err := strconv.ParseInt(v, 10, 32)
	switch {
	case err != nil:
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be an integer, got %q", v)
	case param.Range != nil && !param.Range.Contains(int(n)):
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be between %d and %d, got %d", param.Range.Min, param.Range.Max, n)
	case param.Range == nil && n < 1: // scale: "integer percent", no documented range
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be a positive integer percentage, got %d", n)
	case param.Range == nil && n > pfcdoc.MaxScale: // the bound the clients share
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be at most %d, got %d", pfcdoc.MaxScale, n)
	default:
		p.vals[param.Name] = v
	}
}

// integer returns a validated integer parameter; 0 when absent.
func (p *parser) integer(name string) int {
	n, _ := strconv.Atoi(p.vals[name])
	return n
}

// decimal parses a validated auto-crop value, which must be a plain
// decimal number; nil when absent or invalid (then reported).
func (p *parser) decimal(name string) *float64 {
	v, ok := p.vals[name]
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if !decimalPattern.MatchString(v) || err != nil || math.IsInf(f, 0) {
		p.fail(httpx.CodeInvalidParameter, name, "must be a decimal number such as 0.5, got %q", v)
		return nil
	}
	return &f
}

// err is the 400 answer: every problem in the order of the API's table,
// the first one's parameter named.
func (p *parser) err() *httpx.Error {
	slices.SortStableFunc(p.errs, func(a, b *httpx.Error) int {
		return pfcdoc.Index(a.Parameter) - pfcdoc.Index(b.Parameter)
	})
	e := *p.errs[0]
	if len(p.errs) > 1 {
		msgs := make([]string, len(p.errs))
		for i, pe := range p.errs {
			msgs[i] = pe.Message
		}
		e.Message = strings.Join(msgs, "; ")
	}
	return &e
}

// checkWebhookURL returns why u is not an acceptable webhookUrl (an
// absolute https URL with a host; the service answers 400 to plain http
// before any processing), or "".
func checkWebhookURL(u string) string {
	switch parsed, err := url.Parse(u); {
	case err == nil && parsed.Scheme == "https" && parsed.Hostname() != "":
		return ""
	case err == nil && parsed.Scheme == "http":
		return "must use https (the service rejects plain http)"
	}
	return "must be an absolute https URL with a host"
}
