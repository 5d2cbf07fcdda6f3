//go:build cuda && linux

package gpu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"
)

// The emulator runs kernels.cu itself on the CPU, without a GPU: clang-19
// compiles the same source as host C++ into a shared library (the thread
// id builtins are constants, so each kernel's grid-stride loop runs every
// element in one thread), and emuDriver, a driver whose device memory is
// host memory, calls it for every launch. The whole engine — the Go side,
// its buffers, launch arguments and the kernels' arithmetic — is then
// checked against the CPU engine here. What it cannot check is the PTX
// code generation and the GPU itself: TestGPUParity does, on a GPU
// machine. It skips where clang-19 is missing.

// hostShim makes kernels.cu compile as host C++: a block is one thread,
// so __syncthreads is nothing, and the grid is one block unless
// emu_grid sets the block and grid of the calling thread's next calls
// (emuDriver.blocks runs every block of a launch in turn).
const hostShim = `#pragma once
static thread_local unsigned emu_ctaid = 0u, emu_nctaid = 1u;
extern "C" __attribute__((visibility("default"))) void emu_grid(unsigned b, unsigned g) {
  emu_ctaid = b;
  emu_nctaid = g;
}
#define __nvvm_read_ptx_sreg_ctaid_x() emu_ctaid
#define __nvvm_read_ptx_sreg_ntid_x() 1u
#define __nvvm_read_ptx_sreg_tid_x() 0u
#define __nvvm_read_ptx_sreg_nctaid_x() emu_nctaid
#define __syncthreads() ((void)0)
#define __nvvm_membar_gl() ((void)0)
`

var (
	emuOnce sync.Once
	emuLib  uintptr
	emuErr  error
)

// emuLibrary builds and loads the host library of kernels.cu once.
func emuLibrary(t testing.TB) uintptr {
	t.Helper()
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		t.Skip("skipping: the kernel emulator needs clang-19 (apt-get install clang-19)")
	}
	emuOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pfc-gpu-emu-*")
		if err != nil {
			emuErr = err
			return
		}
		shim := filepath.Join(dir, "shim.h")
		lib := filepath.Join(dir, "libkernels.so")
		if emuErr = os.WriteFile(shim, []byte(hostShim), 0o600); emuErr != nil {
			return
		}
		out, err := exec.Command(clang, "-x", "c++", "-std=c++20", "-O2", "-ffp-contract=off", "-fPIC", "-shared",
			"-Wno-unknown-attributes", "-include", shim, "-o", lib, "kernels.cu", "-lm").CombinedOutput()
		if err != nil {
			emuErr = fmt.Errorf("clang-19: %w: %s", err, out)
			return
		}
		emuLib, emuErr = purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
		_ = os.RemoveAll(dir) // the loaded library stays mapped
	})
	require.NoError(t, emuErr)
	return emuLib
}

// emuDriver is the fake driver with host memory as device memory and
// launches that run the host-compiled kernels.
type emuDriver struct {
	*fakeDriver
	lib  uintptr
	bufs map[devicePtr][]byte
	// blocks runs each launch as its grid of one-thread blocks, one
	// block after the other (else as one block), so that kernels whose
	// blocks cooperate (the last block of fit_select, the tiles of the
	// components' numbering) are checked with several blocks.
	blocks bool
}

func newEmuDriver(t testing.TB) *emuDriver {
	return &emuDriver{fakeDriver: newFakeDriver(), lib: emuLibrary(t), bufs: map[devicePtr][]byte{}}
}

// setFloat sets element k of the float32 buffer p in device memory.
func (e *emuDriver) setFloat(p devicePtr, k int, v float32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	*(*float32)(unsafe.Pointer(&e.bufs[p][4*k])) = v
}

func (e *emuDriver) MemAlloc(ptr *devicePtr, size uint64) result {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := make([]byte, size)
	p := devicePtr(uintptr(unsafe.Pointer(&b[0])))
	e.bufs[p] = b // keeps it alive; the Go heap does not move
	*ptr = p
	return 0
}

func (e *emuDriver) MemFree(ptr devicePtr) result {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.bufs[ptr]; !ok {
		return 1
	}
	delete(e.bufs, ptr)
	return 0
}

func (e *emuDriver) MemcpyHtoDAsync(dst devicePtr, src unsafe.Pointer, size uint64, _ handle) result {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.bufs[dst]
	if !ok || uint64(len(b)) < size {
		return 1
	}
	copy(b, unsafe.Slice((*byte)(src), size))
	return 0
}

func (e *emuDriver) MemcpyDtoHAsync(dst unsafe.Pointer, src devicePtr, size uint64, _ handle) result {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.bufs[src]
	if !ok || uint64(len(b)) < size {
		return 1
	}
	copy(unsafe.Slice((*byte)(dst), size), b)
	return 0
}

func (e *emuDriver) LaunchKernel(fn handle, grid, _ [3]uint32, _ uint32, _ handle, params []unsafe.Pointer) result {
	e.mu.Lock()
	name := e.funcs[fn]
	e.mu.Unlock()
	sym, err := purego.Dlsym(e.lib, name)
	if err != nil {
		return 500 // CUDA_ERROR_NOT_FOUND
	}
	args := make([]uintptr, len(params))
	for i, p := range params {
		// pointers are host addresses, integers sit in the low 32 bits
		args[i] = uintptr(*(*uint64)(p))
	}
	if !e.blocks {
		purego.SyscallN(sym, args...)
		return 0
	}
	// the block's id is the calling thread's: keep it for the launch
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	set, err := purego.Dlsym(e.lib, "emu_grid")
	if err != nil {
		return 500
	}
	for b := uint32(0); b < grid[0]; b++ {
		purego.SyscallN(set, uintptr(b), uintptr(grid[0]))
		purego.SyscallN(sym, args...)
	}
	purego.SyscallN(set, 0, 1)
	return 0
}

// emuEngine is the engine on the emulator.
func emuEngine(t *testing.T) *Engine {
	_, e := emuEngineDriver(t)
	return e
}

// emuEngineDriver is emuEngine with its driver, whose device memory a
// test may change.
func emuEngineDriver(t *testing.T) (*emuDriver, *Engine) {
	d := newEmuDriver(t)
	e, err := newEngine(d, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return d, e
}

func TestEmulatedParity(t *testing.T) { checkParity(t, emuEngine(t)) }

func TestEmulatedComposite(t *testing.T) {
	t.Parallel()
	checkComposite(t, emuEngine(t))
}

func TestEmulatedRemoveAndComposite(t *testing.T) {
	t.Parallel()
	e := emuEngine(t)
	checkRemoveAndComposite(t, e)
	checkConcurrentRemoveAndComposite(t, e, 4)
}
