package faults

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidSpec is wrapped by every error of Parse.
var ErrInvalidSpec = errors.New("invalid fault spec")

// Kind is a kind of fault.
type Kind string

// The kinds of fault (see the package doc).
const (
	Status500  Kind = "500"
	Status503  Kind = "503"
	Status429  Kind = "429"
	Reset      Kind = "reset"
	ResetBody  Kind = "reset-body"
	ResetAfter Kind = "reset-after"
	Truncate   Kind = "truncate"
	Latency    Kind = "latency"
	Final102   Kind = "102"
)

// AllKinds lists every kind, in the order a spec's default uses.
var AllKinds = []Kind{Status500, Status503, Status429, Reset, ResetBody, ResetAfter, Truncate, Latency, Final102}

// AfterHandler reports whether the handler runs before the fault (the
// request has its side effect).
func (k Kind) AfterHandler() bool { return k == ResetAfter || k == Truncate }

// Limits and defaults of the parameters.
const (
	DefaultSeed       = 1
	DefaultLatency    = 10 * time.Millisecond
	MaxLatency        = 10 * time.Second
	DefaultRetryAfter = 1
	MaxRetryAfter     = 3600
)

// Route is a route of a backend as the fault layer knows it.
type Route struct {
	// Name is the route's name in a spec.
	Name string
	// Final102 marks a route that can answer a final 102 Processing.
	Final102 bool
}

// Backend describes a backend to the fault layer.
type Backend struct {
	// Name is the backend's name in a spec ("hosted", "container", "bg").
	Name string
	// Routes are the backend's routes; Classify returns one of their
	// names for every request.
	Routes []Route
	// Classify names the route of a request.
	Classify func(method, path string) string
}

func (b Backend) route(name string) (Route, bool) {
	for _, r := range b.Routes {
		if r.Name == name {
			return r, true
		}
	}
	return Route{}, false
}

func (b Backend) has102() bool {
	return slices.ContainsFunc(b.Routes, func(r Route) bool { return r.Final102 })
}

// Config is the effective configuration of one backend.
type Config struct {
	Rate       float64
	Kinds      []Kind   // never empty
	Routes     []string // empty: every route
	Seed       uint64
	Latency    time.Duration
	RetryAfter int // seconds
}

// section is one parsed section; set records the parameters it gives.
type section struct {
	backend string
	cfg     Config
	set     map[string]bool
}

// Spec is a parsed spec. The zero value and nil inject nothing.
type Spec struct {
	text     string
	def      *section
	backends map[string]*section
}

// String returns the spec as given to Parse.
func (s *Spec) String() string {
	if s == nil {
		return ""
	}
	return s.text
}

// For returns the effective configuration of backend; false when the spec
// gives it none.
func (s *Spec) For(backend string) (Config, bool) {
	if s == nil {
		return Config{}, false
	}
	own, ok := s.backends[backend]
	switch {
	case !ok && s.def == nil:
		return Config{}, false
	case !ok:
		return s.def.cfg, true
	case s.def == nil:
		return own.cfg, true
	}
	return merge(s.def, own).cfg, true
}

// merge returns own with the parameters it does not set taken from def.
func merge(def, own *section) *section {
	out := &section{backend: own.backend, cfg: own.cfg, set: map[string]bool{}}
	for k := range def.set {
		out.set[k] = true
	}
	for k := range own.set {
		out.set[k] = true
	}
	if !own.set["rate"] {
		out.cfg.Rate = def.cfg.Rate
	}
	if !own.set["kinds"] {
		out.cfg.Kinds = def.cfg.Kinds
	}
	if !own.set["routes"] {
		out.cfg.Routes = def.cfg.Routes
	}
	if !own.set["seed"] {
		out.cfg.Seed = def.cfg.Seed
	}
	if !own.set["latency"] {
		out.cfg.Latency = def.cfg.Latency
	}
	if !own.set["retry-after"] {
		out.cfg.RetryAfter = def.cfg.RetryAfter
	}
	return out
}

// Parse parses a spec against the backends it may name. An empty (or
// all-space) text returns nil: no faults. Errors wrap ErrInvalidSpec and
// say which section and parameter is wrong.
func Parse(text string, backends []Backend) (*Spec, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	s := &Spec{text: text, backends: map[string]*section{}}
	for i, raw := range strings.Split(text, ";") {
		sec, err := parseSection(strings.TrimSpace(raw), backends)
		if err != nil {
			return nil, fmt.Errorf("%w: section %d: %w", ErrInvalidSpec, i+1, err)
		}
		if sec.backend == "" {
			if s.def != nil {
				return nil, fmt.Errorf("%w: section %d: a second section without a backend (only one default section)", ErrInvalidSpec, i+1)
			}
			s.def = sec
			continue
		}
		if _, dup := s.backends[sec.backend]; dup {
			return nil, fmt.Errorf("%w: section %d: backend %q has a section already", ErrInvalidSpec, i+1, sec.backend)
		}
		s.backends[sec.backend] = sec
	}
	// Every effective configuration must be complete and fit its backend.
	if s.def != nil {
		if err := checkDefault(s.def, backends); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
		}
	}
	for _, b := range backends {
		own, ok := s.backends[b.Name]
		if !ok {
			continue
		}
		eff := own
		if s.def != nil {
			eff = merge(s.def, own)
		}
		if err := checkBackend(own, eff, b); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidSpec, b.Name, err)
		}
	}
	return s, nil
}

