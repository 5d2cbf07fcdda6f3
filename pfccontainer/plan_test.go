package pfccontainer

import (
	"testing"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/stretchr/testify/assert"
)

func TestPlanResizePriority(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		o       CorrectionOptions
		param   string
		value   int
		ignored []string
	}{
		{"none", CorrectionOptions{}, "", 0, nil},
		{"all", CorrectionOptions{Width: 1, Height: 2, Long: 3, Short: 4, Scale: 5}, "width", 1,
			[]string{"height", "long", "short", "scale"}},
		{"height", CorrectionOptions{Height: 2, Long: 3, Short: 4, Scale: 5}, "height", 2,
			[]string{"long", "short", "scale"}},
		{"long", CorrectionOptions{Long: 3, Scale: 5}, "long", 3, []string{"scale"}},
		{"short", CorrectionOptions{Short: 4, Scale: 5}, "short", 4, []string{"scale"}},
		{"scale", CorrectionOptions{Scale: 50}, "scale", 50, nil},
		{"out of range still counts", CorrectionOptions{Width: 5, Long: 99999}, "width", 5, []string{"long"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.o.Plan()
			assert.Equal(t, tc.param, p.Resize)
			assert.Equal(t, tc.value, p.ResizeValue)
			if tc.ignored == nil {
				assert.Empty(t, p.Ignored)
			} else {
				assert.Equal(t, tc.ignored, p.IgnoredNames())
			}
		})
	}
}

func TestPlanIgnoredRules(t *testing.T) {
	t.Parallel()
	p := (&CorrectionOptions{Skip: pfc.SkipNone, OutputType: "png", OutputQuality: 70}).Plan()
	assert.True(t, p.AIPresetSelection)
	assert.Equal(t, []string{"outputQuality", "skip"}, p.IgnoredNames())
	assert.Equal(t, "skip: AI preset selection is used (no preset given)", p.Ignored[1].String())

	p = (&CorrectionOptions{Preset: "Mine", Skip: pfc.SkipNone, OutputType: pfc.OutputJPEG, OutputQuality: 70}).Plan()
	assert.False(t, p.AIPresetSelection)
	assert.Empty(t, p.Ignored)

	var nilOpts *CorrectionOptions
	assert.Equal(t, Plan{AIPresetSelection: true}, nilOpts.Plan())
}
