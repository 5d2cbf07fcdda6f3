// Package faces is the mock engine's face stage: face and pupil detection,
// glasses-glare removal, red-eye detection and portrait auto-crop. It works
// on *image.NRGBA (any bounds; results are in the image's coordinates) and is
// deterministic: the same pixels give the same faces, crop and inpainted
// bytes whatever GOMAXPROCS is. None of this is shown in the API
// documentation; every number below is this mock's own choice.
//
// # Detection
//
// Faces come from pigo v1.4.6's "facefinder" cascade and pupils from its
// "puploc" cascade; both files are embedded from cascade/ (MIT, see
// cascade/NOTICE) and parsed once per process. Detect
//
//   - converts the image to BT.601 luma (alpha ignored) and, when its long
//     side exceeds 1024 px, area-averages it down to 1024 px on the long side;
//   - scans upright windows from 32 px (about 3 % of a 1024 px image; smaller
//     windows tripled the cost) to the short side with pigo's RunCascade
//     (shift 0.1 of the window, scale step 1.1), one scale per task across
//     GOMAXPROCS workers, concatenated in scale order, which is exactly what
//     one RunCascade call over the whole range returns;
//   - merges windows with pigo's ClusterDetections at IoU 0.2 and keeps
//     clusters whose summed score Q is at least 10 (over scikit-image 0.19's
//     sample images the strongest non-face cluster scored 4.5, the
//     astronaut's face 59 to 68 depending on its encoding);
//   - maps each square window back to source pixels and clips it to the image
//     (Face.Box);
//   - locates each pupil with puploc from pigo's priors (0.075 window sizes
//     above the centre, 0.175 left / 0.185 right of it, search window a
//     quarter of the face). pigo's RunDetector perturbs the start with the
//     global math/rand source and is not reproducible, so the same tree walk
//     is re-implemented here with a fixed table of 63 perturbations drawn
//     once from a seeded generator, taking the median. A pupil that lands more
//     than 0.15 face sizes from its prior falls back to the prior; eyes are
//     finally clamped into Box, so both always lie inside it.
//
// Faces are sorted by box area (largest first), then top, then left.
//
// Face fields:
//
//   - Confidence = round(100·Q/(Q+40)), Q being pigo's clustered score:
//     0 for Q=0, 50 for Q=40, 63 for the astronaut photo, → 100 as Q grows.
//     Kept faces (Q ≥ 10) have Confidence ≥ 20.
//   - Angle is the roll in whole degrees: the angle of the line from LeftEye
//     to RightEye against the horizontal, positive when the right-hand eye is
//     lower (head tilted clockwise as seen in the image). Detection scans
//     upright windows only, so strongly tilted faces are not found.
//   - YawAngle is a coarse head-turn estimate: with the head modelled as a
//     cylinder of radius half the box width, yaw = asin(offset/radius) where
//     offset is the eye midpoint's horizontal distance from the box centre;
//     positive when the eyes are shifted towards the image's right. The
//     frontal astronaut photo gives 3.
//   - Blink and Smile are not estimated and are always 0.
//   - LeftEye is the pupil with the smaller X (the subject's right eye),
//     RightEye the other. Points are continuous pixel coordinates: the centre
//     of pixel (i, j) is (i+0.5, j+0.5).
//
// # Glasses glare (RemoveGlare)
//
// For each face, with d the eye distance (at least a quarter of the box),
// the eye region spans 0.6·d beyond each eye horizontally and 0.45·d above
// and below the eye line. A pixel is a glare candidate when its luma is
// ≥ 240 (lens reflections clip; a lit sclera stays below),
// max(R,G,B)−min(R,G,B) ≤ 28 (near-white, grey) and its luma is at least 40
// above the region's median luma. Candidates form 8-connected blobs; a blob
// counts as glare when it has at least max(4, 0.005·d²) pixels (pupil
// catch-lights are smaller), at most a quarter of the region, does not touch
// the region's border (that would be bright background or over-exposed skin)
// and is on average at least 60 luma brighter than the non-candidate pixels
// within 0.08·d of its bounding box (lens reflections are hard-edged; skin
// sheen fades out). Each glare blob is grown by max(1, 0.03·d) pixels to
// cover its halo and inpainted: a fill from the boundary inwards (each layer
// takes the mean of its known 8-neighbours) followed by 30 synchronous
// 8-neighbour smoothing passes, on RGB only (alpha kept). RemoveGlare returns
// true only when some blob was found and pixels changed; otherwise the image
// is untouched. The hosted usage counters (removeGlaresCount) follow this
// result.
//
// # Red eye (RedEye)
//
// "detected" when, for any face, at least 30 % of the pixels in a disk of
// radius 0.07·d (at least 1.5 px) around either pupil are red-dominant
// (R ≥ 100, R ≥ 2·G, R ≥ 2·B); "none" otherwise, including without faces.
// Nothing is corrected.
//
// # Auto-crop (ParseCropParams, AutoCrop)
//
// The API documentation passes autocropSize, autocropX, autocropY, cropARW,
// cropARH and autocropTopHeadGap as strings "copied from the desktop editor"
// without giving their meaning or a range. This mock defines them as
// fractions of the crop and refuses only what has no meaning (not a number, a
// size or side of zero or less, a position outside the crop); the crop is
// always clamped to the image:
//
//   - autocropSize (Size, default 0.5, any value > 0): head height (crown to
//     chin) divided by crop height. Smaller values give a wider, looser
//     crop; above 1 the crop is tighter than the head.
//   - autocropX (X, default 0.5, range [0, 1]): horizontal position of the
//     head centre (the eye midpoint) as a fraction of the crop width from its
//     left edge.
//   - autocropY (Y, default 0.4, range [0, 1]): vertical position of the eye
//     line as a fraction of the crop height from its top edge.
//   - cropARW:cropARH (default 3:4, each > 0): crop width to height.
//   - autocropTopHeadGap (TopHeadGap, default off): when > 0 the
//     top of the head is placed this fraction of the crop height below the
//     crop's top edge, and Y is ignored; zero or negative disables it, as the
//     documentation says.
//
// Strings: empty means default; a decimal number ("0.45", "2e-1"), a decimal
// comma when there is no point ("0,45"), or, except for the aspect parts, a
// percentage ("45%" = 0.45). Anything else, or a value out of range, is a
// *CropParamError naming the parameter by its wire name (errors.Is
// ErrInvalidCropParam).
//
// The head is modelled from the face box (size s = the larger box side):
// height 1.5·s, top 0.4·s above the box, horizontal centre and eye line from
// the eye midpoint (calibrated on the astronaut photo, rounded towards an
// average head since her hair sits high). The crop height is
// head height / Size and the width follows the aspect ratio. A crop larger
// than the image is shrunk, keeping its aspect, to the largest that fits (the
// head then fills more than Size); a crop that would cross an image edge is
// shifted inside (the head then sits off X/Y). Sizes are whole pixels: the
// aspect is exact (ARW:ARH reduced to integers p:q, crop p·k × q·k) when q is
// at most max(10, crop height/20) and p×q fits the image, otherwise each side
// is rounded separately.
//
// Auto-crop is meant for single-person portraits: no face gives ErrNoFace;
// with several faces the largest is used if its box area is at least twice
// the next one's (a portrait with small faces in the background), otherwise
// ErrMultipleFaces. A non-positive image size gives ErrInvalidImageSize.
package faces
