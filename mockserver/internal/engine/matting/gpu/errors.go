package gpu

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrUnavailable is matched (errors.Is) by every error saying that the
	// GPU engine cannot run here: not compiled in, no driver, no device.
	ErrUnavailable = errors.New("gpu: engine unavailable")
	// ErrNotCompiled is returned by New in a build without the cuda tag
	// (or on a system other than Linux); it wraps ErrUnavailable.
	ErrNotCompiled = fmt.Errorf("%w: built without the cuda build tag (linux only)", ErrUnavailable)
	// ErrNoDriver is returned (wrapped in a *LoadError) when the CUDA
	// driver library cannot be loaded; it wraps ErrUnavailable.
	ErrNoDriver = fmt.Errorf("%w: CUDA driver not found", ErrUnavailable)
	// ErrNoDevice is returned when the driver loads but reports no CUDA
	// device; it wraps ErrUnavailable.
	ErrNoDevice = fmt.Errorf("%w: no CUDA device", ErrUnavailable)
	// ErrClosed is returned by an Engine's methods after Close.
	ErrClosed = errors.New("gpu: engine closed")
)

// LoadError reports that the driver library (or one of its entry points)
// could not be loaded. It wraps ErrNoDriver.
type LoadError struct {
	// Library is the file name that was loaded, "libcuda.so.1".
	Library string
	// Symbol is the missing entry point, empty when the library itself
	// did not load.
	Symbol string
	// Err is the loader's error.
	Err error
}

// Error describes the failure.
func (e *LoadError) Error() string {
	if e.Symbol != "" {
		return fmt.Sprintf("%v: %s has no %s: %v", ErrNoDriver, e.Library, e.Symbol, e.Err)
	}
	return fmt.Sprintf("%v: loading %s: %v", ErrNoDriver, e.Library, e.Err)
}

// Unwrap returns ErrNoDriver and the loader's error.
func (e *LoadError) Unwrap() []error { return []error{ErrNoDriver, e.Err} }

// DriverError is a failed CUDA driver call.
type DriverError struct {
	// Op is the driver entry point, such as "cuMemAlloc".
	Op string
	// Code is the CUresult.
	Code int
	// Name is the driver's name for Code (cuGetErrorName), such as
	// "CUDA_ERROR_OUT_OF_MEMORY"; when the driver does not know it, the
	// name from the CUDA headers, or "CUresult(<code>)".
	Name string
	// Detail is what the driver said besides the code, if anything: for
	// cuModuleLoadDataEx, the JIT compiler's error log (why the PTX was
	// refused), cut to jitLogSize bytes.
	Detail string
}

// Error describes the failure: "gpu: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)",
// followed by ": " and Detail when there is one.
func (e *DriverError) Error() string {
	s := fmt.Sprintf("gpu: %s: %s (%d)", e.Op, e.Name, e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// jitLogSize bounds the JIT compiler's error log kept in a DriverError.
const jitLogSize = 4096

// jitMessages returns the JIT compiler's log from its NUL-terminated
// buffer, its lines joined by "; " so the error stays one line.
func jitMessages(buf []byte) string {
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	var lines []string
	for _, l := range strings.Split(string(buf), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// result is a CUresult.
type result int32

const (
	cudaSuccess  result = 0
	cudaNoDevice result = 100
)

// knownErrors are the CUresult names of the CUDA headers (cuda.h) for the
// codes the engine may meet, used when cuGetErrorName cannot answer (a
// fake driver, a driver too old to know a code).
var knownErrors = map[result]string{
	0:   "CUDA_SUCCESS",
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	4:   "CUDA_ERROR_DEINITIALIZED",
	34:  "CUDA_ERROR_STUB_LIBRARY",
	46:  "CUDA_ERROR_DEVICE_UNAVAILABLE",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	218: "CUDA_ERROR_INVALID_PTX",
	221: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	222: "CUDA_ERROR_JIT_COMPILATION_DISABLED",
	300: "CUDA_ERROR_INVALID_SOURCE",
	400: "CUDA_ERROR_INVALID_HANDLE",
	500: "CUDA_ERROR_NOT_FOUND",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	719: "CUDA_ERROR_LAUNCH_FAILED",
	999: "CUDA_ERROR_UNKNOWN",
}

// errorName is the driver's name for r, else the headers', else
// "CUresult(<r>)".
func errorName(d driver, r result) string {
	if d != nil {
		if n, ok := d.GetErrorName(r); ok && n != "" {
			return n
		}
	}
	if n, ok := knownErrors[r]; ok {
		return n
	}
	return fmt.Sprintf("CUresult(%d)", int(r))
}

// check turns a driver result into nil or a *DriverError.
func check(d driver, op string, r result) error {
	if r == cudaSuccess {
		return nil
	}
	return &DriverError{Op: op, Code: int(r), Name: errorName(d, r)}
}
