// Package imageio reads and writes the mock engine's images: JPEG and PNG
// decoding with size limits and EXIF orientation, metadata kept as raw
// bytes, encoding with the metadata re-inserted, EXIF thumbnail
// regeneration, and MP4/MOV sniffing.
//
// # Decoding
//
// Decode accepts JPEG and PNG only (the hosted API documentation: "JPEG and
// PNG, RGB or RGBA"). Choices where the API documentation is silent (mock):
//
//   - Greyscale (JPEG, PNG, with or without alpha) and palette PNGs are
//     accepted and converted to RGB(A); 16-bit PNGs are accepted and reduced
//     to 8 bits (high byte, as image/color does).
//   - CMYK/YCCK JPEGs are rejected (ReasonColorModel); nothing converts
//     them. JPEG variants image/jpeg cannot read (arithmetic coding,
//     lossless, 12-bit) are rejected as ReasonFormat. Anything that is not a
//     JPEG or PNG at all (GIF, WebP, TIFF, HEIF, video, text, empty) is
//     rejected as ReasonFormat.
//   - A file that starts as a JPEG or PNG but is truncated or damaged
//     (headers included) is not a rejection: the error wraps ErrCorrupt and
//     the job should FAIL.
//   - Progressive JPEGs are read; APNGs give their default image only. ICC
//     profiles are kept but not applied: pixels are used as stored. PNG
//     gAMA, cHRM, sRGB and pHYs chunks are not kept.
//
// The whole input is read into memory once; the metadata walk, the header
// and the pixel decoder work on that copy, and the Limits are checked from
// the header before any pixel memory is allocated. Callers bound the input
// size. Pixels come back as *image.NRGBA at origin (0,0), converted with
// direct loops split over the cores (YCbCr uses color.YCbCrToRGB's exact
// arithmetic, nearest chroma), and turned upright according to the EXIF
// Orientation tag (all eight values, both TIFF byte orders; PNG eXIf too).
//
// # Limits
//
// HostedLimits is the hosted API's documented rule for correction: both sides
// larger than 32 px, long side at most 100,000 px, aspect ratio below 21:1,
// below 200 megapixels (with the last two in force the 100,000 px rule can
// never be the deciding one). ContainerLimits is the correction container's:
// a short side under 32 px is rejected; "beautify is not applied above 21:1"
// is the orchestrator's decision, not a rejection; the mock adds a
// 200-megapixel memory guard. A zero Limits field disables that check.
//
// # Memory
//
// ReadHeader tells, without decoding, what Decode will hold: the file's
// copy, the decoder's image in its colour model and bit depth (a 1-bit
// grey PNG decodes to 1 byte a pixel, a 16-bit one to 2 or 8), a
// progressive JPEG's coefficients, an interlaced PNG's passes, the NRGBA
// (an opaque RGBA from the decoder serves as it), an EXIF rotation's copy.
// Header.PeakBytes adds what a pipeline holds beside the image (Work,
// measured per backend: CorrectionWork here, background removal's in the
// service), and Header.MemoryCost counts it in bytes against a memory
// budget. TestPeakBytesBoundsDecode checks the decoding
// part against the heap measured with runtime.MemStats.
//
// # Metadata
//
// Metadata keeps, as raw bytes: EXIF (the TIFF payload), XMP (and JPEG
// extended XMP), the ICC profile (reassembled from ordered or unordered JPEG
// APP2 chunks; a profile with missing or duplicate chunks is dropped) and
// JPEG APP13 (IPTC); from PNG also the tEXt/zTXt/iTXt chunks. Items above 16
// MiB, or beyond 32 MiB in total, are dropped, as are PNG chunks with a bad
// CRC.
//
// # Encoding
//
// Encode writes upright pixels, so it always rewrites the EXIF Orientation
// to 1 and updates PixelXDimension/PixelYDimension to the output size where
// they exist; everything else in the EXIF is copied unchanged. Malformed
// EXIF (bad header or IFD0) is dropped rather than copied.
//
// JPEG output is baseline 4:2:0 from image/jpeg, quality 1-100 (0 = 90;
// the APIs allow 40-100). Tall images are encoded as strips of about half a
// megapixel in parallel and joined with restart markers; the quantised
// coefficients equal a single-stream encode's, so the decoded pixels are
// identical, and the strip height depends only on the width, so the bytes
// do not depend on the number of cores. Transparency is flattened onto
// white (callers wanting another background flatten first). After SOI come
// APP1 Exif (or a JFIF APP0 when there is no EXIF), APP1 XMP, APP1 extended
// XMP, APP2 ICC in 65519-byte chunks, APP13. EXIF or an XMP packet larger
// than one segment (possible from a PNG source) is left out; extended XMP
// is copied verbatim, not re-split.
//
// PNG output is 8-bit RGB when every pixel is opaque, otherwise RGBA, with
// iCCP (profile name "ICC"), eXIf, the XMP iTXt and the kept text chunks
// before IDAT. Rows use the usual minimum-sum-of-absolute-differences
// filter choice; deflate runs at level 1 (BestSpeed) in independent 1 MiB
// parts primed with the previous part's tail, compressed in parallel and
// concatenated into one zlib stream: about 4x less CPU than level 6 for
// files about 20% larger, a fair trade for a mock. IPTC and extended XMP
// are not written to PNG; PNG text chunks are not written to JPEG.
//
// # Thumbnails
//
// With UpdateThumbnail, an EXIF block that has an IFD1 JPEG thumbnail gets
// a new one rendered from the output pixels: at most 160 px on the long
// side, JPEG quality 80. The new bytes replace the old where they end the
// payload or fit in their place, otherwise they are appended; nothing else
// moves, so all other offsets stay valid. If the block would no longer fit
// one JPEG APP1 segment, smaller and lower-quality thumbnails are tried
// (down to 96 px, quality 40) and as a last resort IFD1 is unlinked, so a
// stale thumbnail never survives an update request. EXIF without a
// thumbnail gets none added.
//
// # Video
//
// SniffVideo recognises MP4 and QuickTime MOV by their first box (see its
// documentation for the brands); HEIF/AVIF still images and M4A audio, which
// share the container, are not video.
package imageio
