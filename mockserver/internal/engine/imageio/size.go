package imageio

import (
	"bufio"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
)

// Header is what a JPEG or PNG file's header tells before it is decoded:
// what admitting a job against a pixel budget needs.
type Header struct {
	Format        Format
	Width, Height int
	ColorModel    color.Model
	// Wide is set for the variants whose decoding holds about twice the
	// memory a pixel of the common ones: a PNG of 16 bits a sample (decoded
	// at 8 bytes a pixel, then converted) and a progressive JPEG (whose
	// coefficients are all kept until the last scan).
	Wide bool
}

// Cost is what the image counts against a pixel budget: its pixels,
// twice over when Wide.
func (h Header) Cost() int64 {
	c := int64(h.Width) * int64(h.Height)
	if h.Wide {
		c *= 2
	}
	return c
}

// ReadHeader reads the header of the JPEG or PNG at the start of r. ok is
// false when r holds neither; err is the header decoder's (a truncated or
// damaged header).
func ReadHeader(r io.ReadSeeker) (h Header, ok bool, err error) {
	head := make([]byte, sniffLen)
	n, _ := io.ReadFull(r, head)
	h.Format, ok = Sniff(head[:n])
	if !ok {
		return Header{}, false, nil
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return h, true, err
	}
	var cfg image.Config
	if h.Format == FormatJPEG {
		cfg, err = jpeg.DecodeConfig(bufio.NewReader(r))
	} else {
		cfg, err = png.DecodeConfig(bufio.NewReader(r))
	}
	if err != nil {
		return h, true, err
	}
	h.Width, h.Height, h.ColorModel = cfg.Width, cfg.Height, cfg.ColorModel
	switch {
	case h.Format == FormatPNG:
		h.Wide = cfg.ColorModel == color.RGBA64Model || cfg.ColorModel == color.NRGBA64Model ||
			cfg.ColorModel == color.Gray16Model
	default:
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return h, true, err
		}
		h.Wide = jpegFrameMarker(bufio.NewReader(r)) == markerSOF2
	}
	return h, true, nil
}

// markerSOF2 starts the frame header of a progressive JPEG.
const markerSOF2 = 0xc2

// jpegFrameMarker returns the marker of the JPEG's frame header (SOF0
// baseline, SOF1 extended, SOF2 progressive...), walking the segments
// before it as Go's decoder does (see nextMarker); 0 when the walk fails
// (the decoder has already read the header, so that does not happen for a
// file it accepted).
func jpegFrameMarker(br *bufio.Reader) byte {
	if _, err := br.Discard(2); err != nil { // SOI
		return 0
	}
	for {
		marker, ok := nextMarkerIn(br)
		switch {
		case !ok || marker == markerEOI:
			return 0
		case marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc:
			return marker // not DHT, JPG or DAC: a frame header
		case marker >= markerRST0 && marker <= markerRST0+7:
			continue // no length
		}
		var size [2]byte
		if _, err := io.ReadFull(br, size[:]); err != nil {
			return 0
		}
		n := int(binary.BigEndian.Uint16(size[:]))
		if n < 2 {
			return 0
		}
		if _, err := br.Discard(n - 2); err != nil {
			return 0
		}
	}
}

// nextMarkerIn is nextMarker on a reader.
func nextMarkerIn(br *bufio.Reader) (byte, bool) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, false
		}
		if b != 0xff {
			continue
		}
		marker, err := br.ReadByte()
		for err == nil && marker == 0xff {
			marker, err = br.ReadByte()
		}
		switch {
		case err != nil:
			return 0, false
		case marker != 0x00:
			return marker, true
		}
	}
}

// FileHeader is ReadHeader of the file at path; ok is false when it cannot
// be read or is no JPEG or PNG with a readable header.
func FileHeader(path string) (Header, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, false
	}
	defer f.Close()
	h, ok, err := ReadHeader(f)
	return h, ok && err == nil
}
