//go:build linux

package gpu

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeDriver is a driver in Go memory: buffers are byte slices, launches
// are recorded (not executed). It records the OS thread of every call and
// can fail chosen entry points.
type fakeDriver struct {
	mu       sync.Mutex
	devices  int32
	fail     map[string]result // entry point → result to return
	failOn   map[string]int    // entry point → the call (1-based) that fails with failCode
	calls    map[string]int    // entry point → calls so far
	names    map[result]string // cuGetErrorName answers
	threads  map[int]int       // OS thread id → calls
	next     uint64
	mem      map[devicePtr]*fakeBuffer
	allocs   int
	frees    int
	launches []fakeLaunch
	uploaded int // bytes copied to the device
	retained int
	streams  int
	modules  int
	funcs    map[handle]string
}

type fakeLaunch struct {
	name   string
	grid   [3]uint32
	block  [3]uint32
	params int
}

// fakeBuffer is a device buffer of the fake driver: it reads as zeros
// until written, and its bytes are allocated when first written (the
// pool's buffers are 64 KiB at least, and most are never copied to or
// from: making them all was a fifth of the driver error tests' time).
type fakeBuffer struct {
	size uint64
	b    []byte
}

// bytes returns the buffer's bytes, allocated (zeroed) on first use.
func (b *fakeBuffer) bytes() []byte {
	if b.b == nil {
		b.b = make([]byte, b.size)
	}
	return b.b
}

func newFakeDriver() *fakeDriver {
	return &fakeDriver{
		devices: 1,
		fail:    map[string]result{},
		failOn:  map[string]int{},
		calls:   map[string]int{},
		names:   map[result]string{},
		threads: map[int]int{},
		mem:     map[devicePtr]*fakeBuffer{},
		funcs:   map[handle]string{},
		next:    0x1000,
	}
}

// failCode is the result of a call chosen by failOn (CUDA_ERROR_UNKNOWN).
const failCode result = 999

// enter records the calling thread and the call, and returns the
// configured failure.
// fakeJITLog is what the fake JIT compiler logs when cuModuleLoadDataEx
// fails: two lines, as ptxas words them.
const fakeJITLog = "ptxas application ptx input, line 42; error   : Unknown symbol 'x'\nptxas fatal   : Ptx assembly aborted due to errors\n"

func (f *fakeDriver) enter(op string) result {
	f.threads[syscall.Gettid()]++
	f.calls[op]++
	if n, ok := f.failOn[op]; ok && n == f.calls[op] {
		return failCode
	}
	return f.fail[op]
}

func (f *fakeDriver) Init(uint32) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.enter("cuInit")
}

func (f *fakeDriver) DeviceGetCount(n *int32) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	*n = f.devices
	return f.enter("cuDeviceGetCount")
}

func (f *fakeDriver) DeviceGet(dev *int32, ordinal int32) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	*dev = ordinal
	return f.enter("cuDeviceGet")
}

func (f *fakeDriver) DeviceGetName(name []byte, _ int32) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	copy(name, "Fake GPU\x00")
	return f.enter("cuDeviceGetName")
}

func (f *fakeDriver) DevicePrimaryCtxRetain(ctx *handle, _ int32) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.enter("cuDevicePrimaryCtxRetain"); r != 0 {
		return r
	}
	f.retained++
	*ctx = 1
	return 0
}

func (f *fakeDriver) DevicePrimaryCtxRelease(int32) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retained--
	return f.enter("cuDevicePrimaryCtxRelease")
}

func (f *fakeDriver) CtxSetCurrent(handle) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.enter("cuCtxSetCurrent")
}

func (f *fakeDriver) ModuleLoadData(mod *handle, image, errLog []byte) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.enter("cuModuleLoadDataEx"); r != 0 {
		copy(errLog, fakeJITLog+"\x00")
		return r
	}
	if len(image) == 0 || image[len(image)-1] != 0 {
		return 1
	}
	f.modules++
	*mod = 2
	return 0
}

func (f *fakeDriver) ModuleUnload(handle) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.modules--
	return f.enter("cuModuleUnload")
}

func (f *fakeDriver) ModuleGetFunction(fn *handle, _ handle, name string) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.enter("cuModuleGetFunction"); r != 0 {
		return r
	}
	h := handle(100 + len(f.funcs))
	f.funcs[h] = name
	*fn = h
	return 0
}

func (f *fakeDriver) MemAlloc(ptr *devicePtr, size uint64) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.enter("cuMemAlloc"); r != 0 {
		return r
	}
	p := devicePtr(f.next)
	f.next += size + 0x1000
	f.mem[p] = &fakeBuffer{size: size}
	f.allocs++
	*ptr = p
	return 0
}

func (f *fakeDriver) MemFree(ptr devicePtr) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.mem[ptr]; !ok {
		return 1
	}
	delete(f.mem, ptr)
	f.frees++
	return f.enter("cuMemFree")
}

func (f *fakeDriver) MemcpyHtoDAsync(dst devicePtr, src unsafe.Pointer, size uint64, _ handle) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.mem[dst]
	if !ok || b.size < size {
		return 1
	}
	copy(b.bytes(), unsafe.Slice((*byte)(src), size))
	f.uploaded += int(size)
	return f.enter("cuMemcpyHtoDAsync")
}

