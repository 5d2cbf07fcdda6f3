//go:build cuda && linux

package gpu

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Compiled reports whether this build contains the GPU engine (build tag
// cuda, on Linux).
const Compiled = true

// libcuda is the driver library, loaded at run time: no cgo, no CUDA
// toolkit at build time.
const libcuda = "libcuda.so.1"

// cudaDriver binds driver to libcuda.so.1 with purego. The _v2 entry
// points are the ones cuda.h maps the plain names to since CUDA 4.0/11.0.
type cudaDriver struct {
	cuInit                    func(flags uint32) int32
	cuDeviceGetCount          func(count *int32) int32
	cuDeviceGet               func(dev *int32, ordinal int32) int32
	cuDeviceGetName           func(name unsafe.Pointer, n int32, dev int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease func(dev int32) int32
	cuCtxSetCurrent           func(ctx uintptr) int32
	cuModuleLoadDataEx        func(mod *uintptr, image unsafe.Pointer, n uint32, options, values unsafe.Pointer) int32
	cuModuleUnload            func(mod uintptr) int32
	cuModuleGetFunction       func(fn *uintptr, mod uintptr, name string) int32
	cuMemAlloc                func(ptr *uint64, size uint64) int32
	cuMemFree                 func(ptr uint64) int32
	cuMemcpyHtoDAsync         func(dst uint64, src unsafe.Pointer, size uint64, stream uintptr) int32
	cuMemcpyDtoHAsync         func(dst unsafe.Pointer, src uint64, size uint64, stream uintptr) int32
	cuLaunchKernel            func(fn uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params, extra unsafe.Pointer) int32
	cuStreamCreate            func(stream *uintptr, flags uint32) int32
	cuStreamSynchronize       func(stream uintptr) int32
	cuStreamDestroy           func(stream uintptr) int32
	cuGetErrorName            func(r int32, name **byte) int32
}

// openDriver loads libcuda.so.1 and resolves the entry points.
func openDriver() (driver, error) { return openDriverAt(libcuda) }

// openDriverAt loads the driver library at path (a name the dynamic
// loader searches for, or a file) and resolves the entry points. The tests
// bind a stub library with it.
func openDriverAt(path string) (driver, error) {
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, &LoadError{Library: path, Err: err}
	}
	d := &cudaDriver{}
	syms := []struct {
		fn    any
		names []string // first found wins
	}{
		{&d.cuInit, []string{"cuInit"}},
		{&d.cuDeviceGetCount, []string{"cuDeviceGetCount"}},
		{&d.cuDeviceGet, []string{"cuDeviceGet"}},
		{&d.cuDeviceGetName, []string{"cuDeviceGetName"}},
		{&d.cuDevicePrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}},
		{&d.cuDevicePrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
		{&d.cuCtxSetCurrent, []string{"cuCtxSetCurrent"}},
		{&d.cuModuleLoadDataEx, []string{"cuModuleLoadDataEx"}},
		{&d.cuModuleUnload, []string{"cuModuleUnload"}},
		{&d.cuModuleGetFunction, []string{"cuModuleGetFunction"}},
		{&d.cuMemAlloc, []string{"cuMemAlloc_v2"}},
		{&d.cuMemFree, []string{"cuMemFree_v2"}},
		{&d.cuMemcpyHtoDAsync, []string{"cuMemcpyHtoDAsync_v2"}},
		{&d.cuMemcpyDtoHAsync, []string{"cuMemcpyDtoHAsync_v2"}},
		{&d.cuLaunchKernel, []string{"cuLaunchKernel"}},
		{&d.cuStreamCreate, []string{"cuStreamCreate"}},
		{&d.cuStreamSynchronize, []string{"cuStreamSynchronize"}},
		{&d.cuStreamDestroy, []string{"cuStreamDestroy_v2", "cuStreamDestroy"}},
		{&d.cuGetErrorName, []string{"cuGetErrorName"}},
	}
	for _, s := range syms {
		var sym uintptr
		var lastErr error
		for _, name := range s.names {
			if sym, lastErr = purego.Dlsym(lib, name); lastErr == nil {
				break
			}
		}
		if lastErr != nil {
			return nil, &LoadError{Library: path, Symbol: s.names[0], Err: lastErr}
		}
		purego.RegisterFunc(s.fn, sym)
	}
	return d, nil
}

func (d *cudaDriver) Init(flags uint32) result { return result(d.cuInit(flags)) }

func (d *cudaDriver) DeviceGetCount(count *int32) result {
	return result(d.cuDeviceGetCount(count))
}

func (d *cudaDriver) DeviceGet(dev *int32, ordinal int32) result {
	return result(d.cuDeviceGet(dev, ordinal))
}

func (d *cudaDriver) DeviceGetName(name []byte, dev int32) result {
	if len(name) == 0 {
		return 1
	}
	return result(d.cuDeviceGetName(unsafe.Pointer(&name[0]), int32(len(name)), dev))
}

func (d *cudaDriver) DevicePrimaryCtxRetain(ctx *handle, dev int32) result {
	var c uintptr
	r := d.cuDevicePrimaryCtxRetain(&c, dev)
	*ctx = handle(c)
	return result(r)
}

func (d *cudaDriver) DevicePrimaryCtxRelease(dev int32) result {
	return result(d.cuDevicePrimaryCtxRelease(dev))
}

func (d *cudaDriver) CtxSetCurrent(ctx handle) result {
	return result(d.cuCtxSetCurrent(uintptr(ctx)))
}

// JIT options of cuModuleLoadDataEx (CUjit_option in cuda.h).
const (
	jitErrorLogBuffer          = 5 // CU_JIT_ERROR_LOG_BUFFER
	jitErrorLogBufferSizeBytes = 6 // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
)

func (d *cudaDriver) ModuleLoadData(mod *handle, image, errLog []byte) result {
	if len(image) == 0 || image[len(image)-1] != 0 || len(errLog) == 0 {
		return 1 // CUDA_ERROR_INVALID_VALUE: the PTX must be NUL-terminated
	}
	// Each option's value is a pointer-sized slot: the buffer's address,
	// and the buffer's size as an integer.
	options := []uint32{jitErrorLogBuffer, jitErrorLogBufferSizeBytes}
	values := []uintptr{uintptr(unsafe.Pointer(&errLog[0])), uintptr(len(errLog))}
	var m uintptr
	r := d.cuModuleLoadDataEx(&m, unsafe.Pointer(&image[0]), uint32(len(options)),
		unsafe.Pointer(&options[0]), unsafe.Pointer(&values[0]))
	runtime.KeepAlive(errLog)
	*mod = handle(m)
	return result(r)
}

func (d *cudaDriver) ModuleUnload(mod handle) result {
	return result(d.cuModuleUnload(uintptr(mod)))
}

func (d *cudaDriver) ModuleGetFunction(fn *handle, mod handle, name string) result {
	var f uintptr
	r := d.cuModuleGetFunction(&f, uintptr(mod), name)
	*fn = handle(f)
	return result(r)
}

func (d *cudaDriver) MemAlloc(ptr *devicePtr, size uint64) result {
	var p uint64
	r := d.cuMemAlloc(&p, size)
	*ptr = devicePtr(p)
	return result(r)
}

func (d *cudaDriver) MemFree(ptr devicePtr) result { return result(d.cuMemFree(uint64(ptr))) }

func (d *cudaDriver) MemcpyHtoDAsync(dst devicePtr, src unsafe.Pointer, size uint64, stream handle) result {
	return result(d.cuMemcpyHtoDAsync(uint64(dst), src, size, uintptr(stream)))
}

func (d *cudaDriver) MemcpyDtoHAsync(dst unsafe.Pointer, src devicePtr, size uint64, stream handle) result {
	return result(d.cuMemcpyDtoHAsync(dst, uint64(src), size, uintptr(stream)))
}

func (d *cudaDriver) LaunchKernel(fn handle, grid, block [3]uint32, sharedMem uint32, stream handle, params []unsafe.Pointer) result {
	var p unsafe.Pointer
	if len(params) > 0 {
		p = unsafe.Pointer(&params[0])
	}
	return result(d.cuLaunchKernel(uintptr(fn), grid[0], grid[1], grid[2], block[0], block[1], block[2],
		sharedMem, uintptr(stream), p, nil))
}

func (d *cudaDriver) StreamCreate(stream *handle, flags uint32) result {
	var s uintptr
	r := d.cuStreamCreate(&s, flags)
	*stream = handle(s)
	return result(r)
}

func (d *cudaDriver) StreamSynchronize(stream handle) result {
	return result(d.cuStreamSynchronize(uintptr(stream)))
}

func (d *cudaDriver) StreamDestroy(stream handle) result {
	return result(d.cuStreamDestroy(uintptr(stream)))
}

// GetErrorName reads the driver's static string for r.
func (d *cudaDriver) GetErrorName(r result) (string, bool) {
	var p *byte
	if d.cuGetErrorName(int32(r), &p) != 0 || p == nil {
		return "", false
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 && n < 256 {
		n++
	}
	return string(unsafe.Slice(p, n)), true // a copy
}

// String names the binding in logs.
func (d *cudaDriver) String() string { return fmt.Sprintf("purego(%s)", libcuda) }
