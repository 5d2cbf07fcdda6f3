package hostedsvc

import (
	"image/color"
	"maps"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// autocropParams are the auto-crop tuning values, in the order of
// AutoCropRequest's Size, X, Y, AspectWidth, AspectHeight, TopHeadGap:
// decimal numbers copied from the desktop editor.
var autocropParams = [6]string{"autocropSize", "autocropX", "autocropY", "cropARW", "cropARH", "autocropTopHeadGap"}

// decimalPattern is a plain decimal number as the desktop editor writes
// it: optional sign, digits, optional fraction; no exponent, no spaces.
var decimalPattern = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$`)

// pfcQuery is a parsed, validated /pfc request: the processor's request,
// with the priority rules applied and every default filled in (but
// OutputType, kept as given until the source's format is known), beside
// what only the job uses.
type pfcQuery struct {
	req        JobRequest
	fileKey    string
	fileType   string // image or video
	cache      bool
	webhookURL string
	// bgFileKey is the supplied bgFileKey, used in the image mode only.
	bgFileKey string
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
// ignores them (and hosted.Plan reports them). The request's fields
// tagged `param` are set from their table entry (the value, else its
// default) without code of their own here.
func parsePFC(q url.Values) (*pfcQuery, *httpx.Error) {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if _, ok := pfcdoc.HostedParam(name); !ok {
			return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeUnknownParameter, name, "is not a parameter of /pfc")
		}
	}
	p := &parser{q: q, vals: map[string]string{}}
	for _, param := range pfcdoc.Hosted {
		p.check(param)
	}
	pq := &pfcQuery{fileKey: p.vals["fileKey"], fileType: defaultOf("fileType", p.vals["fileType"]),
		cache: p.vals["cache"] != "false", webhookURL: p.vals["webhookUrl"], bgFileKey: p.vals["bgFileKey"]}
	req := &pq.req
	req.Preset, req.OutputType = p.vals["preset"], p.vals["outputType"]
	if req.Preset == "" {
		req.Preset = "Universal"
	}
	var crop AutoCropRequest
	for i, dst := range []**float64{&crop.Size, &crop.X, &crop.Y, &crop.AspectWidth, &crop.AspectHeight, &crop.TopHeadGap} {
		*dst = p.decimal(autocropParams[i])
	}
	bg := pfcdoc.Background{Remove: p.vals["removeBackground"] == "true",
		GenerativePrompt: p.vals["bgGenerativePrompt"], FileKey: pq.bgFileKey,
		Color: p.vals["bgColor"], Shadow: p.vals["bgShadow"]}
	var bgColor color.NRGBA
	if v, ok := p.vals["bgColor"]; ok {
		c, ok := parseColor(v)
		if !ok {
			p.fail(httpx.CodeInvalidParameter, "bgColor", "must be #rrggbb or a CSS color name, got %q", v)
		}
		bgColor = c
	}
	if v, ok := p.vals["webhookUrl"]; ok {
		if msg := checkWebhookURL(v); msg != "" {
			p.fail(httpx.CodeInvalidParameter, "webhookUrl", "%s", msg)
		}
	}
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	for _, f := range pfcdoc.Fields(req) {
		param, _ := pfcdoc.HostedParam(f.Name)
		v, ok := p.vals[f.Name]
		if !ok {
			v = param.Default
		}
		switch f.Value.Kind() {
		case reflect.Bool:
			f.Value.SetBool(v == "true")
		case reflect.Int:
			n, _ := strconv.Atoi(v)
			f.Value.SetInt(int64(n))
		case reflect.String:
			f.Value.SetString(v)
		} // no other kind is tagged (TestJobRequestFieldsAreParameters)
	}
	sizes := pfcdoc.Sizes{Width: p.integer("width"), Height: p.integer("height"),
		Long: p.integer("long"), Short: p.integer("short"), Scale: p.integer("scale")}
	resizeParam, resizeValue, ignoredSizes := sizes.Resolve()
	switch resizeParam {
	case pfcdoc.Width:
		req.Resize.Width = resizeValue
	case pfcdoc.Height:
		req.Resize.Height = resizeValue
	case pfcdoc.Long:
		req.Resize.Long = resizeValue
	case pfcdoc.Short:
		req.Resize.Short = resizeValue
	case pfcdoc.Scale:
		req.Resize.Scale = resizeValue
	}
	if req.Resize.Requested() {
		req.Resize.Mode = defaultOf("resize", p.vals["resize"])
	}
	bgMode, ignoredBg := bg.Resolve()
	switch bgMode {
	case pfcdoc.ModeGenerative:
		req.Background = &BackgroundRequest{Mode: BackgroundGenerative, Prompt: bg.GenerativePrompt}
	case pfcdoc.ModeImage:
		req.Background = &BackgroundRequest{Mode: BackgroundImage, Shadow: bg.Shadow}
	case pfcdoc.ModeColor:
		req.Background = &BackgroundRequest{Mode: BackgroundColor, Color: bgColor, Shadow: bg.Shadow}
	case pfcdoc.ModeTransparent:
		req.Background = &BackgroundRequest{Mode: BackgroundTransparent}
	}
	if req.Preset != "Universal" {
		req.Skip = defaultOf("skip", p.vals["skip"])
	}
	pq.ignored = append(ignoredSizes, ignoredBg...)
	if p.vals["autocrop"] == "true" {
		crop.DetectOnly = p.vals["autocropDetectOnly"] == "true"
		req.AutoCrop = &crop
	} else {
		// As hosted.Plan: what describes the auto crop is ignored without
		// it (autocropDetectOnly "requires autocrop=true").
		for _, name := range append([]string{"autocropDetectOnly"}, autocropParams[:]...) {
			if _, ok := p.vals[name]; ok {
				pq.ignored = append(pq.ignored, pfcdoc.Ignored{Name: name, Reason: "requires autocrop=true"})
			}
		}
	}
	slices.SortStableFunc(pq.ignored, func(a, b pfcdoc.Ignored) int {
		return pfcdoc.Index(a.Name) - pfcdoc.Index(b.Name)
	})
	return pq, nil
}

// defaultOf returns v, or the documented default of the /pfc parameter
// name when v is empty.
func defaultOf(name, v string) string {
	if v != "" {
		return v
	}
	p, _ := pfcdoc.HostedParam(name)
	return p.Default
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
	bounds, _ := param.Bounds()
	switch {
	case err != nil:
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be an integer, got %q", v)
	case param.Range != nil && !param.Range.Contains(int(n)):
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be between %d and %d, got %d", param.Range.Min, param.Range.Max, n)
	case param.Range == nil && n < 1: // scale: "integer percent", no documented range
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be a positive integer percentage, got %d", n)
	case param.Range == nil && n > int64(bounds.Max): // the bound the clients share
		p.fail(httpx.CodeInvalidParameter, param.Name, "must be at most %d, got %d", bounds.Max, n)
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
