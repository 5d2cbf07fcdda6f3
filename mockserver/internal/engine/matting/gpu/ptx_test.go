package gpu

import (
	"os"
	"os/exec"
	"path/filepath"
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

// TestPTXUpToDate regenerates the PTX with the go:generate directive of
// generate.go into a temporary file and compares it with the embedded
// PTX byte for byte: kernels.ptx is what kernels.cu compiles to, and the
// generation is reproducible. It skips where clang-19 is missing (CI
// never needs it).
func TestPTXUpToDate(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("clang-19"); err != nil {
		t.Skip("skipping: needs clang-19 (apt-get install clang-19) to regenerate the PTX")
	}
	gen, err := os.ReadFile("generate.go")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^//go:generate (.*)$`).FindStringSubmatch(string(gen))
	require.NotNil(t, m, "generate.go has a go:generate directive")
	args := strings.Fields(m[1])
	require.Equal(t, "clang-19", args[0])
	out := filepath.Join(t.TempDir(), "kernels.ptx")
	for i, a := range args {
		if a == "-o" {
			args[i+1] = out
		}
	}
	res, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "%s", res)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, kernelsPTX, string(got), "kernels.ptx is stale: run go generate")
}
