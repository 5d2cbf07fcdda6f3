// Package colorspace converts the engine's output between RGB colour
// spaces described by ICC matrix/TRC profiles: the correction container's
// outputColorSpace (srgb, or an ICC profile file from /presets).
//
// Parse reads the profiles this needs and nothing more: an RGB profile
// with an XYZ connection space, its colorants (rXYZ, gXYZ, bXYZ), its tone
// curves (rTRC, gTRC, bTRC as curv gamma, curv table or para of types 0 to
// 4) and its white point (wtpt). ICC v2 and v4 colorants are relative to
// the D50 connection space (the chromatic adaptation, Bradford in
// practice, is already in them), so a conversion is source curves, source
// matrix, inverse destination matrix, inverse destination curves:
// relative colorimetric, out-of-gamut values clipped per channel.
//
// LUT-based profiles (A2B0/B2A0 without the six matrix/TRC tags),
// greyscale, CMYK and Lab profiles are not applied: Parse returns
// ErrNotMatrixTRC and the caller leaves the colours as they are. The
// conversion works on 8-bit samples: 256-entry linearisation tables, a
// float matrix, and an inverse-curve table indexed by the square root of
// the linear value.
package colorspace
