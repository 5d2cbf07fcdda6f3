package containersvc

import (
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// CorrectParams are the query parameters of GET /pfc/{imageKey}, in the
// documented table order (pfcdoc.Container). The handler refuses any
// other (httpx.Query).
func CorrectParams() []string { return pfcdoc.Names(pfcdoc.Container) }

// Ranges of the numeric parameters. The API documentation gives only
// outputQuality's; the sizes take the hosted API's documented range so that
// both mocks (and clients) agree, and scale is a positive percentage bounded
// by the engine's output-pixel limit.
const (
	MinOutputQuality     = 40
	MaxOutputQuality     = 100
	DefaultOutputQuality = 90
	MinSize              = 32
	MaxSize              = 10000
	MaxScale             = pfcdoc.MaxScale
)

// Request is a parsed, validated GET /pfc/{imageKey} query with every
// default (from the query or the PFC_* settings) filled in and the resize
// priority applied: the container mock's one request type, which the
// parser fills and engineRequest reads. A field tagged `param:"name"` is
// a plain parameter: the parser sets it from its pfcdoc.Container entry
// and engineRequest copies it to the engine's field of the same name
// (",mock": one the engine does not take). A new plain parameter is such a
// field and its table entry.
type Request struct {
	// Preset is "" (AI scene detection) or a preset name.
	Preset string
	// OutputType is "" (keep the source format), "jpg" or "png".
	OutputType string
	// Quality is the JPEG quality, 40..100.
	Quality int `param:"outputQuality"`
	// ColorSpace is "original", "srgb" or an ICC profile file in presets/.
	ColorSpace string
	// ResizeParam is the size parameter that applies (width > height >
	// long > short > scale), "" for none; ResizeValue its value.
	ResizeParam string
	ResizeValue int
	// Autocrop crops around the single person's head (engine defaults: the
	// additional parameters are not shown by the API documentation).
	Autocrop bool
	// Skip is clipart, legacy or none.
	Skip string
	// SkipEXIFSoftware names software whose images are left uncorrected.
	SkipEXIFSoftware []string
	// PreserveInputFileName names the output after the input.
	PreserveInputFileName bool `param:"preserveInputFileName,mock"`
	// EnableComposite is composite photo extraction (reported only).
	EnableComposite bool `param:"enableComposite,mock"`
}

// paramError is a 400 for one query parameter, logged with
// invalidParameterMessage (unknownOutputTypeMessage for outputType).
func paramError(param, format string, args ...any) *httpx.Error {
	return httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, param, format, args...)
}

// parseRequest parses q strictly against the defaults of cfg: every value
// must be well formed and in range (integers in decimal, booleans exactly
// true or false). Unknown parameters are the handler's to refuse
// (httpx.Query with CorrectParams, before Correct); a repeated one is
// refused here too (httpx.Single). Every problem is listed in the message;
// the first, in table order, is the error's parameter. An unknown output
// type is reported alone with Code MsgUnknownOutputType.
func (c *Config) parseRequest(q url.Values) (*Request, *httpx.Error) {
	names := CorrectParams()
	p := &qparser{q: q}
	r := &Request{Quality: DefaultOutputQuality, ColorSpace: "original", Skip: c.SkipMode,
		SkipEXIFSoftware: c.SkipEXIFSoftware, PreserveInputFileName: c.PreserveInputFileName,
		EnableComposite: c.EnableComposite == nil || *c.EnableComposite}

	if v, ok := p.str("preset"); ok {
		r.Preset = v
	}
	if v, ok := p.get("outputType"); ok {
		switch strings.ToLower(v) {
		case "jpeg", "jpg":
			r.OutputType = "jpg"
		case "png":
			r.OutputType = "png"
		default:
			return nil, &httpx.Error{Status: http.StatusBadRequest, Code: MsgUnknownOutputType, Parameter: "outputType",
				Message: "outputType: must be JPEG (or jpg) or PNG, got " + strconv.Quote(v)}
		}
	}
	if v, ok := p.str("outputColorSpace"); ok {
		switch lv := strings.ToLower(v); {
		case lv == "original" || lv == "srgb":
			r.ColorSpace = lv
		case !safeName(v):
			p.fail("outputColorSpace", "must be original, srgb or the file name of an ICC profile in /presets, got %q", v)
		default:
			r.ColorSpace = v
		}
	}
	for _, name := range []string{"width", "height", "long", "short", "scale"} {
		param, _ := pfcdoc.Lookup(pfcdoc.Container, name)
		bounds, _ := param.Bounds()
		if n, ok := p.integer(name, bounds.Min, bounds.Max); ok && r.ResizeParam == "" {
			r.ResizeParam, r.ResizeValue = name, n
		}
	}
	if b, ok := p.boolean("autocrop"); ok {
		r.Autocrop = b
	}
	if v, ok := p.get("skip"); ok {
		if !validSkip(v) {
			p.fail("skip", "must be one of clipart, legacy, none, got %q", v)
		} else {
			r.Skip = v
		}
	}
	if v, ok := p.get("skip-exif-software"); ok {
		// An empty value turns the PFC_SKIP_EXIF_SOFTWARE default off.
		r.SkipEXIFSoftware = splitList(v)
		if strings.TrimSpace(v) != "" && len(r.SkipEXIFSoftware) != strings.Count(v, ",")+1 {
			p.fail("skip-exif-software", "must be a comma-separated list of non-empty software names, got %q", v)
		}
	}
	p.fields(r)
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *httpx.Error) int {
			return slices.Index(names, a.Parameter) - slices.Index(names, b.Parameter)
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
	return r, nil
}

