package pfcparams_test

import (
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// examples are a valid and (where the API documentation refuses one) an
// invalid value of the String and List parameters; "" for none.
var examples = map[string][2]string{
	"fileKey": {"nokey", ""}, "preset": {"Pro", ""},
	"outputColorSpace": {"srgb", "../profile.icc"},
	"autocropSize":     {"1.25", "1e3"}, "autocropX": {"0.5", "x"}, "autocropY": {"-0.5", "1,5"},
	"cropARW": {"4", "four"}, "cropARH": {"5", "5."}, "autocropTopHeadGap": {"0.1", " 1"},
	"bgColor": {"#00ff00", "#0f0"}, "bgGenerativePrompt": {"a beach", ""}, "bgFileKey": {"nokey", ""},
	"webhookUrl":         {"https://example.com/hook", "http://example.com/hook"},
	"skip-exif-software": {"GIMP", ""},
}

// probe is one value of one parameter: set is how the client's options
// hold it (nil when the options cannot express it, e.g. 0 for scale),
// raw the wire value sent when the client refuses it.
type probe struct {
	set   any
	raw   string
	valid bool
}

func probes(t *testing.T, p *pfcparams.Param) []probe {
	switch p.Kind {
	case pfcparams.Int:
		below := probe{set: p.Min - 1, raw: strconv.Itoa(p.Min - 1)}
		if p.Min-1 == 0 {
			below.set = nil // 0 is "unset" in the options
		}
		return []probe{{set: p.Min, valid: true}, {set: p.Max, valid: true},
			below, {set: p.Max + 1, raw: strconv.Itoa(p.Max + 1)}}
	case pfcparams.Enum:
		var ps []probe
		for _, v := range p.Values {
			ps = append(ps, probe{set: v, valid: true})
		}
		return append(ps, probe{set: "bogus", raw: "bogus"})
	case pfcparams.Bool:
		return []probe{{set: true, valid: true}, {set: false, valid: true}}
	}
	ex, ok := examples[p.Name]
	require.True(t, ok, "no example for %s: add one", p.Name)
	ps := []probe{{set: ex[0], valid: true}}
	if ex[1] != "" {
		ps = append(ps, probe{set: ex[1], raw: ex[1]})
	}
	return ps
}

// setField sets the field of the options o points to whose url tag names
// name.
func setField(t *testing.T, o any, name string, v any) {
	s := reflect.ValueOf(o).Elem()
	for i := range s.NumField() {
		tag, _, _ := strings.Cut(s.Type().Field(i).Tag.Get("url"), ",")
		if tag != name {
			continue
		}
		f := s.Field(i)
		switch {
		case f.Kind() == reflect.Pointer:
			b := v.(bool)
			f.Set(reflect.ValueOf(&b))
		case f.Kind() == reflect.Slice:
			f.Set(reflect.ValueOf([]string{v.(string)}))
		default:
			f.Set(reflect.ValueOf(v).Convert(f.Type()))
		}
		return
	}
	t.Fatalf("no field for %s", name)
}

// TestTableAgainstTheMocks drives every declared parameter through each
// client it applies to into the in-process mock of that API, whose
// parameter tables are written separately from the API documentation:
// the values at the edges of a range, every enum value and a valid example
// must pass the client's validation and be accepted by the mock; the
// values just outside, an unknown enum value and an invalid example must
// be refused by both. A misreading of the documentation on either side
// fails here.
func TestTableAgainstTheMocks(t *testing.T) {
	t.Parallel()
	hsrv := hostedmock.Start(t, nil)
	csrv := pfcmock.Start(t, nil)
	for i := range pfcparams.Table {
		p := &pfcparams.Table[i]
		for _, api := range []pfcparams.API{pfcparams.Hosted, pfcparams.Container} {
			if !p.Applies(api) {
				continue
			}
			t.Run(api.String()+"/"+p.Name, func(t *testing.T) {
				t.Parallel()
				for _, pr := range probes(t, p) {
					var (
						opts     any
						validate func() error
						query    func() (string, error)
					)
					if api == pfcparams.Hosted {
						o := hosted.NewCorrection().WithFileKey("nokey")
						opts, validate, query = o, o.Validate, o.Query
					} else {
						o := pfccontainer.NewCorrection()
						opts, validate, query = o, o.Validate, o.Query
					}
					if pr.set != nil {
						setField(t, opts, p.Name, pr.set)
						assert.Equal(t, pr.valid, validate() == nil, "client: %s=%v: %v", p.Name, pr.set, validate())
					}
					var q string
					if pr.valid {
						var err error
						q, err = query()
						require.NoError(t, err)
					} else {
						v := url.Values{p.Name: {pr.raw}}
						if api == pfcparams.Hosted && p.Name != "fileKey" {
							v.Set("fileKey", "nokey")
						}
						q = v.Encode()
					}
					var accepted bool
					var body string
					if api == pfcparams.Hosted {
						accepted, body = send(t, hsrv.URL+"/pfc?"+q, hsrv.APIKey, http.StatusNotFound)
					} else {
						accepted, body = send(t, csrv.URL+"/pfc/nokey.jpg?"+q, "", http.StatusBadRequest)
						accepted = accepted && strings.Contains(body, "unknownImageIdMessage")
					}
					assert.Equal(t, pr.valid, accepted, "mock: %s (%s)", q, body)
				}
			})
		}
	}
}

// send GETs u and reports whether the answer is pass, the status of a
// request whose parameters are accepted but whose key is unknown.
func send(t *testing.T, u, key string, pass int) (bool, string) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == pass, string(b)
}
