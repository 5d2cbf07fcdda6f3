// Package synth generates deterministic synthetic composites with exact
// ground-truth alpha, for testing and benchmarking background removal.
//
// Every image is a pure function of (seed, width, height, style): there are
// no package globals, per-pixel noise comes from a hash of the pixel position
// and the seed (not from a sequential generator), and rendering is split over
// rows, so the output bytes do not depend on GOMAXPROCS.
//
// # Compositing model
//
// Each image is composed as I = αF + (1-α)B per pixel in 8-bit sRGB values
// (the usual alpha compositing used by image viewers and by matting data
// sets), and the returned alpha is exactly the α used. Edges are
// anti-aliased analytically: shapes are signed distance fields and the
// coverage of a pixel is clamp(0.5 - d/s), where d is the signed distance in
// pixels and s the edge softness (about one pixel per 600 pixels of the short
// side, wider for hair). Overlapping parts use "over" compositing, so α is the
// union coverage.
//
// # Products
//
// [Product] renders one or two product-like objects (rounded boxes, bottles
// with neck and cap, cans, balls) with cylinder or sphere shading, specular
// highlights and printed labels, standing on the floor of a studio backdrop
// that is either [Plain] (flat colour, slight vignette, sensor noise) or
// [Gradient] (linear gradient between two backdrop colours in either
// direction, or a spotlight that is brightest at its centre; vignette,
// noise). Every object casts a contact shadow and a soft cast
// shadow onto the backdrop. Shadows are BACKGROUND: they darken the backdrop
// in linear light but leave α at 0.
//
// Product colours are drawn from a catalogue palette and rejected when they
// are within ΔE 30 (CIE76) of the backdrop, or when, at any shading level
// the renderer uses on surfaces (30–110 % of the base), they come within
// ΔE 15 of the backdrop's colour in shade (its linear light scaled by 0.2–1,
// the range of cast shadows the reference engine treats as background; e.g.
// a dark grey product on a mid grey or grey-blue sweep). Such a surface is
// indistinguishable from a cast shadow by colour alone, which is a
// documented limitation of the colour-based reference engine rather than
// something these tests try to cover. Black products on light backdrops,
// white products on dark or coloured backdrops, and chromatic products
// remain in the set; specular highlights (which pass through every grey
// level) are not restricted.
//
// # Portraits
//
// [Portrait] renders a head-and-shoulders shape (skin-toned head with simple
// facial features, hair with a softer edge, neck, shoulders and torso in a
// clothing colour with folds) that reaches the bottom edge, on a textured
// background (fractal noise blends, soft stripes, or bokeh-like blobs). The
// background palette is required to be at least ΔE 15–25 away from the skin,
// hair and clothing colours, but the texture itself spans a wide range of
// colours and luminance. The returned face box imitates a face detector: the
// bounding box of the face ellipse, slightly shrunk and jittered.
//
// # Metrics
//
// [IoU] and [MAE] compare an estimated alpha with the ground truth.
package synth