// fields sets the fields of r tagged `param` from the query by their
// table entry's kind; an absent parameter leaves the field's default.
func (p *qparser) fields(r *Request) {
	for _, f := range pfcdoc.Fields(r) {
		param, _ := pfcdoc.Lookup(pfcdoc.Container, f.Name)
		switch param.Kind {
		case pfcdoc.KindBoolean:
			if b, ok := p.boolean(f.Name); ok {
				f.Value.SetBool(b)
			}
		case pfcdoc.KindInteger:
			bounds, _ := param.Bounds()
			if n, ok := p.integer(f.Name, bounds.Min, bounds.Max); ok {
				f.Value.SetInt(int64(n))
			}
		default:
			if v, ok := p.str(f.Name); ok && param.Values != nil && !slices.Contains(param.Values, v) {
				p.fail(f.Name, "must be one of %s, got %q", strings.Join(param.Values, ", "), v)
			} else if ok && f.Value.Kind() == reflect.String {
				f.Value.SetString(v)
			}
		}
	}
}

// qparser reads single values and collects problems.
type qparser struct {
	q    url.Values
	errs []*httpx.Error
}

func (p *qparser) fail(param, format string, args ...any) {
	p.errs = append(p.errs, paramError(param, format, args...))
}

// get returns the one value of name; a repeated parameter is a problem.
func (p *qparser) get(name string) (string, bool) {
	v, ok, herr := httpx.Single(p.q, name)
	if herr != nil {
		p.errs = append(p.errs, herr)
		return "", false
	}
	return v, ok
}

// str is get refusing an empty value (omit the parameter instead).
func (p *qparser) str(name string) (string, bool) {
	v, ok := p.get(name)
	if ok && v == "" {
		p.fail(name, "must not be empty (omit it for the default)")
		return "", false
	}
	return v, ok
}

func (p *qparser) boolean(name string) (bool, bool) {
	v, ok := p.get(name)
	if !ok {
		return false, false
	}
	switch v {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	p.fail(name, "must be true or false, got %q", v)
	return false, false
}

// integer accepts plain decimal digits (an optional sign) in [lo, hi].
func (p *qparser) integer(name string, lo, hi int) (int, bool) {
	v, ok := p.get(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		p.fail(name, "must be a decimal integer, got %q", v)
		return 0, false
	}
	if int(n) < lo || int(n) > hi {
		p.fail(name, "must be between %d and %d, got %d", lo, hi, n)
		return 0, false
	}
	return int(n), true
}

// MaxKeyLength bounds an image key (and any file name the API takes).
const MaxKeyLength = 255

// safeName reports whether name can only ever name a file directly inside
// a directory: non-empty, at most MaxKeyLength bytes, valid UTF-8 without
// control characters, no path separator, not "." or "..", no "..", and not
// starting with "." (hidden files are the mock's temporaries).
func safeName(name string) bool {
	if name == "" || len(name) > MaxKeyLength || strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
		return false
	}
	if strings.ContainsAny(name, `/\:`) || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == 0xfffd || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}
