// Package matting is the CPU reference background-removal engine of the mock
// servers: it computes an alpha matte for a photo (modes "general" and
// "portrait", the background-removal container's modes), composites the
// subject onto a transparent, colour, image or generated background with
// optional synthetic shadows (the hosted API documentation's bgColor,
// bgFileKey, bgGenerativePrompt and bgShadow), and provides the output size
// limit of background removal.
//
// Everything is pure Go and deterministic: the same input and options give
// the same bytes regardless of GOMAXPROCS. Heavy loops split rows over
// runtime.GOMAXPROCS(0) goroutines, each output pixel is computed
// independently, and floating-point reductions are sequential or blocked in
// a fixed order.
//
// The per-pixel stages — the analysis image (box reduction, median, colour
// conversion), general mode's background distance and the full-resolution
// refinement with spill reduction — sit behind [Stages], so that a device
// can run them: [NewAccelerated] is the pipeline with those stages on a
// device and the rest on the CPU, and the GPU engine (package gpu, build
// tag cuda) is such a device. A run that is a [Classifier] also cleans
// general mode's mask up on its device, reproducing the CPU's steps,
// which are exported as its reference (ReferenceClassify and the
// Reference functions of each step); a run that is a [PlateSampler]
// also chooses and sums the clean plate's samples between rounds
// (ReferenceSamplePlate); a run that is a [RefinePlanner] also plans the
// refinement (band and local statistics) from the coarse mask, leaving
// only the image's fallback means to the host (ReferenceRefinePlan,
// [ConfidentMeans]); a [BackgroundFitter] also fits the background model
// (ReferenceFitBackground) and a [FieldEvaluator] evaluates the fields'
// grids and the rounds' thresholds (ReferenceFieldGrid,
// ReferenceFieldThreshold); a [DistanceKeeper] keeps each round's
// distances on its device, and a [PlaneKeeper] running every stage of
// general mode keeps the analysis planes there too, so that nothing the
// host does not read is copied back. [Compositor] and [CompositeWith] let a
// remover composite on its device too; the small, CPU-side parts of
// compositing are exported for it, computed by the same code as
// Composite's: the cover resize's filter taps ([CoverSource],
// [PlanCover]), a generated background's reduced scene
// ([GenerateScene]), the shadows' recipes and reduced planes
// ([DropShadowFor], [BlurShadow], [FloatingShadowPlane]) and the shading
// tables ([CompositeTables]). The CPU engine's output does not change
// with this split (TestCPUGolden pins it by hash).
//
// # Pipeline
//
//  1. Analysis image: the input is box-averaged by an integer factor to at
//     most 1.5 MP (0.5 MP in portrait mode) and converted to linear light
//     and CIE L*a*b*. Options.Preprocess applies a 3×3 median to it first
//     (denoising; the API documentation does not specify preprocessing, this is the
//     mock's choice).
//  2. Coarse mask at analysis resolution (per mode, below).
//  3. Refinement at full resolution, only in an unknown band around the
//     coarse boundary (half-width max(2, 2·factor) pixels): every band
//     pixel I is unmixed against local foreground and background colours F
//     and B — distance-weighted means of confident pixels just outside the
//     band — by solving I ≈ αF + (1-α)kB in least squares for α in [0,1]
//     and a background shade k in [0.6, 1] (with a ridge towards k = 1):
//     the background right at a subject's base is often darker than a few
//     pixels away (contact shadow). The estimate is trusted in proportion
//     to how well F and kB are separated relative to their local variance
//     and to how close I lies to the mixing line; otherwise the coarse label
//     stays. Pixels outside the band keep the coarse label, so the
//     refinement only reshapes the boundary.
//  4. Options.SpillReduction (the documented "postprocessing") decontaminates
//     edge colours by solving I = αF + (1-α)B for F with the local B,
//     blending towards the local F where α is small, and returns them in
//     [Matte.Foreground]; opaque pixels are unchanged.
//
// # General mode
//
// The background is modelled as a quadratic surface per linear-light
// channel (flat backdrops, linear gradients, vignettes, spotlights to first
// order), fitted by iteratively reweighted least squares with Tukey weights
// on the L*a*b* residual: first on a band along the frame, then on a grid
// over the whole frame starting from the border fit, where the subject is an
// outlier too. Each pixel's distance to the model allows for cast shadows: a
// shadow scales linear light by k, which scales the vector (L*+16, a*, b*)
// by k^(1/3), so the distance is min over s in [0.585, 1] of |P - s·Pb| —
// small for the backdrop's chromaticity at lower luminance (down to
// k ≈ 0.2), large for other colours and for dark subjects. The foreground
// threshold t follows the noise of the background residuals (6–20 ΔE).
//
// The thresholded mask is cleaned up: components must reach 2t and be at
// least 2 % of the largest (and 0.05 % of the frame); background runs
// between two parts of the same component are filled along rows and
// columns when at most 1/25 of the short side and 30 % of the component's
// extent, and along rows when up to twice that and 45 % of the extent if
// they form a tall channel of nearly constant width — specular highlight
// stripes of glossy products often match a light backdrop; enclosed holes
// up to half the subject's area are filled (labels and highlights; a
// genuine see-through opening such as a mug handle is filled too — a
// documented limitation). Then the background is grown from the frame by a
// flood through pixels within 2t of the model reached by smooth colour
// changes only (a subject is bounded by an edge; a backdrop the model
// misses is not), sparing the filled pixels. Two more rounds re-estimate
// the background as a clean plate — the mean of confident, unshadowed
// background pixels on a coarse grid, blurred, with the area behind the
// subject filled push-pull from coarser levels — and classify again.
//
// Shadows on the floor are background (alpha 0), as the documented product
// results are. A subject whose own colour is the backdrop's colour in shade
// (a dark grey product on a mid grey sweep, the dark side of a grey object)
// can be mistaken for shadow: colour alone cannot separate them. Likewise a
// highlight that matches the backdrop and runs along the silhouette, or a
// subject colour within the noise threshold of the backdrop, is lost.
//
// # Portrait mode
//
// Options.Faces (analysis coordinates after scaling) seed a head-and-
// shoulders template per face: certain subject (inner face, neck, chest
// below the chin), certain surroundings (above the hair, beside the head,
// wide of the shoulders, the top and side edges outside the template), a
// soft prior from the distance to a generous silhouette, and a boost where
// hair is expected. Colour models are 32³-bin sRGB histograms, smoothed;
// four rounds of a simplified GrabCut alternate between learning them from
// the current segmentation (eroded) and a Boykov–Kolmogorov minimum cut on
// the 4-connected grid with contrast-sensitive smoothness. The component
// connected to a face or chest is kept and its holes filled. Without face
// boxes, portrait mode falls back to the general border model with the
// bottom edge excluded (a person is usually cut by it); quality is then
// much lower on textured backgrounds.
//
// # Compositing and shadows
//
// [Composite] blends αF + (1-α)B in 8-bit sRGB. Transparent output carries
// the matte (times the input's own alpha) with zero colour where fully
// transparent. Colour output ignores the colour's alpha. An uploaded image
// is flattened onto white where not opaque, scaled to cover the frame
// (aspect kept, centred crop) with a Catmull-Rom filter widened for
// downscaling, in parallel. Shadows are drawn for Color and Image only (the
// documentation: "available with the image and solid color modes") and only
// darken the background (in linear light), never the subject:
//
//   - soft: the matte offset by (1.2 %, 2 %) of the long side, box-blurred
//     (three passes, radius 1.5 % of the long side) at ≤1024 px, 45 %
//     opacity;
//   - hard: the matte offset by (1 %, 1.6 %), unblurred, 55 % opacity;
//   - floating: a blurred ellipse (42 % × 7 % of the subject's width)
//     centred under the subject's alpha-weighted centre, below a gap of 8 %
//     of its height, 40 % opacity; the frame is not extended, so a subject
//     that reaches the bottom edge shows no floating shadow.
//
// # Generated backgrounds
//
// [Generate] is a deterministic procedural STAND-IN for a generative model,
// not an image generator: the normalised prompt (whitespace-collapsed,
// lower-cased) is hashed (FNV-1a) to a seed. The first keyword found picks a
// theme — sunset/sunrise/dusk/golden hour; beach/ocean/sea/coast/tropical;
// desert/dune/sand; snow/winter/ice; forest/jungle/garden/park/nature/
// leaves/grass; city/urban/street/lights; office/room/interior/living/
// kitchen/cafe; sky/cloud(s)/heaven; studio/backdrop/grey/gray; black/dark/
// night; white/clean/minimal/bright — then a colour word (red, orange,
// yellow, green, blue, purple, pink, brown, beige, teal) tints a gradient;
// any other prompt gets two harmonious hues from the hash. Layouts are
// gradients, clouds, horizon bands, a studio falloff or soft bokeh discs,
// modulated by soft fractal noise positioned by the seed, so different
// prompts of one theme differ. Coordinates are normalised (the look does not
// depend on the size); it is rendered at ≤512 px, enlarged bilinearly and
// dithered.
//
// # Limits
//
// Results larger than [MaxOutputLongSide] (5000 px) on the long side or
// [MaxOutputPixels] (14 MP, the hosted API's "about 14 megapixels") in
// area are to be scaled down ([FitOutput] computes the size, [FitLongSide]
// for the long side alone; the caller resizes). The
// input's own alpha channel is ignored by the analysis and multiplied into
// the result by Composite. Speed: about 0.25 s for a 12 MP product shot on
// two cores (BenchmarkRemoveBackground12MP); portrait mode is of the same
// order.
//
// # Quality
//
// Measured on the synthetic sets of package synth at 640×480 (exact ground
// truth; IoU at alpha 128): products IoU ≥ 0.97 and mean absolute alpha
// error ≤ 0.02 per image, portraits (with the synthetic face box) IoU ≥
// 0.90 and MAE ≤ 0.05 per image, asserted on fixed seeds in the tests.
package matting
