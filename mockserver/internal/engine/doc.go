// Package engine is the reference imaging engine behind the mock servers:
// one call, Engine.Process, turns an input image and a job's options into
// the output file and what the job record reports about it (scene, faces,
// counters). The HTTP handlers of the hosted, correction-container and
// background-removal mocks stay thin over it.
//
// The work is done by its subpackages: imageio (decode, metadata,
// orientation, encode), faces (detection, glare, auto-crop), correct
// (colour correction, presets, scenes), resize (size rules, resampling) and
// matting (background removal and compositing). Process runs them in this
// order:
//
//  1. decode and check the limits (a *imageio.RejectError rejects the job);
//  2. detect faces, estimate noise and red eye on the source pixels;
//  3. resolve the preset (AI selection, a built-in group, an uploaded or
//     mounted preset file, or none) and, unless skipped, detect the scene
//     and correct the colours;
//  4. remove glasses glare when asked;
//  5. auto-crop (or only report the rectangle with AutoCropDetectOnly);
//  6. resize by the API's priority rules;
//  7. remove and replace the background, and scale a result whose long side
//     exceeds 5000 px down to it;
//  8. convert the colours to Request.OutputProfile when one is given
//     (package colorspace: RGB matrix/TRC profiles; the source's embedded
//     profile, or sRGB when it has none, is where they come from);
//  9. encode in the requested format, with the source metadata when kept
//     (and the output profile in place of the source's after a conversion).
//
// Skipping: with an explicit preset, skip=clipart (the default) leaves
// clipart-like images uncorrected and skip=legacy the images
// correct.IsLegacySkip flags; with AI preset selection skip is ignored, as
// the API says. A request's BeautifyMaxAspect (the container's 21:1 rule)
// leaves wider images uncorrected with a warning instead of rejecting them.
//
// Auto-crop with no face, or with several faces of similar size, is not an
// error: the image is processed uncropped and the reason is in
// Result.Warnings (the API calls auto-crop "intended for single-person
// portraits" and says nothing of failures).
//
// Colour profiles: without OutputProfile (the hosted API, the background
// removal container, the correction container's outputColorSpace=original)
// pixels are used and written as stored and the source's ICC profile is
// kept with the rest of the metadata, or dropped with it (the hosted API's
// preserveMetadata=false, which the API says can cause problems for
// non-sRGB sources). LUT-based profiles are never applied.
//
// Everything is deterministic: the same input bytes and Request give the
// same output bytes, whatever the number of cores.
package engine
