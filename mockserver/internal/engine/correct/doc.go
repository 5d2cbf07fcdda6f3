// Package correct is the automatic colour correction of the mock servers'
// reference engine: colour-cast removal, levels stretch, exposure, contrast
// and vibrance; the built-in AI preset groups and the mock's preset file
// format; scene detection; and the non-photo (skip), noise checks that
// detectionData reports.
//
// Everything works on *image.NRGBA (8-bit, non-premultiplied), in place,
// reading Pix directly and using one goroutine per core for the passes over
// all pixels. Results are byte-identical whatever GOMAXPROCS is: per-band
// statistics are integer sums, and the per-pixel arithmetic is integer. The
// tone tables are computed in float64 once per image, so results are
// byte-identical run to run on one architecture; another architecture's
// math library could, in rare table entries, round one level differently.
//
// # Use
//
// The orchestrator resolves the preset parameter to a Group (Builtin for
// the built-in names, ParsePreset for an uploaded or mounted file), detects
// the scene with DetectScene (giving it the face count from its face
// detector), takes the scene's Params from the group, and calls Apply. Auto
// does those last three steps. For skip=clipart it asks IsClipart, for
// skip=legacy IsLegacySkip (the API documentation: skip is ignored while AI
// preset selection, IsAISelection, is active). EstimateNoise gives
// detectionData.noise.
//
// # Correction (Apply)
//
// One histogram pass gathers per-channel histograms and, for well-exposed
// pixels (no channel ≥ 250, luma ≥ 8), channel sums per luma level. Fully
// transparent pixels are neither measured nor changed; alpha never changes.
// From these statistics Apply builds one table per channel that chains
// steps 1 to 4, then runs one pixel pass: a table lookup per channel, plus
// step 5 when vibrance or saturation is non-zero.
//
//  1. Colour-cast removal. Two illuminant estimates: gray-world (the mean
//     colour of the well-exposed pixels) and white-patch (the mean colour
//     of their brightest 2% by luma). Tint is (max−min)/mean of a colour's
//     channels. White-patch is used when that patch is bright (luma ≥ 0.5)
//     and either nearly neutral (tint ≤ 0.03: the light is white, so a
//     colourful mean is content, not a cast) or tinted like a cast (tint ≤
//     0.40) while the whole image is tinted too (gray-world tint > 0.03 and
//     ≥ a quarter of the patch's): a real cast tints everything, whereas a
//     tinted patch on a neutral image is a coloured object such as sky.
//     Otherwise gray-world is used: no bright highlights, strongly coloured
//     highlights (sunset skies, lamps), or a tinted patch on a neutral
//     image. Gains map the
//     estimate to the grey of equal luma, are raised to the power Cast
//     (partial strength) and limited to [0.6, 1.6]. Fewer than 1% of
//     pixels well exposed: no estimate, no cast removal.
//  2. Levels stretch (Simplest Color Balance). The three post-gain channel
//     histograms are pooled; the ClipLow and ClipHigh percentiles are the
//     black and white points, one pair for all channels so the stretch
//     does not shift hues (cast removal is step 1's job). Points within 3
//     levels of the ends count as already there. Stretch < 1 moves the
//     points only part of the way; the black point never rises above 40,
//     the white point never falls below 150, and the gain never exceeds
//     2.5 (the points widen about their middle). A white point above 255
//     (cast gains pushing highlights out) is always kept, so those
//     highlights are compressed rather than clipped, even without stretch.
//  3. Exposure. When the mean luma after steps 1–2 lies outside
//     [0.40, 0.55], a gamma that would bring it to the nearer edge
//     (limited to [0.6, 1.5]) is raised to the power AutoExposure; the
//     Brightness gamma 2^−Brightness multiplies it.
//  4. Contrast: y = x + Contrast·(smoothstep(x) − x), an S-curve about
//     mid-grey that keeps 0 and 1 fixed (negative values flatten; monotonic
//     over the whole range).
//  5. Vibrance and saturation, on the 12-bit output of the tables: each
//     pixel's channels move away from its Rec. 601 luma by a factor
//     1 + Saturation + Vibrance·(1 − chroma)², chroma being max − min of
//     the pixel (so dull pixels gain most). Any increase is reduced by
//     SkinProtect × the pixel's skin weight (hue 8°–38° and HSV saturation
//     0.18–0.60 at full weight, soft edges, red ≥ 60). Increases are
//     gamut-limited: a channel pushed by d toward a bound with room R moves
//     d while d ≤ R/2 and R − R²/4d beyond, the same scale for all three
//     channels, so the boost never clips and never shifts hue.
//
// Apply with identity Params (IsIdentity) returns at once: preset "none"
// is pixel-identical. Stats report the method, the estimated cast, gains,
// levels, mean luma and gamma.
//
// # Scene categories
//
// The integer is detectionData.scene (hosted) and the scene field of the
// container's correction response. The API documentation does not list its
// categories; this is the mock's table:
//
//	-1  unknown    no rule conclusive
//	 0  portrait   one face; or, without faces, a large skin area in the
//	               centre (≥ 35% of the central 60% × 60%) with at most a
//	               third of that share in the outer frame
//	 1  group      two or more faces
//	 2  landscape  sky-like cells (smooth blue, hue 185°–250°, or bright
//	               overcast) fill ≥ 40% of the top third and ≤ 25% of the
//	               bottom third
//	 3  nature     vegetation greens (hue 65°–170°, saturation ≥ 0.18)
//	               cover ≥ 30% of the image
//	 4  night      mean luma < 0.22 with ≥ 55% of cells below 0.16
//	 5  product    a uniform border ring (outer 6%, mean deviation ≤ 6
//	               levels) around a distinct subject (5%–90% of the
//	               interior differs from it by > 60 summed levels)
//	 6  sunset     ≥ 30% of the top half saturated warm light (hue ≤ 45°,
//	               saturation ≥ 0.55, luma ≥ 0.35), top third ≥ 0.10
//	               brighter than the bottom third
//	 7  highkey    mean luma ≥ 0.70 with ≥ 50% bright low-chroma cells
//	               (snow, beach, high-key studio)
//
// The rules run in this order and the first match wins: faces (1 →
// portrait, ≥ 2 → group), skin portrait, product, night, sunset,
// landscape, nature, high key, else unknown. Faces come from the caller;
// everything else is measured on a copy averaged down to at most 160
// cells on the long side (each cell the mean of 16 source samples), so
// detection costs about the same at any image size.
//
// # Built-in preset groups
//
// Names are case-sensitive, exactly as the API documentation spells them:
// "Universal" (also the empty preset: AI preset selection), "Pro", "School and
// Sports", "Attractions and Cruise Lines", and "none" (identity).
// Universal's table (Cast, ClipLow/ClipHigh %, Stretch, AutoExposure,
// Brightness, Contrast, Vibrance, SkinProtect):
//
//	unknown    1.00  0.10/0.10  1.0  0.6  0     0.15  0.15  0.7
//	portrait   0.70  0.05/0.10  0.8  0.6  0.05  0.08  0.10  1.0
//	group      0.70  0.05/0.10  0.9  0.6  0.05  0.10  0.12  1.0
//	landscape  0.50  0.10/0.05  1.0  0.4  0     0.20  0.30  0.5
//	nature     0.50  0.10/0.05  1.0  0.4  0     0.18  0.25  0.5
//	night      0.40  0.20/0.02  0.6  0.3  0.10  0.05  0.05  0.7
//	product    1.00  0.05/0.50  1.0  0    0     0.12  0.10  0
//	sunset     0.15  0.10/0.05  0.8  0    0     0.15  0.20  0.5
//	highkey    0.80  0.05/0.10  0.8  0    0     0.08  0.10  0.7
//
// Cast strength is lower where gray-world misleads (dominant greens and
// skies, warm light that is the subject, skin); product pushes its
// background to white (ClipHigh 0.5%); night and high key do not pull
// their exposure toward mid-grey. The other groups derive from it, scene
// by scene:
//
//   - Pro (gentle, neutral): contrast ×0.5, vibrance ×0.4, stretch ×0.8,
//     clip percentages ×0.5, auto exposure ×0.6, brightness ×0.5, skin
//     protection 1.
//   - School and Sports (punchy, skin-safe): contrast ×1.7 + 0.02,
//     vibrance ×1.8 + 0.05, saturation +0.05, skin protection 1; on
//     portrait and group brightness +0.05.
//   - Attractions and Cruise Lines (colourful): vibrance ×2 + 0.05,
//     saturation +0.05, contrast ×1.25, brightness +0.05, skin protection
//     ≥ 0.8; on landscape, nature and sunset a further saturation +0.05 and
//     cast strength ×0.8 to keep the ambience.
//
// # Preset files
//
// Uploaded .pcp/.preset files (hosted) and files mounted in /presets
// (container) use the mock's own text format, UTF-8, at most 64 KiB:
//
//	# comments start with # or ; and run to the end of the line
//	group = Pro            # optional base group: a built-in name
//	cast = 0.8             # 0..1
//	clip_low = 0.1         # percent, 0..5
//	clip_high = 0.2        # percent, 0..5
//	stretch = 1            # 0..1
//	auto_exposure = 0.5    # 0..1
//	brightness = 0.05      # -1..1
//	contrast = 0.2         # -1..1
//	vibrance = 0.3         # -1..1
//	saturation = 0         # -1..1
//	skin_protect = 0.8     # 0..1
//	description = free text, ignored (so are name and version)
//
//	[scene 2]              # or [scene landscape]: overrides for one scene
//	vibrance = 0.4
//
// Keys are case-insensitive and '-' equals '_'. Without group, the file
// starts from Universal's unknown-scene parameters and its top-level keys
// apply to every scene (a fixed preset); with group, it starts from that
// group's whole table and top-level keys override the key in every scene.
// [scene N] sections (N from the table, or its name) then override single
// scenes, starting from the top-level result. group is allowed only before
// the first section.
//
// ParsePreset never fails a job over content. Unknown keys, values that
// are not numbers, malformed lines, unknown sections or scenes, and an
// unknown group (Universal is used) produce warnings and are skipped;
// out-of-range values are clamped with a warning. Content that is not this
// format at all — binary data such as a real desktop-app .pcp, invalid
// UTF-8, more than 64 KiB, or text without one recognised setting — gives
// Universal under the file's name with a warning. Only an empty (or
// whitespace-only) file is an error, ErrEmptyPreset.
//
// # Skip modes and noise
//
// IsClipart (skip=clipart) samples at most 256×256 points (no averaging)
// and reports a graphic when the samples hold at most 64 distinct colours,
// or when at least 60% of neighbouring sample pairs are flat (summed
// channel difference ≤ 12), at least 0.5% are hard edges (> 40), at most
// 35% of the non-flat pairs are gentle transitions, and the 32 commonest
// colours (5 bits per channel) cover at least 90% of the samples. Photos
// fail it on their gentle shading and texture; graphics with smooth
// gradients read as photos.
//
// skip=legacy is not defined by the API documentation. The mock reads it as
// the older, broader non-photo rule: IsLegacySkip is IsClipart or monochrome
// (at least 99% of the samples with channel spread ≤ 8 levels), since colour
// correction has nothing to do on a black-and-white image.
//
// EstimateNoise grades NoiseSigma, a robust estimate of the luma noise
// standard deviation (Immerkær's Laplacian-difference mask at full
// resolution on up to 256 rows × 1024 positions, median absolute response
// over the flatter half of the positions): "low" below 2.5 levels,
// "medium" below 6, "high" from 6.
package correct
