package pfcparams

import (
	"strings"
)

// API is a set of the correction APIs.
type API uint8

// The correction APIs.
const (
	// Hosted is GET /pfc of the hosted API v2.
	Hosted API = 1 << iota
	// Container is GET /pfc/{imageKey} of the correction container.
	Container
	// Both is Hosted and Container.
	Both = Hosted | Container
)

// String returns "hosted", "container" or "hosted+container".
func (a API) String() string {
	switch a {
	case Hosted:
		return "hosted"
	case Container:
		return "container"
	case Both:
		return "hosted+container"
	}
	return "none"
}

// Kind is a parameter's Go shape, which decides how it is checked and
// encoded.
type Kind uint8

// The kinds. The zero value of every Go type means "not set": nothing is
// sent and the service default applies.
const (
	// String is a string field, sent as it is when non-empty.
	String Kind = iota
	// Int is an int field checked against Min..Max, sent when non-zero.
	Int
	// Bool is a bool field (sent as true when true) or a *bool field (sent
	// when non-nil, so that an explicit false reaches the service).
	Bool
	// Enum is a field of a named string type holding one of Values (or an
	// alias), sent in the API's spelling (Wire).
	Enum
	// List is a []string field sent comma-separated; a non-nil empty list
	// is sent as an empty value, nil not at all.
	List
)

// Group marks parameters that a priority rule ties together.
type Group uint8

// The groups.
const (
	NoGroup Group = iota
	// GroupResize: only the first supplied one, in table order, is used.
	GroupResize
	// GroupBackground: the bg* parameters, which need removeBackground.
	GroupBackground
	// GroupAutocrop: the parameters that describe the auto crop.
	GroupAutocrop
)

// Param declares one correction parameter.
type Param struct {
	// Name is the wire name.
	Name string
	// APIs are the APIs that take it.
	APIs API
	// Kind is its Go shape.
	Kind Kind
	// Group ties it to a priority rule.
	Group Group
	// Required is true for a parameter the service cannot do without.
	Required bool
	// Min and Max bound an Int, inclusive.
	Min, Max int
	// Unit words an Int's range error: "pixels", "percent" or "".
	Unit string
	// Values are an Enum's values as the Go constants spell them, in the
	// documentation's order.
	Values []string
	// Wire holds, per API, the spelling sent for each of Values ("" sends
	// nothing: the API's default means it); an API without an entry sends
	// Values as they are.
	Wire map[API][]string
	// Aliases are other accepted spellings of Values, and Fold accepts
	// any letter case.
	Aliases map[string]string
	Fold    bool
	// Check refuses a String value or a List item: it returns why, or "".
	Check func(string) string
	// Default is the service default as documented ("" none).
	Default string
	// Doc is a one-line description.
	Doc string
}

// Applies reports whether api takes p.
func (p *Param) Applies(api API) bool { return p.APIs&api != 0 }

// canonical returns the index in Values of v (after Aliases and Fold), or
// -1.
func (p *Param) canonical(v string) int {
	if a, ok := p.Aliases[v]; ok {
		v = a
	} else if p.Fold {
		if a, ok := p.Aliases[strings.ToLower(v)]; ok {
			v = a
		}
	}
	for i, x := range p.Values {
		if x == v || (p.Fold && strings.EqualFold(x, v)) {
			return i
		}
	}
	return -1
}

// StringProblem returns what is wrong with s as the value of the String
// parameter p ("" when nothing is); required says whether a Required
// parameter left blank is a problem (Binding.Check's rule).
func (p *Param) StringProblem(s string, required bool) string {
	switch {
	case p.Required && strings.TrimSpace(s) == "":
		if required {
			return "is required"
		}
	case s != "" && p.Check != nil:
		return p.Check(s)
	}
	return ""
}

// ValidValue reports whether v is one of an Enum's values (or an alias).
func (p *Param) ValidValue(v string) bool { return p.canonical(v) >= 0 }

// Canonical returns the Values entry that v spells, or v itself when it
// spells none.
func (p *Param) Canonical(v string) string {
	if i := p.canonical(v); i >= 0 {
		return p.Values[i]
	}
	return v
}

// WireValue returns how api spells an Enum value v: "" sends nothing. An
// unknown v is sent as it is.
func (p *Param) WireValue(api API, v string) string {
	i := p.canonical(v)
	if i < 0 {
		return v
	}
	if w, ok := p.Wire[api]; ok {
		return w[i]
	}
	return p.Values[i]
}

// Lookup returns the Table entry named name.
func Lookup(name string) (*Param, bool) {
	for i := range Table {
		if Table[i].Name == name {
			return &Table[i], true
		}
	}
	return nil, false
}

// Names returns the wire names of the parameters api takes, in table
// order.
func Names(api API) []string {
	var names []string
	for _, p := range Table {
		if p.Applies(api) {
			names = append(names, p.Name)
		}
	}
	return names
}

// Index returns the position of name in Table, or len(Table) for a name
// outside it (so that sorting puts unknown names last).
func Index(name string) int {
	for i := range Table {
		if Table[i].Name == name {
			return i
		}
	}
	return len(Table)
}
