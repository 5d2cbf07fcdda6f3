package resize

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequested(t *testing.T) {
	t.Parallel()
	assert.False(t, Request{}.Requested())
	assert.False(t, Request{Mode: ModeGeneral}.Requested())
	for _, r := range []Request{{Width: 1}, {Height: 1}, {Long: 1}, {Short: 1}, {Scale: 1}} {
		assert.True(t, r.Requested(), "%+v", r)
	}
}

func TestPlanSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		srcW, srcH    int
		req           Request
		w, h          int
		param         string
		ignored       []string
		resize, up    bool
		ai, clamped   bool
		kernel        Kernel
		warningsCount int
	}{
		{name: "nothing requested", srcW: 400, srcH: 300, req: Request{Mode: ModeGeneral}, w: 400, h: 300, kernel: Lanczos3},
		{name: "width down", srcW: 400, srcH: 300, req: Request{Width: 200}, w: 200, h: 150, param: ParamWidth, resize: true, kernel: Lanczos3},
		{name: "width rounds half up", srcW: 400, srcH: 301, req: Request{Width: 200}, w: 200, h: 151, param: ParamWidth, resize: true, kernel: Lanczos3},
		{name: "width rounds down", srcW: 3, srcH: 2, req: Request{Width: 4}, w: 4, h: 3, param: ParamWidth, resize: true, up: true, kernel: Lanczos3},
		{name: "width never 0", srcW: 10000, srcH: 33, req: Request{Width: 32}, w: 32, h: 1, param: ParamWidth, resize: true, kernel: Lanczos3},
		{name: "height", srcW: 400, srcH: 300, req: Request{Height: 600}, w: 800, h: 600, param: ParamHeight, resize: true, up: true, ai: true, kernel: Lanczos3},
		{name: "long landscape", srcW: 400, srcH: 300, req: Request{Long: 100}, w: 100, h: 75, param: ParamLong, resize: true, kernel: Lanczos3},
		{name: "long portrait", srcW: 300, srcH: 400, req: Request{Long: 100}, w: 75, h: 100, param: ParamLong, resize: true, kernel: Lanczos3},
		{name: "long square", srcW: 300, srcH: 300, req: Request{Long: 100}, w: 100, h: 100, param: ParamLong, resize: true, kernel: Lanczos3},
		{name: "short landscape", srcW: 400, srcH: 300, req: Request{Short: 150}, w: 200, h: 150, param: ParamShort, resize: true, kernel: Lanczos3},
		{name: "short portrait", srcW: 300, srcH: 400, req: Request{Short: 150}, w: 150, h: 200, param: ParamShort, resize: true, kernel: Lanczos3},
		{name: "scale 50", srcW: 401, srcH: 301, req: Request{Scale: 50}, w: 201, h: 151, param: ParamScale, resize: true, kernel: Lanczos3},
		{name: "scale 200", srcW: 400, srcH: 300, req: Request{Scale: 200}, w: 800, h: 600, param: ParamScale, resize: true, up: true, ai: true, kernel: Lanczos3},
		{name: "scale 1 never 0", srcW: 40, srcH: 40, req: Request{Scale: 1}, w: 1, h: 1, param: ParamScale, resize: true, kernel: Lanczos3},
		{name: "scale 100 is a no-op", srcW: 400, srcH: 300, req: Request{Scale: 100}, w: 400, h: 300, param: ParamScale, kernel: Lanczos3},
		{name: "same width is a no-op", srcW: 400, srcH: 300, req: Request{Width: 400}, w: 400, h: 300, param: ParamWidth, kernel: Lanczos3},

		{name: "width beats all", srcW: 400, srcH: 300, req: Request{Width: 200, Height: 50, Long: 10, Short: 10, Scale: 10}, w: 200, h: 150, param: ParamWidth,
			ignored: []string{ParamHeight, ParamLong, ParamShort, ParamScale}, resize: true, kernel: Lanczos3, warningsCount: 1},
		{name: "height beats long", srcW: 400, srcH: 300, req: Request{Height: 150, Long: 10, Scale: 10}, w: 200, h: 150, param: ParamHeight,
			ignored: []string{ParamLong, ParamScale}, resize: true, kernel: Lanczos3, warningsCount: 1},
		{name: "long beats short", srcW: 400, srcH: 300, req: Request{Long: 200, Short: 10}, w: 200, h: 150, param: ParamLong,
			ignored: []string{ParamShort}, resize: true, kernel: Lanczos3, warningsCount: 1},
		{name: "short beats scale", srcW: 400, srcH: 300, req: Request{Short: 150, Scale: 10}, w: 200, h: 150, param: ParamShort,
			ignored: []string{ParamScale}, resize: true, kernel: Lanczos3, warningsCount: 1},

		{name: "AI needs short side 64", srcW: 100, srcH: 64, req: Request{Scale: 200}, w: 200, h: 128, param: ParamScale, resize: true, up: true, ai: true, kernel: Lanczos3},
		{name: "classic upscale below 64", srcW: 100, srcH: 63, req: Request{Scale: 200}, w: 200, h: 126, param: ParamScale, resize: true, up: true, kernel: Lanczos3},
		{name: "downscale is classic", srcW: 4000, srcH: 3000, req: Request{Long: 1200, Mode: ModeGeneral}, w: 1200, h: 900, param: ParamLong, resize: true, kernel: Lanczos3},

		{name: "auto 2x is lanczos", srcW: 100, srcH: 100, req: Request{Long: 200}, w: 200, h: 200, param: ParamLong, resize: true, up: true, ai: true, kernel: Lanczos3},
		{name: "auto above 2x is catmull-rom", srcW: 100, srcH: 100, req: Request{Long: 201}, w: 201, h: 201, param: ParamLong, resize: true, up: true, ai: true, kernel: CatmullRom},
		{name: "general up is lanczos", srcW: 100, srcH: 100, req: Request{Long: 1000, Mode: ModeGeneral}, w: 1000, h: 1000, param: ParamLong, resize: true, up: true, ai: true, kernel: Lanczos3},
		{name: "smallDetails up is catmull-rom", srcW: 100, srcH: 100, req: Request{Long: 150, Mode: ModeSmallDetails}, w: 150, h: 150, param: ParamLong, resize: true, up: true, ai: true, kernel: CatmullRom},
		{name: "smallDetails down is lanczos", srcW: 1000, srcH: 100, req: Request{Long: 150, Mode: ModeSmallDetails}, w: 150, h: 15, param: ParamLong, resize: true, kernel: Lanczos3},

		{name: "general limit exact", srcW: 10000, srcH: 5000, req: Request{Scale: 200}, w: 20000, h: 10000, param: ParamScale, resize: true, up: true, ai: true, kernel: Lanczos3},
		{name: "general limit clamps", srcW: 10000, srcH: 5000, req: Request{Scale: 201}, w: 20000, h: 10000, param: ParamScale, resize: true, up: true, ai: true, clamped: true, kernel: Lanczos3, warningsCount: 1},
		{name: "auto limit is general", srcW: 5000, srcH: 10000, req: Request{Height: 30000, Mode: ModeAuto}, w: 10000, h: 20000, param: ParamHeight, resize: true, up: true, ai: true, clamped: true, kernel: Lanczos3, warningsCount: 1},
		{name: "smallDetails limit exact", srcW: 4096, srcH: 1000, req: Request{Width: 8192, Mode: ModeSmallDetails}, w: 8192, h: 2000, param: ParamWidth, resize: true, up: true, ai: true, kernel: CatmullRom},
		{name: "smallDetails limit clamps", srcW: 4096, srcH: 1000, req: Request{Width: 8193, Mode: ModeSmallDetails}, w: 8192, h: 2000, param: ParamWidth, resize: true, up: true, ai: true, clamped: true, kernel: CatmullRom, warningsCount: 1},
		{name: "classic upscale is clamped too", srcW: 40, srcH: 40, req: Request{Scale: 100000}, w: 20000, h: 20000, param: ParamScale, resize: true, up: true, clamped: true, kernel: CatmullRom, warningsCount: 1},
		{name: "huge scale does not overflow", srcW: 40, srcH: 20, req: Request{Scale: int(^uint(0) >> 1)}, w: 20000, h: 10000, param: ParamScale, resize: true, up: true, clamped: true, kernel: CatmullRom, warningsCount: 1},
		{name: "source above limit is never shrunk by upscale", srcW: 30000, srcH: 2000, req: Request{Scale: 150}, w: 30000, h: 2000, param: ParamScale, clamped: true, kernel: Lanczos3, warningsCount: 1},
		{name: "source above limit downscale", srcW: 30000, srcH: 2000, req: Request{Scale: 50}, w: 15000, h: 1000, param: ParamScale, resize: true, kernel: Lanczos3},
		{name: "clamped and ignored", srcW: 10000, srcH: 10000, req: Request{Long: 30000, Short: 5}, w: 20000, h: 20000, param: ParamLong,
			ignored: []string{ParamShort}, resize: true, up: true, ai: true, clamped: true, kernel: Lanczos3, warningsCount: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PlanSize(tt.srcW, tt.srcH, tt.req)
			require.NoError(t, err)
			assert.Equal(t, tt.w, p.Width, "width")
			assert.Equal(t, tt.h, p.Height, "height")
			assert.Equal(t, tt.param, p.Param, "param")
			assert.Equal(t, tt.ignored, p.Ignored, "ignored")
			assert.Equal(t, tt.resize, p.Resize, "resize")
			assert.Equal(t, tt.up, p.Upscale, "upscale")
			assert.Equal(t, tt.ai, p.AI, "ai")
			assert.Equal(t, tt.clamped, p.Clamped, "clamped")
			assert.Equal(t, tt.kernel, p.Kernel, "kernel %s", p.Kernel)
			assert.Len(t, p.Warnings, tt.warningsCount, "warnings %q", p.Warnings)
		})
	}
}

func TestPlanSizeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w, h int
		r    Request
	}{
		{0, 10, Request{Width: 5}},
		{10, -1, Request{}},
		{10, 10, Request{Width: -1}},
		{10, 10, Request{Scale: -100}},
		{10, 10, Request{Short: -1, Width: 4}},
		{10, 10, Request{Width: 5, Mode: "fancy"}},
	} {
		_, err := PlanSize(tc.w, tc.h, tc.r)
		require.ErrorIs(t, err, ErrInvalidRequest, "%+v", tc)
		assert.Contains(t, err.Error(), "resize: ")
	}
}

func TestModeValid(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{"", ModeAuto, ModeGeneral, ModeSmallDetails} {
		assert.True(t, m.Valid(), m)
	}
	assert.False(t, Mode("General").Valid())
}

func TestKernelString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "lanczos3", Kernel(0).String())
	assert.Equal(t, "lanczos3", Lanczos3.String())
	assert.Equal(t, "catmullRom", CatmullRom.String())
	assert.Equal(t, "linear", Linear.String())
	assert.Equal(t, "box", Box.String())
	assert.Equal(t, "lanczos3", Kernel(99).String())
}
