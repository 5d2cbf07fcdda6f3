//go:build cuda && linux

package gpu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stub driver checks the binding to libcuda (driver_cuda.go) without a
// GPU: a C++ library exporting the driver API's entry points with cuda.h's
// C signatures, device memory in host memory (every copy checked against
// its allocation), and kernels that are kernels.cu compiled for the host,
// called with their parameters read from cuLaunchKernel's void** the way
// the driver reads them (an int, a float or a pointer per parameter).
// openDriverAt binds it with purego exactly as it binds libcuda.so.1, so
// the engine runs through the real binding: argument order and widths,
// out-parameters, strings, the JIT options of cuModuleLoadDataEx, error
// names. It skips where clang-19 is missing.

// stubDriverSource is the stub's C++ source; kernels.cu and the
// trampolines (one per kernel, generated from kernelSig) are included.
const stubDriverSource = `
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#define API extern "C" __attribute__((visibility("default")))
typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static std::mutex mu;
static std::map<uintptr_t, size_t> allocs;
static int retained, modules, streams, launches;
static unsigned last_grid, last_block;

// span reports whether [p, p+n) lies inside one allocation.
static bool span(CUdeviceptr p, size_t n) {
  auto it = allocs.upper_bound((uintptr_t)p);
  if (it == allocs.begin()) return false;
  --it;
  return (uintptr_t)p + n <= it->first + it->second;
}

API CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
API CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
API CUresult cuDeviceGet(int *dev, int ordinal) {
  if (ordinal != 0) return 101; // CUDA_ERROR_INVALID_DEVICE
  *dev = 0;
  return 0;
}
API CUresult cuDeviceGetName(char *name, int len, int dev) {
  if (dev != 0 || len < 16) return 1;
  snprintf(name, len, "Stub GPU");
  return 0;
}
API CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  std::lock_guard<std::mutex> l(mu);
  retained++;
  *ctx = (void *)0x100;
  return 0;
}
API CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
  std::lock_guard<std::mutex> l(mu);
  retained--;
  return 0;
}
API CUresult cuCtxSetCurrent(void *ctx) { return ctx == (void *)0x100 || ctx == nullptr ? 0 : 201; } // NULL unbinds
API CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *options, void **values) {
  char *log = nullptr;
  size_t size = 0, *sizeSlot = nullptr;
  for (unsigned i = 0; i < n; i++) {
    if (options[i] == 5) log = (char *)values[i];
    if (options[i] == 6) { size = (size_t)values[i]; sizeSlot = (size_t *)&values[i]; }
  }
  if (!strstr((const char *)image, "\n.target sm_70\n")) {
    if (log && size) {
      snprintf(log, size, "ptxas application ptx input, line 1; fatal   : stub: no .target sm_70\nptxas fatal   : Ptx assembly aborted due to errors\n");
      *sizeSlot = strlen(log);
    }
    return 218; // CUDA_ERROR_INVALID_PTX
  }
  std::lock_guard<std::mutex> l(mu);
  modules++;
  *mod = (void *)0x200;
  return 0;
}
API CUresult cuModuleUnload(void *mod) {
  std::lock_guard<std::mutex> l(mu);
  modules--;
  return mod == (void *)0x200 ? 0 : 400;
}
API CUresult cuStreamCreate(void **s, unsigned flags) {
  std::lock_guard<std::mutex> l(mu);
  streams++;
  *s = (void *)0x300;
  return 0;
}
API CUresult cuStreamSynchronize(void *s) { return s == (void *)0x300 ? 0 : 400; }
API CUresult cuStreamDestroy_v2(void *s) {
  std::lock_guard<std::mutex> l(mu);
  streams--;
  return s == (void *)0x300 ? 0 : 400;
}
API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) {
  if (size == 0) return 1;
  void *b = calloc(1, size);
  if (!b) return 2; // CUDA_ERROR_OUT_OF_MEMORY
  std::lock_guard<std::mutex> l(mu);
  allocs[(uintptr_t)b] = size;
  *p = (CUdeviceptr)b;
  return 0;
}
API CUresult cuMemFree_v2(CUdeviceptr p) {
  std::lock_guard<std::mutex> l(mu);
  if (!allocs.erase((uintptr_t)p)) return 1;
  free((void *)p);
  return 0;
}
API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) {
  std::lock_guard<std::mutex> l(mu);
  if (!span(dst, n) || s != (void *)0x300) return 1;
  memcpy((void *)dst, src, n);
  return 0;
}
API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) {
  std::lock_guard<std::mutex> l(mu);
  if (!span(src, n) || s != (void *)0x300) return 1;
  memcpy(dst, (const void *)src, n);
  return 0;
}
API CUresult cuGetErrorName(CUresult r, const char **name) {
  switch (r) {
  case 0: *name = "CUDA_SUCCESS"; return 0;
  case 218: *name = "CUDA_ERROR_INVALID_PTX"; return 0;
  }
  return 1;
}

typedef void (*trampoline)(void **p);
struct kernel { const char *name; trampoline run; };
extern const kernel kernels[];
extern const int nkernels;

API CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  for (int i = 0; i < nkernels; i++) {
    if (strcmp(kernels[i].name, name) == 0) { *fn = (void *)(uintptr_t)(i + 1); return 0; }
  }
  return 500; // CUDA_ERROR_NOT_FOUND
}
API CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned shared, void *s, void **params, void **extra) {
  uintptr_t i = (uintptr_t)fn;
  if (i < 1 || i > (uintptr_t)nkernels || gy != 1 || gz != 1 || by != 1 || bz != 1 || shared != 0 || extra ||
      s != (void *)0x300 || gx == 0 || bx == 0)
    return 1;
  {
    std::lock_guard<std::mutex> l(mu);
    launches++;
    last_grid = gx, last_block = bx;
  }
  kernels[i - 1].run(params);
  return 0;
}

// stub_state reports the bookkeeping: 0 live allocations, 1 retained
// contexts, 2 loaded modules, 3 streams, 4 launches, 5 the last block
// size, 6 the last grid size.
API long stub_state(int what) {
  std::lock_guard<std::mutex> l(mu);
  switch (what) {
  case 0: return (long)allocs.size();
  case 1: return retained;
  case 2: return modules;
  case 3: return streams;
  case 4: return launches;
  case 5: return last_block;
  case 6: return last_grid;
  }
  return -1;
}
`

