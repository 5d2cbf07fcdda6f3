package matting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting/synth"
)

// goldenCases are fixed removals whose CPU output is pinned by hash, so that
// refactors (stages made swappable for the GPU engine) provably keep the
// reference engine's bytes.
var goldenCases = []struct {
	name string
	img  func() *image.NRGBA
	o    func(face image.Rectangle) Options
}{
	{"product_plain", func() *image.NRGBA { i, _ := synth.Product(1, 640, 480, synth.Plain); return i },
		func(image.Rectangle) Options { return Options{} }},
	{"product_gradient_spill_pre", func() *image.NRGBA { i, _ := synth.Product(6, 640, 480, synth.Gradient); return i },
		func(image.Rectangle) Options { return Options{SpillReduction: true, Preprocess: true} }},
	{"product_factor3_spill", func() *image.NRGBA { i, _ := synth.Product(2, 2400, 1800, synth.Gradient); return i },
		func(image.Rectangle) Options { return Options{SpillReduction: true} }},
	{"portrait_face_spill", func() *image.NRGBA { i, _, _ := synth.Portrait(2, 640, 480); return i },
		func(f image.Rectangle) Options {
			return Options{Mode: ModePortrait, Faces: []image.Rectangle{f}, SpillReduction: true}
		}},
	{"portrait_noface", func() *image.NRGBA { i, _, _ := synth.Portrait(3, 640, 480); return i },
		func(image.Rectangle) Options { return Options{Mode: ModePortrait} }},
}

// goldenHashes are the SHA-256 of alpha‖foreground, computed with the CPU
// engine before the refactor (main at 91b6350) on amd64; other
// architectures may fuse multiply-adds differently, so only amd64 asserts
// them.
var goldenHashes = map[string]string{
	"portrait_face_spill":        "244231090818fb96e93b5095e9723b89d778016c8e3f4cc9fa3b9aacc0127e6c",
	"portrait_noface":            "bf81be88a54dfe57d2fe23c6191b590dcc54827a591ea12be7bf27e9dad91a02",
	"product_factor3_spill":      "4b97474d228c35a3f69922c094c78f304da26005f0ffda0f8f87a3a2d88bb73d",
	"product_gradient_spill_pre": "1e44eedc223000e72b6a655cf76f31ab4604a4773629420518506f95a155905e",
	"product_plain":              "edd772bf209c5f955c615768cb4188ae2c4b54b483039859a438b183cb6cb2de",
}

func goldenHash(m *Matte) string {
	h := sha256.New()
	h.Write(m.Alpha.Pix)
	if m.Foreground != nil {
		h.Write(m.Foreground.Pix)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestCPUGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			img := c.img()
			var face image.Rectangle
			if c.name == "portrait_face_spill" {
				_, _, face = synth.Portrait(2, 640, 480)
			}
			m, err := NewCPU().RemoveBackground(context.Background(), img, c.o(face))
			require.NoError(t, err)
			got := goldenHash(m)
			t.Logf("%s: %s", c.name, got)
			if want, ok := goldenHashes[c.name]; ok && runtime.GOARCH == "amd64" {
				assert.Equal(t, want, got)
			}
		})
	}
}