func (f *fakeDriver) MemcpyDtoHAsync(dst unsafe.Pointer, src devicePtr, size uint64, _ handle) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.mem[src]
	if !ok || b.size < size {
		return 1
	}
	if b.b == nil {
		clear(unsafe.Slice((*byte)(dst), size)) // never written: zeros
	} else {
		copy(unsafe.Slice((*byte)(dst), size), b.b)
	}
	return f.enter("cuMemcpyDtoHAsync")
}

func (f *fakeDriver) LaunchKernel(fn handle, grid, block [3]uint32, _ uint32, _ handle, params []unsafe.Pointer) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.launches = append(f.launches, fakeLaunch{name: f.funcs[fn], grid: grid, block: block, params: len(params)})
	return f.enter("cuLaunchKernel")
}

func (f *fakeDriver) StreamCreate(s *handle, _ uint32) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.enter("cuStreamCreate"); r != 0 {
		return r
	}
	f.streams++
	*s = handle(2 + f.calls["cuStreamCreate"]) // one of its own
	return 0
}

func (f *fakeDriver) StreamSynchronize(handle) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.enter("cuStreamSynchronize")
}

func (f *fakeDriver) StreamDestroy(handle) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.streams--
	return f.enter("cuStreamDestroy")
}

func (f *fakeDriver) GetErrorName(r result) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.names[r]
	return n, ok
}

// snapshot returns counters under the lock.
func (f *fakeDriver) snapshot() (threads, live, retained, streams, modules int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.threads), len(f.mem), f.retained, f.streams, f.modules
}

// driverOps are the entry points the error tests fail one call at a time.
var driverOps = []string{"cuMemAlloc", "cuMemcpyHtoDAsync", "cuLaunchKernel", "cuMemcpyDtoHAsync", "cuStreamSynchronize"}

// failEachCall fails, in turn, each call of op that a piece of work makes,
// and returns how many failed. For the n-th call, open gives a fresh fake
// driver and engine with work ready to run (and cleanup, which may be nil,
// to run after it); the n-th call of op from then on fails. The work's
// error must be that call's *DriverError, and the engine's Close must
// find no buffer in use. It stops at the first n for which work succeeds.
func failEachCall(t *testing.T, name, op string, open func() (f *fakeDriver, e *Engine, work func() error, cleanup func())) int {
	t.Helper()
	for nth := 1; ; nth++ {
		f, e, work, cleanup := open()
		f.mu.Lock()
		f.failOn[op] = f.calls[op] + nth
		f.mu.Unlock()
		err := work()
		f.mu.Lock()
		delete(f.failOn, op) // a call of the clean-up's is not the work's
		f.mu.Unlock()
		if cleanup != nil {
			cleanup()
		}
		require.NoError(t, e.Close(), "%s: %s #%d: no buffer left in use", name, op, nth)
		_, live, _, _, _ := f.snapshot()
		assert.Zero(t, live)
		if err == nil {
			return nth - 1
		}
		var de *DriverError
		require.ErrorAs(t, err, &de, "%s: %s #%d", name, op, nth)
		assert.True(t, strings.HasPrefix(de.Op, op), "%s: %s: %s", name, op, de.Op)
		assert.Equal(t, int(failCode), de.Code)
	}
}

// launched runs fn and returns the kernels it launched, space-separated,
// and each kernel's last grid size; every launch's parameter count is
// checked against the kernel's signature.
func launched(t *testing.T, f *fakeDriver, fn func()) (names string, grids map[string]uint32) {
	t.Helper()
	f.mu.Lock()
	f.launches = nil
	f.mu.Unlock()
	fn()
	f.mu.Lock()
	defer f.mu.Unlock()
	var list []string
	grids = map[string]uint32{}
	for _, l := range f.launches {
		list = append(list, l.name)
		grids[l.name] = l.grid[0]
		assert.Equal(t, len(kernelSig[l.name]), l.params, l.name)
	}
	return strings.Join(list, " "), grids
}

// gridOf is the grid size launchConfig gives n elements.
func gridOf(n int) uint32 {
	g, _ := launchConfig(int64(n))
	return g
}

// flagDriver is the fake driver that, after each launch of kernel, sets
// the byte at offset in the buffer passed as the launch's parameter param,
// as the kernel would set a flag, so that the stage takes its flagged
// path.
type flagDriver struct {
	*fakeDriver
	kernel string
	param  int
	offset uintptr
}

func (d flagDriver) LaunchKernel(fn handle, grid, block [3]uint32, shared uint32, stream handle, params []unsafe.Pointer) result {
	r := d.fakeDriver.LaunchKernel(fn, grid, block, shared, stream, params)
	d.mu.Lock()
	defer d.mu.Unlock()
	if r == 0 && d.funcs[fn] == d.kernel {
		d.mem[devicePtr(*(*uint64)(params[d.param]))].bytes()[d.offset] = 1
	}
	return r
}

// newFlagFake returns a fake driver (with flag, a flagDriver of kernel's
// parameter param at offset) and an engine on it that keeps no idle
// buffer, so that every buffer is fresh (zeroed, the flag clear) and
// every allocation reaches the driver.
func newFlagFake(t *testing.T, flag bool, kernel string, param int, offset uintptr) (*fakeDriver, *Engine) {
	f := newFakeDriver()
	var drv driver = f
	if flag {
		drv = flagDriver{f, kernel, param, offset}
	}
	e, err := newEngine(drv, Options{MaxIdleBytes: 1})
	require.NoError(t, err)
	return f, e
}
