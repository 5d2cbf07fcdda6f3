package gpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// registersPerBlock is the register file a block may use on every GPU
// from sm_70 on: a kernel using more than registersPerBlock/blockSize
// registers per thread fails to launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES).
const registersPerBlock = 65536

// TestPTXAssembles assembles the embedded PTX with NVIDIA's assembler,
// ptxas, for Volta (sm_70), Ampere (sm_80) and Hopper (sm_90): the same
// back end the driver's JIT runs at cuModuleLoadData, so the PTX that
// clang-19 wrote is accepted as NVIDIA's tools read it, without a GPU.
// Every kernel must be compiled, fit a block of blockSize threads in the
// register file, and spill nothing to local memory.
//
// It skips where no ptxas is found (PFC_PTXAS, else PATH). ptxas ships in
// the CUDA toolkit; on Debian it is in the nvidia-cuda-toolkit package of
// the non-free component, and the binary alone is enough:
//
//	apt-get download nvidia-cuda-toolkit
//	dpkg-deb -x nvidia-cuda-toolkit_*.deb /tmp/cudatk
//	PFC_PTXAS=/tmp/cudatk/usr/bin/ptxas go test -run TestPTXAssembles ./mockserver/internal/engine/matting/gpu
func TestPTXAssembles(t *testing.T) {
	t.Parallel()
	ptxas := os.Getenv("PFC_PTXAS")
	if ptxas == "" {
		var err error
		if ptxas, err = exec.LookPath("ptxas"); err != nil {
			t.Skip("skipping: no ptxas (set PFC_PTXAS or put the CUDA toolkit's ptxas on PATH; see the test's doc)")
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "kernels.ptx")
	require.NoError(t, os.WriteFile(in, []byte(kernelsPTX), 0o600))
	version, err := exec.Command(ptxas, "--version").CombinedOutput()
	require.NoError(t, err, "%s", version)
	t.Logf("%s", strings.TrimSpace(string(version)))

	for _, arch := range []string{"sm_70", "sm_80", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command(ptxas, "-arch="+arch, "-v", "-o", filepath.Join(dir, arch+".cubin"), in).CombinedOutput()
			if strings.Contains(string(out), "is not defined for option") {
				t.Skipf("skipping: this ptxas does not know %s: %s", arch, out)
			}
			require.NoError(t, err, "ptxas -arch=%s:\n%s", arch, out)
			assert.NotContains(t, strings.ToLower(string(out)), "warning", "ptxas warns")
			kernels := parsePtxasInfo(t, string(out))
			var names []string
			for name, k := range kernels {
				names = append(names, name)
				assert.LessOrEqual(t, k.registers*blockSize, registersPerBlock, "%s: %d registers a thread do not fit a block of %d", name, k.registers, blockSize)
				assert.Zero(t, k.spillStores, "%s spills registers", name)
				t.Logf("%-22s %3d registers, %3d bytes stack", name, k.registers, k.stack)
			}
			var want []string
			for name := range kernelSig {
				want = append(want, name)
			}
			assert.ElementsMatch(t, want, names, "every kernel compiled")
		})
	}
}

// ptxasKernel is what ptxas -v says of one entry function.
type ptxasKernel struct {
	registers, stack, spillStores int
}

var (
	ptxasEntry     = regexp.MustCompile(`Compiling entry function '(\w+)'`)
	ptxasRegisters = regexp.MustCompile(`Used (\d+) registers`)
	ptxasFrame     = regexp.MustCompile(`(\d+) bytes stack frame, (\d+) bytes spill stores`)
)

// parsePtxasInfo reads ptxas -v's report: for each entry a "Compiling
// entry function" line followed by its stack frame and register lines.
func parsePtxasInfo(t *testing.T, out string) map[string]ptxasKernel {
	t.Helper()
	kernels := map[string]ptxasKernel{}
	current := ""
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	for _, line := range strings.Split(out, "\n") {
		if m := ptxasEntry.FindStringSubmatch(line); m != nil {
			current = m[1]
			kernels[current] = ptxasKernel{}
			continue
		}
		if current == "" {
			continue
		}
		k := kernels[current]
		if m := ptxasRegisters.FindStringSubmatch(line); m != nil {
			k.registers = atoi(m[1])
		}
		if m := ptxasFrame.FindStringSubmatch(line); m != nil {
			k.stack, k.spillStores = atoi(m[1]), atoi(m[2])
		}
		kernels[current] = k
	}
	return kernels
}
