// Package paramtest fills a client's correction options from the
// declaration table (internal/pfcparams), so that the clients' tests of
// their options structs follow the table instead of listing its
// parameters again.
package paramtest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// stringCandidates are tried, in order, as the value of a String or List
// parameter; the first that its Check accepts is used.
var stringCandidates = []string{"1", "red", "srgb", "https://example.com/hook", "x"}

// Fill sets every exported field of the struct ptr points to that has a
// `url` tag naming a parameter to a valid, non-zero value of that
// parameter's Table entry for api: true for a Bool, Min (at least 1) for
// an Int, the first value sent on the wire for an Enum, a value its Check
// accepts for a String or List. A tagged field whose name is not a
// parameter of api is set to a non-zero value all the same (so that it
// shows in the encoding) and fails tb. Fields tagged "-" are left alone.
func Fill(tb testing.TB, api pfcparams.API, ptr any) {
	tb.Helper()
	sv := reflect.ValueOf(ptr).Elem()
	for _, sf := range reflect.VisibleFields(sv.Type()) {
		name, _, _ := strings.Cut(sf.Tag.Get("url"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		p, ok := pfcparams.Lookup(name)
		if !ok || !p.Applies(api) {
			tb.Errorf("%s.%s: %q is not a %s parameter of the table", sv.Type(), sf.Name, name, api)
			p = &pfcparams.Param{Name: name}
		}
		set(tb, sv.FieldByIndex(sf.Index), p, api)
	}
}

// set stores a valid non-zero value of p in f.
func set(tb testing.TB, f reflect.Value, p *pfcparams.Param, api pfcparams.API) {
	tb.Helper()
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Pointer:
		v := reflect.New(f.Type().Elem())
		set(tb, v.Elem(), p, api)
		f.Set(v)
	case reflect.Int:
		f.SetInt(int64(max(p.Min, 1)))
	case reflect.String:
		f.SetString(text(tb, p, api))
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 1, 1)
		s.Index(0).SetString(text(tb, p, api))
		f.Set(s)
	default:
		tb.Fatalf("paramtest: %s: cannot fill a field of kind %s", p.Name, f.Kind())
	}
}

// text returns a valid non-empty value of the String, List or Enum p.
func text(tb testing.TB, p *pfcparams.Param, api pfcparams.API) string {
	tb.Helper()
	if p.Kind == pfcparams.Enum {
		for _, v := range p.Values {
			if p.WireValue(api, v) != "" {
				return v
			}
		}
		tb.Fatalf("paramtest: %s: no value of the enum is sent to the %s API", p.Name, api)
	}
	for _, s := range stringCandidates {
		if p.StringProblem(s, true) == "" {
			return s
		}
	}
	tb.Fatalf("paramtest: %s: none of %q is valid: add a candidate", p.Name, stringCandidates)
	return ""
}
