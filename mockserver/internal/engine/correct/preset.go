package correct

import (
	"image"
	"maps"
)

// Built-in preset names, exactly as the preset parameter spells them. They
// are case-sensitive: "pro" or "NONE" is not a built-in name (the caller
// then looks for an uploaded or mounted preset of that name).
const (
	// PresetUniversal is the Universal group; the empty preset selects it
	// too (AI preset selection).
	PresetUniversal = "Universal"
	// PresetPro is the Pro group.
	PresetPro = "Pro"
	// PresetSchoolAndSports is the School and sports group.
	PresetSchoolAndSports = "School and Sports"
	// PresetAttractionsAndCruiseLines is the Attractions and cruise lines
	// group.
	PresetAttractionsAndCruiseLines = "Attractions and Cruise Lines"
	// PresetNone skips correction: its group's parameters are the identity.
	PresetNone = "none"
)

// Group maps scene categories to correction parameters: a built-in AI
// preset group, or a preset file.
type Group struct {
	// Name is the preset name the group was selected by.
	Name string
	// Default applies to SceneUnknown and to every scene without an entry
	// in Scenes.
	Default Params
	// Scenes holds the per-scene parameters.
	Scenes map[Scene]Params
}

// For returns the parameters for scene s.
func (g Group) For(s Scene) Params {
	if p, ok := g.Scenes[s]; ok {
		return p
	}
	return g.Default
}

// IsIdentity reports whether the group changes no pixel for any scene.
func (g Group) IsIdentity() bool {
	if !g.Default.IsIdentity() {
		return false
	}
	for _, p := range g.Scenes {
		if !p.IsIdentity() {
			return false
		}
	}
	return true
}

// clone returns g with its own Scenes map.
func (g Group) clone() Group {
	g.Scenes = maps.Clone(g.Scenes)
	return g
}

// IsAISelection reports whether a preset value leaves the preset choice to
// AI preset selection: omitted ("") or "Universal". The skip parameter is
// ignored then.
func IsAISelection(preset string) bool { return preset == "" || preset == PresetUniversal }

// BuiltinNames lists the built-in preset names in the documented order, with
// "none" last.
func BuiltinNames() []string {
	return []string{PresetUniversal, PresetPro, PresetSchoolAndSports, PresetAttractionsAndCruiseLines, PresetNone}
}

// Builtin returns the built-in group for a preset value: "" and
// "Universal" give Universal; "Pro", "School and Sports" and "Attractions
// and Cruise Lines" their groups; "none" the identity group. Names are
// case-sensitive; ok is false for anything else. The group is a fresh copy
// the caller may modify.
func Builtin(name string) (Group, bool) {
	var g Group
	switch name {
	case "", PresetUniversal:
		g = universal
	case PresetPro:
		g = pro
	case PresetSchoolAndSports:
		g = schoolAndSports
	case PresetAttractionsAndCruiseLines:
		g = attractions
	case PresetNone:
		return Group{Name: PresetNone}, true
	default:
		return Group{}, false
	}
	return g.clone(), true
}

// Auto is the whole automatic correction: it detects the scene (given the
// caller's face count), takes that scene's parameters from g and applies
// them to img in place.
func Auto(img *image.NRGBA, g Group, faceCount int) (Scene, Params, Stats) {
	s := DetectScene(img, faceCount)
	p := g.For(s)
	return s, p, Apply(img, p)
}

