package imageio

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
)

// Image is a decoded input: upright pixels plus what the file said.
type Image struct {
	// Pix holds the pixels, upright (EXIF orientation applied), origin (0,0).
	Pix *image.NRGBA
	// Format is the source format.
	Format Format
	// Meta is the source metadata (see Metadata for what is kept).
	Meta Metadata
	// Orientation is the EXIF orientation as found (1..8; 1 when absent).
	Orientation int
	// OriginalWidth and OriginalHeight are the stored size, before the
	// orientation was applied.
	OriginalWidth, OriginalHeight int
	// Size is the number of bytes read from the input.
	Size int64
}

// Decode reads a JPEG or PNG, checks it against lim and returns its pixels
// upright as NRGBA with its metadata.
//
// Errors: a *RejectError (errors.Is ErrRejected) when the input is not a
// JPEG or PNG, is a variant the decoder cannot read, has a CMYK colour
// model, or breaks lim; an error wrapping ErrCorrupt when it starts as a
// JPEG or PNG but is truncated or damaged; read errors of r as they are.
//
// The input is read into memory once; the metadata walk, the header
// (DecodeConfig) and the pixel decoder all work on that copy. The limits are
// checked from the header before any pixel memory is allocated. Callers
// should bound r (http.MaxBytesReader) since the whole file is held.
func Decode(r io.Reader, lim Limits) (*Image, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("imageio: read: %w", err)
	}
	format, ok := Sniff(head)
	if !ok {
		return nil, reject(ReasonFormat, "%s", describeUnknown(head))
	}
	var buf bytes.Buffer
	buf.Write(head)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("imageio: read: %w", err)
	}
	return decodeBytes(buf.Bytes(), format, lim)
}

func decodeBytes(data []byte, format Format, lim Limits) (*Image, error) {
	img := &Image{Format: format, Size: int64(len(data)), Orientation: 1}
	// The header and the limits come first: the metadata walk inflates
	// compressed chunks and the scan count walks the whole file, work a
	// rejected image should not cost.
	var cfg image.Config
	var err error
	switch format {
	case FormatJPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	default:
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	}
	if err != nil {
		return nil, headerError(format, err)
	}
	if cfg.ColorModel == color.CMYKModel {
		return nil, reject(ReasonColorModel, "CMYK JPEG is not supported (RGB or RGBA only)")
	}
	if err := lim.Check(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	img.OriginalWidth, img.OriginalHeight = cfg.Width, cfg.Height
	switch format {
	case FormatJPEG:
		if n := jpegScans(data, MaxJPEGScans); n > MaxJPEGScans {
			return nil, reject(ReasonFormat, "JPEG with more than %d scans is not supported", MaxJPEGScans)
		}
		img.Meta = readJPEGMeta(data)
	default:
		img.Meta = readPNGMeta(data)
	}

	var m image.Image
	switch format {
	case FormatJPEG:
		m, err = jpeg.Decode(bytes.NewReader(data))
	default:
		m, err = png.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, corrupt(string(format), err)
	}
	if b := m.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, corrupt(string(format), fmt.Errorf("size %v differs from the header's %dx%d", b, cfg.Width, cfg.Height))
	}
	if _, ok := m.(*image.CMYK); ok {
		return nil, reject(ReasonColorModel, "CMYK JPEG is not supported (RGB or RGBA only)")
	}
	pix := toNRGBA(m)
	if img.Meta.EXIF != nil {
		img.Orientation = EXIFOrientation(img.Meta.EXIF)
	}
	img.Pix = Orient(pix, img.Orientation)
	return img, nil
}

// headerError classifies an error of DecodeConfig: an unsupported variant
// is a rejection, anything else (truncation, damage) is corruption.
func headerError(format Format, err error) error {
	var je jpeg.UnsupportedError
	var pe png.UnsupportedError
	if errors.As(err, &je) || errors.As(err, &pe) {
		return reject(ReasonFormat, "unsupported %s variant: %v", format, err)
	}
	return corrupt(string(format)+" header", err)
}
