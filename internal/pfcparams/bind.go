package pfcparams

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// Problem is one refused parameter.
type Problem struct {
	// Name is the wire name; Message says what is wrong with the value.
	Name, Message string
}

// Binding ties a client's options struct to the Table entries of its API.
type Binding struct {
	api    API
	typ    reflect.Type
	fields []field // in the struct's order, its API's documentation order
}

type field struct {
	index []int
	param *Param
	ptr   bool // *bool
}

// Bind binds the struct type of sample (a value or a pointer) to the Table
// entries of api by the wire names of its `url` tags. It returns an error
// unless every tagged field has an entry for api whose Kind fits the
// field's type and every entry for api has a field.
func Bind(api API, sample any) (*Binding, error) {
	t := reflect.TypeOf(sample)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	b := &Binding{api: api, typ: t}
	seen := map[string]bool{}
	for _, sf := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(sf.Tag.Get("url"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		p, ok := Lookup(name)
		if !ok || !p.Applies(api) {
			return nil, fmt.Errorf("pfcparams: %s.%s: %q is not a %s parameter of the table", t, sf.Name, name, api)
		}
		f := field{index: sf.Index, param: p}
		ft := sf.Type
		fits := false
		switch p.Kind {
		case String:
			fits = ft.Kind() == reflect.String && ft.PkgPath() == ""
		case Enum:
			fits = ft.Kind() == reflect.String
		case Int:
			fits = ft.Kind() == reflect.Int
		case Bool:
			f.ptr = ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Bool
			fits = ft.Kind() == reflect.Bool || f.ptr
		case List:
			fits = ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String
		}
		if !fits {
			return nil, fmt.Errorf("pfcparams: %s.%s: type %s does not fit %q", t, sf.Name, ft, name)
		}
		if p.Kind == Bool && p.Default == boolDefaultTrue && !f.ptr {
			return nil, fmt.Errorf("pfcparams: %s.%s: %q defaults to true, so the field must be *bool", t, sf.Name, name)
		}
		seen[name] = true
		b.fields = append(b.fields, f)
	}
	for _, name := range Names(api) {
		if !seen[name] {
			return nil, fmt.Errorf("pfcparams: %s has no field for the %s parameter %q", t, api, name)
		}
	}
	return b, nil
}

// MustBind is Bind for package initialisation: it panics on a mismatch,
// which is a programming error the package's tests catch.
func MustBind(api API, sample any) *Binding {
	b, err := Bind(api, sample)
	if err != nil {
		panic(err)
	}
	return b
}

// value returns the field f of the struct s.
func (f field) value(s reflect.Value) reflect.Value {
	if len(f.index) == 1 {
		return s.Field(f.index[0])
	}
	return s.FieldByIndex(f.index)
}

// check panics unless ptr points to the bound struct type, and returns
// that struct, whose fields the callers read (see field.value).
func (b *Binding) check(ptr any) reflect.Value {
	if t := reflect.TypeOf(ptr); t.Kind() != reflect.Pointer || t.Elem() != b.typ {
		panic(fmt.Sprintf("pfcparams: binding of %s used with %s", b.typ, t))
	}
	return reflect.ValueOf(ptr).Elem()
}

// Check validates the struct that ptr points to against the table: values
// out of range, outside an Enum's values, or refused by a Check. Required
// parameters are checked only when required is true. Problems come in the
// order of the struct's fields.
func (b *Binding) Check(ptr any, required bool) []Problem {
	sv := b.check(ptr)
	var probs []Problem
	add := func(p *Param, format string, args ...any) {
		probs = append(probs, Problem{Name: p.Name, Message: fmt.Sprintf(format, args...)})
	}
	for _, f := range b.fields {
		p, v := f.param, f.value(sv)
		switch p.Kind {
		case String:
			if why := p.StringProblem(v.String(), required); why != "" {
				add(p, "%s", why)
			}
		case Enum:
			if s := v.String(); s != "" && !p.ValidValue(s) {
				add(p, "must be one of %s, got %q", strings.Join(p.Values, ", "), s)
			}
		case Int:
			n := int(v.Int())
			if n == 0 || (n >= p.Min && n <= p.Max) {
				continue
			}
			switch p.Unit {
			case "pixels":
				add(p, "must be between %d and %d pixels, got %d", p.Min, p.Max, n)
			case "percent":
				add(p, "must be a percentage between %d and %d, got %d", p.Min, p.Max, n)
			default:
				add(p, "must be between %d and %d, got %d", p.Min, p.Max, n)
			}
		case List:
			if p.Check == nil {
				continue
			}
			for i := range v.Len() {
				if why := p.Check(v.Index(i).String()); why != "" {
					add(p, "%s", why)
					break
				}
			}
		}
	}
	return probs
}

// Encode adds the query parameters of the struct that ptr points to to q,
// in the API's spelling; unset fields are left out. It does not validate.
func (b *Binding) Encode(ptr any, q url.Values) {
	sv := b.check(ptr)
	for _, f := range b.fields {
		p, v := f.param, f.value(sv)
		switch p.Kind {
		case String:
			if s := v.String(); s != "" {
				q.Set(p.Name, s)
			}
		case Enum:
			if s := v.String(); s != "" {
				if w := p.WireValue(b.api, s); w != "" {
					q.Set(p.Name, w)
				}
			}
		case Int:
			if n := v.Int(); n != 0 {
				q.Set(p.Name, strconv.FormatInt(n, 10))
			}
		case Bool:
			switch {
			case f.ptr && !v.IsNil():
				q.Set(p.Name, strconv.FormatBool(v.Elem().Bool()))
			case !f.ptr && v.Bool():
				q.Set(p.Name, "true")
			}
		case List:
			if !v.IsNil() {
				items := make([]string, v.Len())
				for i := range items {
					items[i] = v.Index(i).String()
				}
				q.Set(p.Name, strings.Join(items, ","))
			}
		}
	}
}

// Index returns the position of name among the binding's parameters (in
// the order of the struct's fields, which follows its API's documentation),
// or their count for a name outside them, to sort problems.
func (b *Binding) Index(name string) int {
	for i, f := range b.fields {
		if f.param.Name == name {
			return i
		}
	}
	return len(b.fields)
}

// Names returns the wire names of the binding's parameters, in the order
// of the struct's fields.
func (b *Binding) Names() []string {
	names := make([]string, len(b.fields))
	for i, f := range b.fields {
		names[i] = f.param.Name
	}
	return names
}

// Supplied returns the wire names of the parameters of group g that are
// set in the struct that ptr points to, in the order of its fields.
func (b *Binding) Supplied(ptr any, g Group) []string {
	sv := b.check(ptr)
	var names []string
	for _, f := range b.fields {
		if f.param.Group == g && !f.value(sv).IsZero() {
			names = append(names, f.param.Name)
		}
	}
	return names
}
