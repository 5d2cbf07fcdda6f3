// Package resize implements the mock engine's output-size rules and its
// resampler.
//
// # Size rules (PlanSize)
//
// The APIs' resize parameters width, height, long, short (pixels) and
// scale (percent) are mutually exclusive; when several are given only one is
// used, by priority width > height > long > short > scale, and the others
// are reported in Plan.Ignored and a warning. The aspect ratio is kept: the
// dependent side is the exact proportion rounded half up (for scale each
// side is rounded on its own) and never below 1 pixel. A request equal to
// the source size is a no-op (Plan.Resize false).
//
// The hosted API's documented AI-upscaling limits, as the mock applies them
// (behaviour the documentation does not spell out is marked "mock"):
//
//   - An upscale of a source whose short side is at least 64 px is an "AI"
//     resize (Plan.AI, counted in imageResizeCount). A smaller source is
//     still upscaled, classically (mock: the API documentation only says AI needs 64 px);
//     downscales are always classic (classicResizeCount).
//   - An upscale may not make the long side exceed 20,000 px (resize=general
//     or auto) or 8,192 px (resize=smallDetails). A larger request is reduced
//     to the limit with the aspect kept, Plan.Clamped set and a warning
//     (mock: the API documentation does not say whether such a request fails). A source
//     whose long side is already above the limit keeps its size: an upscale
//     request never shrinks an image. The limit applies to classic upscales
//     too, so no request can allocate an unbounded image.
//   - The documented 32..10000 range for width/height/long/short and the 50 MB
//     input limit of AI upscaling are the caller's checks; PlanSize only
//     rejects negative values, unknown modes and empty sources
//     (ErrInvalidRequest).
//
// The resize modes map to kernels (mock; ChooseKernel): downscales always
// use Lanczos3; upscales use Lanczos3 for general, Catmull-Rom for
// smallDetails (less ringing next to fine lines and text), and for auto
// Lanczos3 up to 2x and Catmull-Rom beyond, where Lanczos ringing starts to
// show. There is no learned upscaler: "AI" only decides the usage counter.
//
// # Resampling (Resize)
//
// Resize is a separable two-pass filter (horizontal, then vertical) with
// pixel centres aligned and the kernel stretched by the scale factor on
// downscales, so it low-passes properly at any factor; the cost of a
// downscale is about the same whatever the factor (roughly 6 multiply-adds
// per source pixel and channel for Lanczos3). Weights are precomputed per
// output column and row in Q14 fixed point and sum to exactly 1, so flat
// areas stay exactly flat; samples past an edge repeat the edge pixel.
// Colours are filtered premultiplied by alpha (transparent pixels never
// bleed their colour into visible ones) and the intermediate keeps 16 bits
// per channel; where negative lobes push alpha above full scale the colours
// are scaled with it, so edges keep their hue. Opaque images skip the alpha
// arithmetic.
//
// Both passes split rows over runtime.GOMAXPROCS(0) goroutines; every
// output value depends only on its inputs, so the bytes are identical for
// any number of cores. Weights are computed in float64 with explicit
// conversions that prevent fused multiply-add, so they are also the same on
// every architecture.
//
// A 4000x3000 to 1200x900 Lanczos3 downscale costs about 88 ms of CPU,
// about 46 ms on two otherwise idle cores (BenchmarkResize12MPTo1200).
package resize
