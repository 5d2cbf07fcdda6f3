package imageio

import (
	"errors"
	"fmt"
	"image"
	"io"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/resize"
)

// DefaultQuality is the JPEG quality used when EncodeOptions.Quality is 0.
const DefaultQuality = 90

// ThumbnailSize is the long side of a regenerated EXIF thumbnail, in
// pixels (the customary 160x120 box).
const ThumbnailSize = 160

// EncodeOptions control Encode.
type EncodeOptions struct {
	// Format is FormatJPEG or FormatPNG.
	Format Format
	// Quality is the JPEG quality 1..100 (the APIs allow 40..100); 0 means
	// DefaultQuality, values above 100 mean 100. Ignored for PNG.
	Quality int
	// Meta is the metadata to embed; nil strips everything.
	Meta *Metadata
	// UpdateThumbnail regenerates the EXIF IFD1 JPEG thumbnail from the
	// output pixels when Meta.EXIF has one. EXIF without a thumbnail gets
	// none added.
	UpdateThumbnail bool
}

// Encode writes img in o.Format with o.Meta embedded. The pixels must be
// upright: the EXIF Orientation tag is always rewritten to 1 (Decode
// applies it) and PixelXDimension/PixelYDimension are set to the output
// size where the EXIF has them.
//
// JPEG output is baseline 4:2:0 (image/jpeg) and opaque: transparency, if
// any, is flattened onto white here, so callers wanting another background
// flatten first. Metadata segments follow SOI in the order APP1 Exif (or a
// JFIF APP0 when there is no EXIF), APP1 XMP, APP1 extended XMP, APP2 ICC
// (split into 65519-byte chunks), APP13. EXIF that no longer fits one APP1
// segment after a thumbnail update loses the new thumbnail (a smaller one
// is tried first; finally IFD1 is unlinked); EXIF or XMP that cannot fit
// one segment at all is left out, as is malformed EXIF.
//
// PNG output is 8-bit RGB when every pixel is opaque, RGBA otherwise, with
// iCCP, eXIf, the XMP iTXt and the kept text chunks before IDAT; IPTC and
// extended XMP are not written to PNG, and PNG text chunks are not written
// to JPEG.
func Encode(w io.Writer, img *image.NRGBA, o EncodeOptions) error {
	if img == nil || img.Rect.Empty() {
		return errors.New("imageio: encode: empty image")
	}
	width, height := img.Rect.Dx(), img.Rect.Dy()
	switch o.Format {
	case FormatJPEG:
		if width > 0xffff || height > 0xffff {
			return fmt.Errorf("imageio: encode %dx%d: %w", width, height, ErrJPEGTooLarge)
		}
		q := o.Quality
		switch {
		case q <= 0:
			q = DefaultQuality
		case q > 100:
			q = 100
		}
		body, err := encodeJPEGPixels(opaqueRGBA(img), q)
		if err != nil {
			return fmt.Errorf("imageio: encode jpeg: %w", err)
		}
		segs := jpegMetaSegments(outputEXIF(img, o, maxSegmentPayload-len(exifHeader)), o.Meta)
		if _, err := w.Write([]byte{0xff, markerSOI}); err != nil {
			return fmt.Errorf("imageio: write: %w", err)
		}
		if _, err := w.Write(segs); err != nil {
			return fmt.Errorf("imageio: write: %w", err)
		}
		if _, err := w.Write(body); err != nil {
			return fmt.Errorf("imageio: write: %w", err)
		}
		return nil
	case FormatPNG:
		chunks := pngMetaChunks(outputEXIF(img, o, 1<<30), o.Meta)
		if err := encodePNG(w, img, chunks); err != nil {
			return fmt.Errorf("imageio: write: %w", err)
		}
		return nil
	}
	return fmt.Errorf("imageio: encode: unknown format %q", o.Format)
}

// thumbnailTries are the (long side, quality) pairs tried, in order, until
// the EXIF block fits its segment.
var thumbnailTries = [][2]int{{ThumbnailSize, 80}, {ThumbnailSize, 60}, {120, 50}, {96, 40}}

// outputEXIF returns the EXIF payload to write for img, at most maxLen
// bytes, or nil.
func outputEXIF(img *image.NRGBA, o EncodeOptions, maxLen int) []byte {
	if o.Meta == nil || o.Meta.EXIF == nil {
		return nil
	}
	u := exifUpdate{width: img.Rect.Dx(), height: img.Rect.Dy()}
	if o.UpdateThumbnail && EXIFThumbnail(o.Meta.EXIF) != nil {
		var small *image.NRGBA
		for _, try := range thumbnailTries {
			if small == nil || max(small.Rect.Dx(), small.Rect.Dy()) != min(try[0], max(img.Rect.Dx(), img.Rect.Dy())) {
				small = thumbnailPixels(img, try[0])
			}
			body, err := encodeJPEGPixels(opaqueRGBA(small), try[1])
			if err != nil {
				break
			}
			u.thumbnail = append([]byte{0xff, markerSOI}, body...)
			if e := rewriteEXIF(o.Meta.EXIF, u); e != nil && len(e) <= maxLen {
				return e
			}
		}
		u.thumbnail = nil
		e := rewriteEXIF(o.Meta.EXIF, u)
		if e == nil || len(e) > maxLen {
			return nil
		}
		// A stale thumbnail must not survive an update request: unlink it.
		return dropThumbnail(e)
	}
	e := rewriteEXIF(o.Meta.EXIF, u)
	if len(e) > maxLen {
		return nil
	}
	return e
}

// thumbnailPixels scales img to fit a long x long box (never up). The
// triangle filter is plenty for a 160 px preview and a third of the cost of
// Lanczos3 at these factors.
func thumbnailPixels(img *image.NRGBA, long int) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	tw, th := long, long
	if w >= h {
		th = max(1, (h*long+w/2)/w)
	} else {
		tw = max(1, (w*long+h/2)/h)
	}
	if tw > w || th > h {
		tw, th = w, h
	}
	return resize.Resize(img, tw, th, resize.Linear)
}

// opaqueRGBA returns img as an *image.RGBA for image/jpeg's fast path:
// the same memory when img is opaque (NRGBA and RGBA agree at alpha 255),
// otherwise a copy flattened onto white.
func opaqueRGBA(img *image.NRGBA) *image.RGBA {
	if isOpaque(img) {
		return &image.RGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	parallel.Rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			s := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y):][:4*w]
			d := out.Pix[y*out.Stride:][:4*w]
			for i := 0; i < 4*w; i += 4 {
				a := uint32(s[i+3])
				bg := 255 * (255 - a)
				d[i] = uint8((uint32(s[i])*a + bg + 127) / 255)
				d[i+1] = uint8((uint32(s[i+1])*a + bg + 127) / 255)
				d[i+2] = uint8((uint32(s[i+2])*a + bg + 127) / 255)
				d[i+3] = 255
			}
		}
	})
	return out
}

// isOpaque reports whether every pixel of m has alpha 255.
func isOpaque(m *image.NRGBA) bool {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	for y := 0; y < h; y++ {
		row := m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y+y):][:4*w]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 255 {
				return false
			}
		}
	}
	return true
}
