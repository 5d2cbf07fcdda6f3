package pfcdoc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func names(ig []Ignored) []string {
	var out []string
	for _, i := range ig {
		out = append(out, i.Name)
	}
	return out
}

func TestSizesResolve(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		sizes   Sizes
		param   string
		value   int
		ignored []string
	}{
		{"none", Sizes{}, "", 0, nil},
		{"scale alone", Sizes{Scale: 50}, Scale, 50, nil},
		{"width beats all", Sizes{1, 2, 3, 4, 5}, Width, 1, []string{Height, Long, Short, Scale}},
		{"height beats long", Sizes{Height: 2, Long: 3}, Height, 2, []string{Long}},
		{"long beats short", Sizes{Long: 3, Short: 4}, Long, 3, []string{Short}},
		{"short beats scale", Sizes{Short: 4, Scale: 5}, Short, 4, []string{Scale}},
		{"negative counts as supplied", Sizes{Width: -1, Scale: 5}, Width, -1, []string{Scale}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, v, ig := tc.sizes.Resolve()
			assert.Equal(t, tc.param, p)
			assert.Equal(t, tc.value, v)
			assert.Equal(t, tc.ignored, names(ig))
		})
	}
	_, _, ig := Sizes{Width: 1, Scale: 5}.Resolve()
	assert.Equal(t, "width takes priority (use one resize parameter per request)", ig[0].Reason)
}

func TestBackgroundResolve(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		bg      Background
		mode    string
		ignored []string
	}{
		{"off", Background{}, ModeNone, nil},
		{"off with params", Background{Color: "red", Shadow: "soft", FileKey: "k"}, ModeNone, []string{"bgColor", "bgFileKey", "bgShadow"}},
		{"transparent", Background{Remove: true}, ModeTransparent, nil},
		{"transparent by colour", Background{Remove: true, Color: "Transparent"}, ModeTransparent, nil},
		{"colour", Background{Remove: true, Color: "#ff0000", Shadow: "hard"}, ModeColor, nil},
		{"image beats colour", Background{Remove: true, FileKey: "k", Color: "red"}, ModeImage, []string{"bgColor"}},
		{"generative beats all", Background{Remove: true, GenerativePrompt: "beach", FileKey: "k", Color: "red", Shadow: "soft"},
			ModeGenerative, []string{"bgColor", "bgFileKey", "bgShadow"}},
		{"shadow on transparent", Background{Remove: true, Shadow: "soft"}, ModeTransparent, []string{"bgShadow"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mode, ig := tc.bg.Resolve()
			assert.Equal(t, tc.mode, mode)
			assert.Equal(t, tc.mode, tc.bg.Mode())
			assert.Equal(t, tc.ignored, names(ig))
		})
	}
	assert.True(t, ShadowAllowed(ModeImage))
	assert.True(t, ShadowAllowed(ModeColor))
	assert.False(t, ShadowAllowed(ModeGenerative))
}

func TestLookups(t *testing.T) {
	t.Parallel()
	p, ok := HostedParam("outputQuality")
	assert.True(t, ok)
	assert.True(t, p.Range.Contains(40) && p.Range.Contains(100) && !p.Range.Contains(39))
	_, ok = HostedParam("nope")
	assert.False(t, ok)
	assert.Equal(t, 0, Index("fileKey"))
	assert.Equal(t, len(Hosted), Index("nope"))
}
