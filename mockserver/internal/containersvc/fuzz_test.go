package containersvc

import (
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// FuzzImageKey: the client's key check (pfccontainer.ValidateImageKey)
// and the mock's sanity check (safeName) agree on every string; a key
// both accept travels the wire intact (the client's path escaping, the
// server's parsing) and names a file inside input/, never elsewhere.
func FuzzImageKey(f *testing.F) {
	for _, k := range []string{"", "a.jpg", "0f8e2c1d-4b9a-4c1e-9d2f-3a4b5c6d7e8f", ".hidden", "..", "a/b", `a\b`, "a:b",
		"x..y", "é.jpg", "a%2Fb", "a b?c#d", "\x00", "\u202e", "\xff", strings.Repeat("k", 255), strings.Repeat("k", 256)} {
		f.Add(k)
	}
	const input = "/srv/pfc/input"
	f.Fuzz(func(t *testing.T, key string) {
		client := pfccontainer.ValidateImageKey(key) == nil
		mock := key != "" && safeName(key)
		if client != mock {
			t.Fatalf("key %q: the client accepts it: %v, the mock: %v", key, client, mock)
		}
		if !mock {
			return
		}
		if p := filepath.Join(input, key); filepath.Dir(p) != input {
			t.Fatalf("key %q escapes input/: %s", key, p)
		}
		u, err := url.Parse("http://container.test/pfc/" + transport.PathEscape(key))
		if err != nil {
			t.Fatalf("key %q: the client's path does not parse: %v", key, err)
		}
		if got := strings.TrimPrefix(u.Path, CorrectPrefix); got != key {
			t.Fatalf("key %q arrives as %q", key, got)
		}
	})
}

// FuzzCorrectQuery: the mock's query parser never panics; what it
// accepts is within the documented ranges, and it accepts exactly what
// the client's options validate (for queries the client can produce).
func FuzzCorrectQuery(f *testing.F) {
	for _, q := range []string{"", "preset=Pro&outputType=JPEG&outputQuality=40", "width=32&scale=1000&height=10000",
		"outputQuality=39", "outputQuality=abc", "scale=0", "width=1e3", "outputType=gif", "outputColorSpace=../x.icc",
		"autocrop=TRUE", "skip=none&skip=legacy", "skip-exif-software=a,b,,c", "preserveInputFileName=false&enableComposite=true",
		"width=%zz", "long=+500", "short=0500", "preset=", "outputColorSpace=sRGB"} {
		f.Add(q, 0, 0, 0, 0, 0, 0, "", uint8(0))
	}
	f.Add("", 800, 600, 0, 0, 0, 85, "sRGB", uint8(0x1f))
	f.Add("", 0, 0, 31, 10001, 1001, 101, "../x.icc", uint8(0xff))
	c := Config{}
	if err := c.check(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string, width, height, long, short, scale, quality int, colorSpace string, flags uint8) {
		// Any raw query: no panic, and an accepted one is in range.
		if q, err := url.ParseQuery(raw); err == nil && onlyKnown(q) {
			if req, herr := c.parseRequest(q); herr == nil {
				checkRequest(t, req)
			} else if herr.Status != http.StatusBadRequest || (herr.Parameter != "" && !slices.Contains(CorrectParams(), herr.Parameter)) {
				t.Fatalf("query %q: %d answer naming %q", raw, herr.Status, herr.Parameter)
			}
		}
		// Options the client builds: accepted by both or by neither, and
		// the same resize.
		o := &pfccontainer.CorrectionOptions{Width: width, Height: height, Long: long, Short: short, Scale: scale,
			OutputQuality: quality, OutputColorSpace: colorSpace, Autocrop: flags&1 != 0}
		switch flags >> 1 & 3 {
		case 1:
			o.OutputType = pfc.OutputJPEG
		case 2:
			o.OutputType = pfc.OutputPNG
		}
		clientErr := o.Validate()
		req, herr := c.parseRequest(sentValues(o))
		if (clientErr == nil) != (herr == nil) {
			t.Fatalf("%+v: the client says %v, the mock %v", *o, clientErr, herr)
		}
		if herr == nil {
			checkRequest(t, req)
			if req.ResizeParam != string(o.Plan().Resize) || req.ResizeValue != o.Plan().ResizeValue {
				t.Fatalf("%+v: the mock resizes by %s=%d, the client's plan by %s=%d", *o, req.ResizeParam, req.ResizeValue, o.Plan().Resize, o.Plan().ResizeValue)
			}
		}
	})
}

// sentValues is what a client sends for o: Values when it validates,
// else every set field by hand, as a client without validation would.
func sentValues(o *pfccontainer.CorrectionOptions) url.Values {
	if v, err := o.Values(); err == nil {
		return v
	}
	v := url.Values{}
	for name, n := range map[string]int{"width": o.Width, "height": o.Height, "long": o.Long, "short": o.Short,
		"scale": o.Scale, "outputQuality": o.OutputQuality} {
		if n != 0 {
			v.Set(name, strconv.Itoa(n))
		}
	}
	if o.OutputType != "" {
		v.Set("outputType", string(o.OutputType))
	}
	if o.OutputColorSpace != "" {
		v.Set("outputColorSpace", o.OutputColorSpace)
	}
	if o.Autocrop {
		v.Set("autocrop", "true")
	}
	return v
}

// onlyKnown reports whether q holds only GET /pfc/{imageKey} parameters
// (the handler refuses the others before parseRequest).
func onlyKnown(q url.Values) bool {
	for k := range q {
		if !slices.Contains(CorrectParams(), k) {
			return false
		}
	}
	return true
}

func checkRequest(t *testing.T, r *Request) {
	t.Helper()
	if r.Quality < MinOutputQuality || r.Quality > MaxOutputQuality {
		t.Fatalf("quality %d accepted", r.Quality)
	}
	switch r.ResizeParam {
	case "":
		if r.ResizeValue != 0 {
			t.Fatalf("no resize parameter but value %d", r.ResizeValue)
		}
	case "scale":
		if r.ResizeValue < 1 || r.ResizeValue > MaxScale {
			t.Fatalf("scale %d accepted", r.ResizeValue)
		}
	case "width", "height", "long", "short":
		if r.ResizeValue < MinSize || r.ResizeValue > MaxSize {
			t.Fatalf("%s %d accepted", r.ResizeParam, r.ResizeValue)
		}
	default:
		t.Fatalf("resize parameter %q", r.ResizeParam)
	}
	if !slices.Contains([]string{"", "jpg", "png"}, r.OutputType) {
		t.Fatalf("output type %q", r.OutputType)
	}
	if r.ColorSpace != "original" && r.ColorSpace != "srgb" && !safeName(r.ColorSpace) {
		t.Fatalf("colour space %q accepted", r.ColorSpace)
	}
}
