package correct

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrEmptyPreset is returned by ParsePreset for an empty (or
// whitespace-only) preset file, the one content it refuses.
var ErrEmptyPreset = errors.New("correct: empty preset file")

// maxPresetText is the largest file parsed as a text preset; anything
// larger is treated as unrecognised content.
const maxPresetText = 64 << 10

// presetKeys are the parameter keys of the preset file format.
var presetKeys = map[string]struct {
	lo, hi float64
	set    func(*Params, float64)
}{
	"cast":          {0, 1, func(p *Params, v float64) { p.Cast = v }},
	"clip_low":      {0, maxClipPercent, func(p *Params, v float64) { p.ClipLow = v }},
	"clip_high":     {0, maxClipPercent, func(p *Params, v float64) { p.ClipHigh = v }},
	"stretch":       {0, 1, func(p *Params, v float64) { p.Stretch = v }},
	"auto_exposure": {0, 1, func(p *Params, v float64) { p.AutoExposure = v }},
	"brightness":    {-1, 1, func(p *Params, v float64) { p.Brightness = v }},
	"contrast":      {-1, 1, func(p *Params, v float64) { p.Contrast = v }},
	"vibrance":      {-1, 1, func(p *Params, v float64) { p.Vibrance = v }},
	"saturation":    {-1, 1, func(p *Params, v float64) { p.Saturation = v }},
	"skin_protect":  {0, 1, func(p *Params, v float64) { p.SkinProtect = v }},
}

// presetMetaKeys are accepted and ignored (descriptive only).
var presetMetaKeys = map[string]bool{"name": true, "description": true, "version": true}

type presetAssign struct {
	key   string
	value float64
}

type presetSection struct {
	scene   Scene
	assigns []presetAssign
}

// ParsePreset reads a preset file (uploaded .pcp/.preset on the hosted
// mock, or a file mounted in /presets on the container mock) in the mock's
// text format (see the package documentation) and returns it as a group
// named name, with warnings for every line it ignored or clamped.
//
// It fails only on an empty file (ErrEmptyPreset). Content that is not the
// text format at all (binary data such as a desktop-app .pcp, invalid
// UTF-8, more than 64 KiB, or text without a single recognised setting) is
// not an error: the result is Universal under the given name, with a
// warning saying so.
func ParsePreset(name string, data []byte) (Group, []string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Group{}, nil, fmt.Errorf("%w: %q", ErrEmptyPreset, name)
	}
	fallback := func(reason string) (Group, []string, error) {
		g, _ := Builtin(PresetUniversal)
		g.Name = name
		return g, []string{fmt.Sprintf("correct: preset %q: %s; using Universal", name, reason)}, nil
	}
	if len(data) > maxPresetText {
		return fallback("larger than 64 KiB, not a text preset")
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return fallback("binary content, not the mock's text preset format")
	}

	var warns []string
	warn := func(line int, format string, args ...any) {
		warns = append(warns, fmt.Sprintf("correct: preset %q line %d: ", name, line)+fmt.Sprintf(format, args...))
	}
	var (
		top        []presetAssign
		sections   []*presetSection
		cur        *presetSection
		inBadSect  bool
		base       string
		haveBase   bool
		recognised int
	)
	text := strings.TrimPrefix(string(data), "\ufeff")
	for i, raw := range strings.Split(text, "\n") {
		line := i + 1
		s := raw
		if j := strings.IndexAny(s, "#;"); j >= 0 {
			s = s[:j]
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if strings.HasPrefix(s, "[") {
			inBadSect, cur = true, nil
			body, ok := strings.CutSuffix(s[1:], "]")
			fields := strings.Fields(body)
			if !ok || len(fields) != 2 || !strings.EqualFold(fields[0], "scene") {
				warn(line, "section %q is not [scene N]; its settings are ignored", s)
				continue
			}
			sc, ok := ParseScene(fields[1])
			if !ok {
				warn(line, "unknown scene %q; its settings are ignored", fields[1])
				continue
			}
			recognised++
			inBadSect = false
			cur = &presetSection{scene: sc}
			sections = append(sections, cur)
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			warn(line, "not a key = value line; ignored")
			continue
		}
		key := strings.ToLower(strings.TrimSpace(k))
		key = strings.NewReplacer("-", "_", " ", "_").Replace(key)
		v = strings.TrimSpace(v)
		if inBadSect {
			continue
		}
		switch {
		case key == "group":
			if cur != nil {
				warn(line, "group is only allowed before the first section; ignored")
				continue
			}
			if _, ok := Builtin(v); !ok {
				warn(line, "unknown built-in group %q; using Universal", v)
				v = PresetUniversal
			}
			base, haveBase = v, true
			recognised++
			continue
		case presetMetaKeys[key]:
			recognised++
			continue
		}
		spec, ok := presetKeys[key]
		if !ok {
			warn(line, "unknown key %q ignored", key)
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			warn(line, "%s: %q is not a number; ignored", key, v)
			continue
		}
		if f < spec.lo || f > spec.hi {
			warn(line, "%s: %v outside [%v, %v]; clamped", key, f, spec.lo, spec.hi)
			f = clamp(f, spec.lo, spec.hi)
		}
		recognised++
		a := presetAssign{key: key, value: f}
		if cur != nil {
			cur.assigns = append(cur.assigns, a)
		} else {
			top = append(top, a)
		}
	}
	if recognised == 0 {
		return fallback("no recognised settings")
	}

	var g Group
	if haveBase {
		g, _ = Builtin(base)
	} else {
		g = Group{Default: universal.Default}
	}
	g.Name = name
	for _, a := range top {
		set := presetKeys[a.key].set
		set(&g.Default, a.value)
		for s, p := range g.Scenes {
			set(&p, a.value)
			g.Scenes[s] = p
		}
	}
	for _, sec := range sections {
		p := g.For(sec.scene)
		for _, a := range sec.assigns {
			presetKeys[a.key].set(&p, a.value)
		}
		if g.Scenes == nil {
			g.Scenes = map[Scene]Params{}
		}
		g.Scenes[sec.scene] = p
	}
	return g, warns, nil
}