// universal is the reference table: moderate, scene-aware corrections.
// Cast strength is lowered where gray-world is known to mislead (dominant
// greens, blue skies, sunsets whose warmth is the subject, large skin
// areas).
var universal = Group{
	Name: PresetUniversal,
	Default: Params{Cast: 1, ClipLow: 0.1, ClipHigh: 0.1, Stretch: 1, AutoExposure: 0.6,
		Contrast: 0.15, Vibrance: 0.15, SkinProtect: 0.7},
	Scenes: map[Scene]Params{
		ScenePortrait: {Cast: 0.7, ClipLow: 0.05, ClipHigh: 0.1, Stretch: 0.8, AutoExposure: 0.6,
			Brightness: 0.05, Contrast: 0.08, Vibrance: 0.10, SkinProtect: 1},
		SceneGroup: {Cast: 0.7, ClipLow: 0.05, ClipHigh: 0.1, Stretch: 0.9, AutoExposure: 0.6,
			Brightness: 0.05, Contrast: 0.10, Vibrance: 0.12, SkinProtect: 1},
		SceneLandscape: {Cast: 0.5, ClipLow: 0.1, ClipHigh: 0.05, Stretch: 1, AutoExposure: 0.4,
			Contrast: 0.20, Vibrance: 0.30, SkinProtect: 0.5},
		SceneNature: {Cast: 0.5, ClipLow: 0.1, ClipHigh: 0.05, Stretch: 1, AutoExposure: 0.4,
			Contrast: 0.18, Vibrance: 0.25, SkinProtect: 0.5},
		SceneNight: {Cast: 0.4, ClipLow: 0.2, ClipHigh: 0.02, Stretch: 0.6, AutoExposure: 0.3,
			Brightness: 0.1, Contrast: 0.05, Vibrance: 0.05, SkinProtect: 0.7},
		SceneProduct: {Cast: 1, ClipLow: 0.05, ClipHigh: 0.5, Stretch: 1,
			Contrast: 0.12, Vibrance: 0.10},
		SceneSunset: {Cast: 0.15, ClipLow: 0.1, ClipHigh: 0.05, Stretch: 0.8,
			Contrast: 0.15, Vibrance: 0.20, SkinProtect: 0.5},
		SceneHighKey: {Cast: 0.8, ClipLow: 0.05, ClipHigh: 0.1, Stretch: 0.8,
			Contrast: 0.08, Vibrance: 0.10, SkinProtect: 0.7},
	},
}

// style derives a group from Universal: fn adjusts each scene's parameters.
func style(name string, fn func(Scene, Params) Params) Group {
	g := Group{Name: name, Default: fn(SceneUnknown, universal.Default).Clamped(), Scenes: map[Scene]Params{}}
	for s, p := range universal.Scenes {
		g.Scenes[s] = fn(s, p).Clamped()
	}
	return g
}

// pro: gentle and neutral. Full cast removal, half the contrast, 40% of
// the vibrance, softer stretch and exposure, full skin protection.
var pro = style(PresetPro, func(_ Scene, p Params) Params {
	p.Contrast *= 0.5
	p.Vibrance *= 0.4
	p.Stretch *= 0.8
	p.ClipLow *= 0.5
	p.ClipHigh *= 0.5
	p.AutoExposure *= 0.6
	p.Brightness *= 0.5
	p.SkinProtect = 1
	return p
})

// schoolAndSports: punchy. 1.7× contrast and 1.8× vibrance plus a little
// saturation, fully skin-protected, people slightly brighter.
var schoolAndSports = style(PresetSchoolAndSports, func(s Scene, p Params) Params {
	p.Contrast = p.Contrast*1.7 + 0.02
	p.Vibrance = p.Vibrance*1.8 + 0.05
	p.Saturation += 0.05
	p.SkinProtect = 1
	if s == ScenePortrait || s == SceneGroup {
		p.Brightness += 0.05
	}
	return p
})

// attractions: colourful souvenirs. Double vibrance, extra saturation
// (more on skies and greens), 1.25× contrast, brighter, cast removal eased
// on outdoor scenes to keep their ambience.
var attractions = style(PresetAttractionsAndCruiseLines, func(s Scene, p Params) Params {
	p.Vibrance = p.Vibrance*2 + 0.05
	p.Saturation += 0.05
	p.Contrast *= 1.25
	p.Brightness += 0.05
	p.SkinProtect = max(p.SkinProtect, 0.8)
	switch s {
	case SceneLandscape, SceneNature, SceneSunset:
		p.Saturation += 0.05
		p.Cast *= 0.8
	}
	return p
})