// stubTrampolines writes, for each kernel of kernelSig, a function that
// calls it with the parameters read from cuLaunchKernel's array.
func stubTrampolines() string {
	names := make([]string, 0, len(kernelSig))
	for k := range kernelSig {
		names = append(names, k)
	}
	sort.Strings(names)
	ctype := map[byte]string{'p': "void *", 'i': "int", 'f': "float"}
	var b strings.Builder
	for _, k := range names {
		var types, args []string
		for i := 0; i < len(kernelSig[k]); i++ {
			c := ctype[kernelSig[k][i]]
			types = append(types, c)
			args = append(args, fmt.Sprintf("*(%s *)p[%d]", c, i))
		}
		fmt.Fprintf(&b, "typedef void (*fn_%s)(%s);\n", k, strings.Join(types, ", "))
		fmt.Fprintf(&b, "static void run_%s(void **p) { reinterpret_cast<fn_%s>(&%s)(%s); }\n", k, k, k, strings.Join(args, ", "))
	}
	b.WriteString("extern const kernel kernels[] = {\n")
	for _, k := range names {
		fmt.Fprintf(&b, "  {%q, run_%s},\n", k, k)
	}
	fmt.Fprintf(&b, "};\nextern const int nkernels = %d;\n", len(names))
	return b.String()
}

var (
	stubOnce sync.Once
	stubPath string
	stubErr  error
)

