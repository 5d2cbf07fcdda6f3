package correct

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuiltin(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", PresetUniversal, PresetPro, PresetSchoolAndSports, PresetAttractionsAndCruiseLines, PresetNone} {
		g, ok := Builtin(name)
		require.True(t, ok, name)
		if name == "" {
			assert.Equal(t, PresetUniversal, g.Name)
		} else {
			assert.Equal(t, name, g.Name)
		}
		assert.Equal(t, name == PresetNone, g.IsIdentity(), name)
		for _, s := range Scenes() {
			assert.Equal(t, g.For(s), g.For(s).Clamped(), "%s/%v in range", name, s)
		}
	}
	for _, name := range []string{"universal", "pro", "None", "NONE", "School and sports", "Attractions and cruise lines", "Custom"} {
		_, ok := Builtin(name)
		assert.False(t, ok, "%q is case-sensitive / unknown", name)
	}
	assert.Equal(t, []string{"Universal", "Pro", "School and Sports", "Attractions and Cruise Lines", "none"}, BuiltinNames())

	// Builtin returns copies: changing one does not change the next.
	g, _ := Builtin(PresetPro)
	g.Scenes[ScenePortrait] = Params{}
	again, _ := Builtin(PresetPro)
	assert.NotEqual(t, Params{}, again.For(ScenePortrait))
}

func TestIsAISelection(t *testing.T) {
	t.Parallel()
	assert.True(t, IsAISelection(""))
	assert.True(t, IsAISelection("Universal"))
	for _, p := range []string{"Pro", "none", "School and Sports", "my preset", "universal"} {
		assert.False(t, IsAISelection(p), p)
	}
}

func TestGroupFor(t *testing.T) {
	t.Parallel()
	g := Group{Default: Params{Contrast: 0.1}, Scenes: map[Scene]Params{SceneNight: {Contrast: 0.2}}}
	assert.Equal(t, 0.2, g.For(SceneNight).Contrast)
	assert.Equal(t, 0.1, g.For(SceneUnknown).Contrast)
	assert.Equal(t, 0.1, g.For(Scene(99)).Contrast)
	assert.Equal(t, 0.1, Group{Default: Params{Contrast: 0.1}}.For(ScenePortrait).Contrast)
}

