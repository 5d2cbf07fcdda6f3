package hostedsvc

import (
	"errors"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// pfcParams are the parameters of GET /pfc in the order of the API's
// table; errors are reported in this order.
var pfcParams = hosted.ParameterNames()

// jobSpec is a parsed, validated /pfc request.
type jobSpec struct {
	opts  hosted.CorrectionOptions
	plan  hosted.Plan
	cache bool
	// Parsed auto-crop values (nil when absent).
	autocrop [6]*float64
}

// parsePFC parses the query of GET /pfc strictly: unknown or repeated
// parameters, values of the wrong type, out-of-range values and invalid
// combinations are a 400 naming the parameter. All problems are listed in
// the message; the first one (in table order) is the error's parameter.
func parsePFC(q url.Values) (*jobSpec, *httpx.Error) {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(pfcParams, name) {
			return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeUnknownParameter, name, "is not a parameter of /pfc")
		}
	}
	p := &parser{q: q}
	sp := &jobSpec{}
	o := &sp.opts

	if v, ok := p.get("fileKey"); !ok {
		if !p.has("fileKey") {
			p.fail(httpx.CodeMissingParameter, "fileKey", "is required")
		}
	} else if v == "" {
		p.fail(httpx.CodeInvalidParameter, "fileKey", "must not be empty")
	} else {
		o.FileKey = v
	}
	o.FileType = hosted.FileType(p.enum("fileType", "image", "video"))
	o.Preset = p.str("preset")
	cache := p.boolean("cache")
	o.OutputType = hosted.OutputType(p.enum("outputType", "jpg", "png", "original"))
	o.Resize = hosted.ResizeMode(p.enum("resize", "auto", "general", "smallDetails"))
	o.Width = p.integer("width", hosted.MinSize, hosted.MaxSize)
	o.Height = p.integer("height", hosted.MinSize, hosted.MaxSize)
	o.Long = p.integer("long", hosted.MinSize, hosted.MaxSize)
	o.Short = p.integer("short", hosted.MinSize, hosted.MaxSize)
	o.Scale = p.integer("scale", 1, 1<<20)
	o.OutputQuality = p.integer("outputQuality", hosted.MinOutputQuality, hosted.MaxOutputQuality)
	o.Autocrop = p.flag("autocrop")
	o.AutocropDetectOnly = p.flag("autocropDetectOnly")
	for i, name := range []string{"autocropSize", "autocropX", "autocropY", "cropARW", "cropARH", "autocropTopHeadGap"} {
		sp.autocrop[i] = p.decimal(name)
	}
	o.AutocropSize, o.AutocropX, o.AutocropY = p.str("autocropSize"), p.str("autocropX"), p.str("autocropY")
	o.CropARW, o.CropARH, o.AutocropTopHeadGap = p.str("cropARW"), p.str("cropARH"), p.str("autocropTopHeadGap")
	o.Skip = hosted.SkipMode(p.enum("skip", "clipart", "legacy", "none"))
	o.RemoveGlares = p.flag("removeGlares")
	o.RemoveBackground = p.flag("removeBackground")
	o.BgColor = p.str("bgColor")
	o.BgGenerativePrompt = p.str("bgGenerativePrompt")
	o.BgFileKey = p.str("bgFileKey")
	o.BgShadow = hosted.Shadow(p.enum("bgShadow", "soft", "hard", "floating"))
	o.PreserveMetadata = p.boolean("preserveMetadata")
	o.UpdateThumbnail = p.flag("updateThumbnail")
	o.IncludeDetectionData = p.flag("includeDetectionData")
	o.WebhookURL = p.str("webhookUrl")

	// The client's own validation holds the documented ranges and
	// combinations (bg* need removeBackground, autocropDetectOnly needs
	// autocrop, bgShadow only with image or colour, https webhooks...), so
	// client and mock agree on them.
	if err := o.Validate(); err != nil {
		var ve *hosted.ValidationError
		if errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				if !p.has(fe.Field) {
					p.fail(httpx.CodeInvalidParameter, fe.Field, "%s", fe.Message)
				}
			}
		}
	}
	if len(p.errs) > 0 {
		// Report in the order of the API's table, whatever found it.
		slices.SortStableFunc(p.errs, func(a, b *httpx.Error) int {
			return slices.Index(pfcParams, a.Parameter) - slices.Index(pfcParams, b.Parameter)
		})
		e := *p.errs[0]
		if len(p.errs) > 1 {
			msgs := make([]string, len(p.errs))
			for i, pe := range p.errs {
				msgs[i] = pe.Message
			}
			e.Message = strings.Join(msgs, "; ")
		}
		return nil, &e
	}
	sp.cache = cache == nil || *cache
	sp.plan = o.Plan()
	return sp, nil
}

type parser struct {
	q    url.Values
	errs []*httpx.Error
}

func (p *parser) fail(code, param, format string, args ...any) {
	p.errs = append(p.errs, httpx.ParamError(http.StatusBadRequest, code, param, format, args...))
}

// has reports whether param already has an error.
func (p *parser) has(param string) bool {
	for _, e := range p.errs {
		if e.Parameter == param {
			return true
		}
	}
	return false
}

// get returns the single value of name and whether it is present (and
// not repeated).
func (p *parser) get(name string) (string, bool) {
	vs, ok := p.q[name]
	if !ok {
		return "", false
	}
	if len(vs) != 1 {
		if !p.has(name) {
			p.fail(httpx.CodeInvalidParameter, name, "must be given at most once")
		}
		return "", false
	}
	return vs[0], true
}

// str returns a string parameter; present but empty is an error (omit
// the parameter for the default).
func (p *parser) str(name string) string {
	if p.has(name) {
		return ""
	}
	v, ok := p.get(name)
	if ok && v == "" {
		p.fail(httpx.CodeInvalidParameter, name, "must not be empty (omit it for the default)")
	}
	return v
}

func (p *parser) enum(name string, allowed ...string) string {
	v, ok := p.get(name)
	if !ok {
		return ""
	}
	if !slices.Contains(allowed, v) {
		p.fail(httpx.CodeInvalidParameter, name, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
		return ""
	}
	return v
}

// boolean parses "true" or "false" exactly; nil when absent or invalid.
func (p *parser) boolean(name string) *bool {
	v, ok := p.get(name)
	if !ok {
		return nil
	}
	switch v {
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	}
	p.fail(httpx.CodeInvalidParameter, name, "must be true or false, got %q", v)
	return nil
}

func (p *parser) flag(name string) bool {
	b := p.boolean(name)
	return b != nil && *b
}

func (p *parser) integer(name string, lo, hi int) int {
	v, ok := p.get(name)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		p.fail(httpx.CodeInvalidParameter, name, "must be an integer, got %q", v)
		return 0
	}
	if int(n) < lo || int(n) > hi {
		if name == "scale" {
			p.fail(httpx.CodeInvalidParameter, name, "must be a positive integer percentage, got %d", n)
		} else {
			p.fail(httpx.CodeInvalidParameter, name, "must be between %d and %d, got %d", lo, hi, n)
		}
		return 0
	}
	return int(n)
}

// decimal parses an auto-crop value: a plain decimal number.
func (p *parser) decimal(name string) *float64 {
	v, ok := p.get(name)
	if !ok {
		return nil
	}
	// Validate also checks the form (no exponent...) with the client's
	// wording; has() keeps the two from reporting one parameter twice.
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		p.fail(httpx.CodeInvalidParameter, name, "must be a decimal number such as 0.5, got %q", v)
		return nil
	}
	return &f
}
