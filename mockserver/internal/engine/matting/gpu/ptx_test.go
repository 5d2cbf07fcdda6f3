package gpu

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPTX checks the embedded PTX without a GPU: the header go generate
// asks for, one entry per kernel with the parameter count the launches
// use, the same kernels as kernels.cu, and no calls into libdevice or
// other external functions the driver could not link.
func TestPTX(t *testing.T) {
	t.Parallel()
	ptx := kernelsPTX
	require.NotEmpty(t, ptx)
	assert.Regexp(t, `(?m)^\.version \d+\.\d+$`, ptx)
	assert.Contains(t, ptx, "\n.target sm_70\n")
	assert.Contains(t, ptx, "\n.address_size 64\n")
	assert.NotContains(t, ptx, ".extern", "no external functions")

	entries := regexp.MustCompile(`(?s)\.visible \.entry (\w+)\(\n(.*?)\n\)`).FindAllStringSubmatch(ptx, -1)
	got := map[string]string{}
	letter := map[string]string{".u64": "p", ".u32": "i", ".f32": "f"}
	for _, e := range entries {
		var sig strings.Builder
		for _, m := range regexp.MustCompile(`\.param (\.\w+) `).FindAllStringSubmatch(e[2], -1) {
			l, ok := letter[m[1]]
			if !ok {
				l = "?" + m[1]
			}
			sig.WriteString(l)
		}
		got[e[1]] = sig.String()
	}
	assert.Equal(t, kernelSig, got, "entries and parameter types")

	src, err := os.ReadFile("kernels.cu")
	require.NoError(t, err)
	var declared []string
	for _, m := range regexp.MustCompile(`extern "C" __global__ void (\w+)\(`).FindAllStringSubmatch(string(src), -1) {
		declared = append(declared, m[1])
	}
	var want []string
	for k := range kernelSig {
		want = append(want, k)
	}
	assert.ElementsMatch(t, want, declared, "kernels.cu declares the kernels")
	// The PTX is not older than its source (go generate was run): the
	// generator's directive is the one documented in kernels.cu.
	gen, err := os.ReadFile("generate.go")
	require.NoError(t, err)
	assert.Contains(t, string(gen), "//go:generate clang-19 -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc -nocudalib -O3 -ffp-contract=off -S -o kernels.ptx kernels.cu")
}