// stubLibrary builds the stub driver once and returns its path.
func stubLibrary(t *testing.T) string {
	t.Helper()
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		t.Skip("skipping: the stub driver needs clang-19 (apt-get install clang-19)")
	}
	stubOnce.Do(func() {
		kernels, err := filepath.Abs("kernels.cu")
		if err != nil {
			stubErr = err
			return
		}
		dir, err := os.MkdirTemp("", "pfc-gpu-stub-*")
		if err != nil {
			stubErr = err
			return
		}
		src := filepath.Join(dir, "stub.cpp")
		// The kernels are hidden so that they cannot interpose on the
		// emulator's library, which defines the same names.
		code := hostShim + fmt.Sprintf("#include %q\n", kernels) + stubDriverSource + stubTrampolines()
		if stubErr = os.WriteFile(src, []byte(code), 0o600); stubErr != nil {
			return
		}
		stubPath = filepath.Join(dir, "libcuda-stub.so")
		out, err := exec.Command(clang, "-x", "c++", "-std=c++20", "-O2", "-ffp-contract=off", "-fPIC", "-shared",
			"-fvisibility=hidden", "-Wno-unknown-attributes", "-o", stubPath, src, "-lstdc++", "-lm").CombinedOutput()
		if err != nil {
			stubErr = fmt.Errorf("clang-19: %w: %s", err, out)
		}
		// The directory stays: the library is loaded by path.
	})
	require.NoError(t, stubErr)
	return stubPath
}

// stubState reads the stub's bookkeeping (see stub_state).
func stubState(t *testing.T, path string, what int) int {
	t.Helper()
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	require.NoError(t, err)
	var state func(int32) int64
	purego.RegisterLibFunc(&state, lib, "stub_state")
	return int(state(int32(what)))
}

// TestBindingOnStubDriver runs the engine through the libcuda binding on
// the stub driver: the whole parity set and every composite, identical to
// the CPU engine as on the emulator, then checks the stub's bookkeeping
// after Close.
func TestBindingOnStubDriver(t *testing.T) {
	path := stubLibrary(t)
	drv, err := openDriverAt(path)
	require.NoError(t, err)
	e, err := newEngine(drv, Options{})
	require.NoError(t, err)
	assert.Equal(t, "Stub GPU", e.Device())

	checkParity(t, e)
	checkComposite(t, e)
	assert.Positive(t, stubState(t, path, 4), "kernels launched through cuLaunchKernel")
	assert.Equal(t, blockSize, stubState(t, path, 5), "block size")
	assert.Positive(t, stubState(t, path, 6), "grid size")

	require.NoError(t, e.Close())
	for what, name := range []string{"live allocations", "retained contexts", "loaded modules", "streams"} {
		assert.Zero(t, stubState(t, path, what), "%s after Close", name)
	}
}

// TestBindingErrors: the binding's out-parameters and strings for a
// refused PTX (cuModuleLoadDataEx's JIT log), error names, a missing
// library and a missing entry point.
func TestBindingErrors(t *testing.T) {
	path := stubLibrary(t)
	drv, err := openDriverAt(path)
	require.NoError(t, err)

	var mod handle
	errLog := make([]byte, jitLogSize)
	r := drv.ModuleLoadData(&mod, []byte(".version 6.0\n.target sm_52\n\x00"), errLog)
	assert.Equal(t, result(218), r)
	assert.Equal(t, "ptxas application ptx input, line 1; fatal   : stub: no .target sm_70; ptxas fatal   : Ptx assembly aborted due to errors",
		jitMessages(errLog))
	assert.Equal(t, result(1), drv.ModuleLoadData(&mod, []byte("no NUL"), errLog), "refused before the call")

	name, ok := drv.GetErrorName(218)
	assert.True(t, ok)
	assert.Equal(t, "CUDA_ERROR_INVALID_PTX", name)
	_, ok = drv.GetErrorName(12345)
	assert.False(t, ok, "a code the driver does not know")
	assert.Equal(t, "CUDA_ERROR_INVALID_PTX", errorName(drv, 218))

	_, err = openDriverAt(filepath.Join(t.TempDir(), "libcuda.so.1"))
	var le *LoadError
	require.ErrorAs(t, err, &le)
	assert.ErrorIs(t, err, ErrUnavailable)

	// a library without the driver's entry points
	_, err = openDriverAt("libm.so.6")
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "cuInit", le.Symbol)
}