// checkDefault checks the default section: it needs a rate, and each of
// its routes must belong to some backend.
func checkDefault(def *section, backends []Backend) error {
	if !def.set["rate"] {
		return errors.New("the default section: rate is required")
	}
	for _, r := range def.cfg.Routes {
		known := false
		for _, b := range backends {
			if _, ok := b.route(r); ok {
				known = true
			}
		}
		if !known {
			return fmt.Errorf("the default section: routes: no backend has a route %q", r)
		}
	}
	return nil
}

// checkBackend checks a backend's section: own as written, eff with what
// it inherits from the default section. Routes and kinds are checked as
// the section writes them; inherited ones that the backend lacks are left
// out for it (see New), as they are for a backend without a section.
func checkBackend(own, eff *section, b Backend) error {
	if !eff.set["rate"] {
		return errors.New("rate is required")
	}
	if !own.set["routes"] {
		return checkKinds(own, b)
	}
	for _, r := range own.cfg.Routes {
		if _, ok := b.route(r); !ok {
			names := make([]string, len(b.Routes))
			for i, r := range b.Routes {
				names[i] = r.Name
			}
			return fmt.Errorf("routes: unknown route %q (routes: %s)", r, strings.Join(names, ", "))
		}
	}
	return checkKinds(own, b)
}

// checkKinds refuses a 102 that a backend's own section asks for where no
// route of it answers one.
func checkKinds(own *section, b Backend) error {
	if own.set["kinds"] && slices.Contains(own.cfg.Kinds, Final102) && !b.has102() {
		return fmt.Errorf("kinds: %s: no route of %s answers a final 102", Final102, b.Name)
	}
	return nil
}

func parseSection(raw string, backends []Backend) (*section, error) {
	if raw == "" {
		return nil, errors.New("empty section")
	}
	sec := &section{set: map[string]bool{}, cfg: Config{
		Kinds: AllKinds, Seed: DefaultSeed, Latency: DefaultLatency, RetryAfter: DefaultRetryAfter,
	}}
	body := raw
	if name, rest, ok := strings.Cut(raw, ":"); ok && !strings.Contains(name, "=") {
		name = strings.TrimSpace(name)
		known := false
		var names []string
		for _, b := range backends {
			names = append(names, b.Name)
			known = known || b.Name == name
		}
		if !known {
			return nil, fmt.Errorf("unknown backend %q (backends: %s)", name, strings.Join(names, ", "))
		}
		sec.backend, body = name, rest
	}
	for _, p := range strings.Split(body, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, errors.New("empty parameter")
		}
		key, val, ok := strings.Cut(p, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			return nil, fmt.Errorf("%q: want name=value", p)
		}
		if sec.set[key] {
			return nil, fmt.Errorf("%s: given twice", key)
		}
		if err := sec.setParam(key, val); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		sec.set[key] = true
	}
	return sec, nil
}

func (sec *section) setParam(key, val string) error {
	c := &sec.cfg
	switch key {
	case "rate":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("%q is not a number from 0 to 1", val)
		}
		c.Rate = f
	case "kinds":
		var kinds []Kind
		for _, k := range strings.Split(val, "|") {
			k := Kind(strings.TrimSpace(k))
			if !slices.Contains(AllKinds, k) {
				return fmt.Errorf("unknown kind %q (kinds: %s)", k, kindList())
			}
			if slices.Contains(kinds, k) {
				return fmt.Errorf("kind %q given twice", k)
			}
			kinds = append(kinds, k)
		}
		c.Kinds = kinds
	case "routes":
		var routes []string
		for _, r := range strings.Split(val, "|") {
			r = strings.TrimSpace(r)
			if r == "" {
				return errors.New("empty route name")
			}
			if slices.Contains(routes, r) {
				return fmt.Errorf("route %q given twice", r)
			}
			routes = append(routes, r)
		}
		c.Routes = routes // checked against the backends by Parse
	case "seed":
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an unsigned decimal integer", val)
		}
		c.Seed = n
	case "latency":
		d, err := time.ParseDuration(val)
		if err != nil || d < time.Millisecond || d > MaxLatency {
			return fmt.Errorf("%q is not a duration from 1ms to %v", val, MaxLatency)
		}
		c.Latency = d
	case "retry-after":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > MaxRetryAfter {
			return fmt.Errorf("%q is not a number of seconds from 0 to %d", val, MaxRetryAfter)
		}
		c.RetryAfter = n
	default:
		return errors.New("unknown parameter (parameters: rate, kinds, routes, seed, latency, retry-after)")
	}
	return nil
}

func kindList() string {
	s := make([]string, len(AllKinds))
	for i, k := range AllKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
