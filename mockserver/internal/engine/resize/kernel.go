package resize

import "math"

// Kernel is a resampling filter. The zero value means Lanczos3.
type Kernel int

// The available kernels.
const (
	// Lanczos3 is a windowed sinc with three lobes: the sharpest kernel here,
	// with slight ringing next to hard edges.
	Lanczos3 Kernel = iota + 1
	// CatmullRom is the Keys cubic with a = -0.5: nearly as sharp as
	// Lanczos3 with less ringing, so it suits large upscales and fine detail.
	CatmullRom
	// Linear is the triangle (bilinear) filter.
	Linear
	// Box averages the source area each output pixel covers.
	Box
)

// String returns the kernel's name.
func (k Kernel) String() string {
	switch k.normalize() {
	case CatmullRom:
		return "catmullRom"
	case Linear:
		return "linear"
	case Box:
		return "box"
	default:
		return "lanczos3"
	}
}

// normalize maps the zero value and unknown values to Lanczos3.
func (k Kernel) normalize() Kernel {
	switch k {
	case Lanczos3, CatmullRom, Linear, Box:
		return k
	}
	return Lanczos3
}

// support is the kernel's radius in source pixels at scale 1.
func (k Kernel) support() float64 {
	switch k.normalize() {
	case CatmullRom:
		return 2
	case Linear:
		return 1
	case Box:
		return 0.5
	default:
		return 3
	}
}

// eval returns the kernel's value at distance x (in units of the scaled
// pixel). Products are converted explicitly so the compiler cannot fuse them
// into FMA instructions on some architectures and change the rounding.
func (k Kernel) eval(x float64) float64 {
	x = math.Abs(x)
	switch k.normalize() {
	case CatmullRom:
		switch {
		case x < 1:
			return float64(float64(1.5*x)*x*x) - float64(float64(2.5*x)*x) + 1
		case x < 2:
			return float64(float64(-0.5*x)*x*x) + float64(float64(2.5*x)*x) - float64(4*x) + 2
		}
		return 0
	case Linear:
		if x < 1 {
			return 1 - x
		}
		return 0
	case Box:
		if x < 0.5 {
			return 1
		}
		return 0
	default:
		if x < 3 {
			return sinc(x) * sinc(x/3)
		}
		return 0
	}
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	px := math.Pi * x
	return math.Sin(px) / px
}