func TestParsePreset(t *testing.T) {
	t.Parallel()
	universal, _ := Builtin(PresetUniversal)
	pro, _ := Builtin(PresetPro)

	t.Run("fixed preset", func(t *testing.T) {
		g, warns, err := ParsePreset("studio", []byte(`
# studio look
cast = 0.5
clip_low = 0.2   # percent
Clip-High = 0.4
stretch = 1
auto_exposure = 0
brightness = -0.1
contrast = 0.3
vibrance = 0.25
saturation = -0.05
skin_protect = 0.9
description = used for the studio
`))
		require.NoError(t, err)
		assert.Empty(t, warns)
		assert.Equal(t, "studio", g.Name)
		want := Params{Cast: 0.5, ClipLow: 0.2, ClipHigh: 0.4, Stretch: 1, Brightness: -0.1,
			Contrast: 0.3, Vibrance: 0.25, Saturation: -0.05, SkinProtect: 0.9}
		assert.Equal(t, want, g.Default)
		assert.Empty(t, g.Scenes)
		for _, s := range Scenes() {
			assert.Equal(t, want, g.For(s))
		}
	})

	t.Run("partial preset starts from Universal's default", func(t *testing.T) {
		g, warns, err := ParsePreset("p", []byte("contrast = 0.4\r\nvibrance=0\r\n"))
		require.NoError(t, err)
		assert.Empty(t, warns)
		want := universal.Default
		want.Contrast, want.Vibrance = 0.4, 0
		assert.Equal(t, want, g.Default)
	})

	t.Run("group base with overrides and scene sections", func(t *testing.T) {
		g, warns, err := ParsePreset("pro-night", []byte("\ufeffgroup = Pro\ncontrast = 0.2\n\n[scene night]\nbrightness = 0.3\n[scene 2]\nvibrance = 0.5\n"))
		require.NoError(t, err)
		assert.Empty(t, warns)
		assert.Equal(t, "pro-night", g.Name)
		for _, s := range Scenes() {
			assert.Equal(t, 0.2, g.For(s).Contrast, s)
		}
		want := pro.For(SceneNight)
		want.Contrast, want.Brightness = 0.2, 0.3
		assert.Equal(t, want, g.For(SceneNight))
		want = pro.For(SceneLandscape)
		want.Contrast, want.Vibrance = 0.2, 0.5
		assert.Equal(t, want, g.For(SceneLandscape))
		want = pro.For(ScenePortrait)
		want.Contrast = 0.2
		assert.Equal(t, want, g.For(ScenePortrait))
	})

	t.Run("sections without group", func(t *testing.T) {
		g, _, err := ParsePreset("x", []byte("contrast = 0.1\n[scene -1]\ncontrast = 0.3\n[Scene Portrait]\nvibrance = 0\n"))
		require.NoError(t, err)
		assert.Equal(t, 0.3, g.For(SceneUnknown).Contrast)
		assert.Equal(t, 0.1, g.For(ScenePortrait).Contrast)
		assert.Equal(t, 0.0, g.For(ScenePortrait).Vibrance)
		assert.Equal(t, universal.Default.Vibrance, g.For(SceneNight).Vibrance)
	})

	t.Run("group none makes an identity base", func(t *testing.T) {
		g, _, err := ParsePreset("only-contrast", []byte("group = none\ncontrast = 0.2\n"))
		require.NoError(t, err)
		assert.Equal(t, Params{Contrast: 0.2}, g.Default)
	})

	t.Run("problems are warnings", func(t *testing.T) {
		g, warns, err := ParsePreset("messy", []byte(strings.Join([]string{
			"contrast = 0.2",
			"sharpen = 3",      // unknown key
			"vibrance = lots",  // not a number
			"cast = 7",         // clamped
			"saturation = NaN", // not a number
			"just words",       // no '='
			"group = Fancy",    // unknown group
			"[scene 12]",       // unknown scene
			"contrast = 0.9",   // ignored with its section
			"[lighting]",       // not a scene section
			"[scene 0]",        //
			"group = Pro",      // group inside a section
			"vibrance = 0.05",  //
		}, "\n")))
		require.NoError(t, err)
		require.Len(t, warns, 9, "%q", warns)
		for _, w := range warns {
			assert.True(t, strings.HasPrefix(w, `correct: preset "messy" line `), w)
		}
		assert.Contains(t, warns[0], `unknown key "sharpen"`)
		assert.Contains(t, warns[2], "clamped")
		assert.Equal(t, 0.2, g.Default.Contrast)
		assert.Equal(t, 1.0, g.Default.Cast)
		assert.Equal(t, universal.Default.Vibrance, g.Default.Vibrance)
		assert.Equal(t, 0.05, g.For(ScenePortrait).Vibrance)
		assert.Equal(t, 0.2, g.For(ScenePortrait).Contrast)
		_, has := g.Scenes[Scene(12)]
		assert.False(t, has)
	})

	fallbacks := map[string][]byte{
		"binary pcp":    {0x50, 0x43, 0x50, 0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x10},
		"invalid utf-8": []byte("contrast = 0.2\n\xff\xfe\n"),
		"no settings":   []byte("<xml><preset/></xml>\n"),
		"comments only": []byte("# nothing here\n; really\n"),
		"too large":     []byte("contrast = 0.2\n" + strings.Repeat("# pad\n", 12000)),
		"unknown keys":  []byte("exposure_boost = 1\nsharpen = 2\n"),
		"json":          []byte(`{"contrast": 0.2}`),
		"bad sections":  []byte("[general]\ncontrast = 2\n"),
	}
	for name, data := range fallbacks {
		t.Run("fallback "+name, func(t *testing.T) {
			g, warns, err := ParsePreset("desk.pcp", data)
			require.NoError(t, err)
			require.NotEmpty(t, warns)
			assert.Contains(t, warns[len(warns)-1], "using Universal")
			assert.Equal(t, "desk.pcp", g.Name)
			assert.Equal(t, universal.Default, g.Default)
			assert.Equal(t, universal.Scenes, g.Scenes)
		})
	}

	for _, data := range [][]byte{nil, {}, []byte(" \n\t\r\n")} {
		_, _, err := ParsePreset("empty", data)
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrEmptyPreset))
		assert.True(t, strings.HasPrefix(err.Error(), "correct: "))
	}
}

func FuzzParsePreset(f *testing.F) {
	f.Add([]byte("group = Pro\ncontrast = 0.2\n[scene 2]\nvibrance = 0.5\n"))
	f.Add([]byte{0, 1, 2})
	f.Add([]byte("[scene\n=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, _, err := ParsePreset("f", data)
		if err != nil {
			require.ErrorIs(t, err, ErrEmptyPreset)
			return
		}
		for _, s := range Scenes() {
			p := g.For(s)
			require.Equal(t, p, p.Clamped())
		}
	})
}
