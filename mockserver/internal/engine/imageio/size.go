package imageio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"strings"
)

// Header is what a JPEG or PNG file's header tells before it is decoded:
// what admitting a job against a memory budget needs. ReadHeader fills it
// from the file's header chunks or segments, without decoding a pixel.
type Header struct {
	Format        Format
	Width, Height int
	ColorModel    color.Model
	// Size is the file's length in bytes (Decode holds a copy of it).
	Size int64
	// Progressive is set for a progressive JPEG (its decoder keeps every
	// coefficient, 4 bytes a sample, until the last scan); Interlaced for an
	// Adam7 PNG (its decoder holds a pass beside the image).
	Progressive, Interlaced bool
	// Alpha is set when the pixels may be transparent (a PNG with an alpha
	// channel, a palette or a tRNS chunk).
	Alpha bool
	// Rotated is set when an EXIF Orientation other than 1 may apply, so
	// that Decode copies the pixels once more to turn them.
	Rotated bool
	// Wide is set for a PNG of 16 bits a sample and a progressive JPEG:
	// what Cost counts twice (the hosted mock's rule; MemoryCost measures
	// every variant in bytes).
	Wide bool

	decoded int64 // bytes Decode holds at its peak, but for the file's copy
	meta    int64 // bytes the metadata may inflate to
}

// Pixels is width × height.
func (h Header) Pixels() int64 { return int64(h.Width) * int64(h.Height) }

// Work is what a pipeline holds while it processes a decoded image, beside
// the image itself (4 bytes a pixel): measured per backend (see the
// package documentation, "Memory"), used by Header.PeakBytes.
type Work struct {
	// PerPixel is the live bytes a pixel of the input the pipeline holds
	// beside the input's own 4.
	PerPixel float64
	// Fixed is the live bytes it holds whatever the image's size, decoding
	// included (buffers, tables, reduced copies).
	Fixed int64
	// Extra is what the request adds in bytes, such as a resized output.
	Extra int64
}

// BudgetPixelBytes is the live heap an ordinary 8-bit image holds a
// pixel at its peak while corrected: about 6 bytes, 9 with the collector's
// headroom. The hosted mock counts an image's pixels (Cost) in memory at
// this rate; the deprecated -pixel-budget flag of pfc-mockserver converts
// its pixels to bytes at it.
const BudgetPixelBytes = 6

// CorrectionWork is the correction engine's Work (decode, faces, noise,
// colour correction, encode): about 1.5 bytes a pixel beside the image and
// 16 MiB whatever the size, measured on 4 to 16 MP images with
// runtime.MemStats (the engine's scene, faces and noise work run on
// reduced copies). A resize adds its output's pixels: ResizeBytes.
var CorrectionWork = Work{PerPixel: 1.5, Fixed: 16 << 20}

// ResizeBytes is what resizing to w×h adds to a pipeline: the output
// image and the pipeline's work on it (what CorrectionWork counts a
// pixel), plus its flattening onto white when a transparent image is
// written as a JPEG.
func ResizeBytes(w, h int, flatten bool) int64 {
	px := int64(max(w, 0)) * int64(max(h, 0))
	b := px * int64(4+CorrectionWork.PerPixel)
	if flatten {
		b += 4 * px
	}
	return b
}

// PeakBytes is the live heap decoding the image and processing it with w
// hold at their peak: the file's copy, the metadata, then the larger of
// what decoding holds (the decoder's own image in its colour model and bit
// depth, a progressive JPEG's coefficients, an interlaced PNG's pass, the
// conversion to NRGBA, the EXIF rotation) and what w holds beside the
// NRGBA image.
func (h Header) PeakBytes(w Work) int64 {
	px := h.Pixels()
	work := 4*px + int64(w.PerPixel*float64(px)) + max(w.Extra, 0)
	return 2*h.Size + h.meta + decoderFixed + max(w.Fixed, 0) + max(h.decoded, work)
}

// decoderFixed is what the decoders hold whatever the size (inflate and
// Huffman state, row buffers, tables): measured at about 70 KB.
const decoderFixed = 1 << 20

// Cost is the image's pixels, twice over when Wide: the hosted mock's
// pixel count. MemoryCost is the byte-based cost of the container mocks.
func (h Header) Cost() int64 {
	c := h.Pixels()
	if h.Wide {
		c *= 2
	}
	return c
}

// MemoryCost is what the image counts against a memory budget processed
// with w, in bytes: PeakBytes. An ordinary 8-bit JPEG corrected at its
// own size costs about BudgetPixelBytes a pixel, a 16-bit PNG about twice
// as much. A Header without pixels costs nothing.
func (h Header) MemoryCost(w Work) int64 {
	if h.Width <= 0 || h.Height <= 0 {
		return 0
	}
	return h.PeakBytes(w)
}

// CheckBudget returns a *RejectError (ReasonMegapixels) when the image's
// MemoryCost under w is above budget bytes: processing it would hold more
// memory than the whole budget. Its detail names raise, what sets the
// budget (an option, a flag), as what to raise. A budget of 0 or less
// checks nothing.
func (h Header) CheckBudget(w Work, budget int64, raise string) error {
	if budget <= 0 || h.MemoryCost(w) <= budget {
		return nil
	}
	if raise == "" {
		raise = "the memory budget"
	}
	return reject(ReasonMegapixels, "%dx%d: decoding and processing this %s would hold about %d MB, more than the memory budget of %d MB; raise %s",
		h.Width, h.Height, h.describe(), ceilMB(h.PeakBytes(w)), ceilMB(budget), raise)
}

// ceilMB is b bytes in megabytes, rounded up (without overflowing near
// MaxInt64).
func ceilMB(b int64) int64 {
	mb := b / 1_000_000
	if b%1_000_000 > 0 {
		mb++
	}
	return mb
}

// describe names the variant for CheckBudget's message.
func (h Header) describe() string {
	switch {
	case h.Format == FormatJPEG && h.Progressive:
		return "progressive JPEG"
	case h.Format == FormatPNG && h.Wide:
		return "16-bit PNG"
	case h.Format == FormatPNG && h.Interlaced:
		return "interlaced PNG"
	}
	return strings.ToUpper(string(h.Format))
}

// ReadHeader reads the header of the JPEG or PNG at the start of r. ok is
// false when r holds neither; err is the header decoder's (a truncated or
// damaged header). Besides the size and colour model, it walks the PNG
// chunks (seeking over their bodies) or the JPEG segments before the first
// scan for what sets the memory decoding takes.
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
	if h.Size, err = r.Seek(0, io.SeekEnd); err != nil {
		return h, true, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return h, true, err
	}
	w := &walker{r: r, br: bufio.NewReader(r)}
	if h.Format == FormatPNG {
		err = h.readPNG(w)
	} else {
		err = h.readJPEG(w)
	}
	return h, true, err
}

// walker reads a file forwards through a buffer, seeking over long skips.
type walker struct {
	r   io.ReadSeeker
	br  *bufio.Reader
	pos int64
}

func (w *walker) read(p []byte) error {
	n, err := io.ReadFull(w.br, p)
	w.pos += int64(n)
	return err
}

func (w *walker) readByte() (byte, error) {
	b, err := w.br.ReadByte()
	if err == nil {
		w.pos++
	}
	return b, err
}

func (w *walker) skip(n int64) error {
	if n <= int64(w.br.Buffered()) {
		_, err := w.br.Discard(int(n))
		w.pos += n
		return err
	}
	w.pos += n
	if _, err := w.r.Seek(w.pos, io.SeekStart); err != nil {
		return err
	}
	w.br.Reset(w.r)
	return nil
}

// maxEXIFRead bounds an EXIF block read for its orientation; a larger one
// is taken as rotating.
const maxEXIFRead = 1 << 20

// exifRotates reports whether the EXIF block of n bytes next in w may turn
// the image; it consumes the block.
func exifRotates(w *walker, n int64) (bool, error) {
	if n > maxEXIFRead {
		return true, w.skip(n)
	}
	b := make([]byte, n)
	if err := w.read(b); err != nil {
		return false, err
	}
	return EXIFOrientation(b) != 1, nil
}

// readPNG walks the chunks after DecodeConfig accepted the header: the
// first IHDR's bit depth, colour type and interlace, a tRNS before the first IDAT (it
// turns a grey or truecolour image into NRGBA), eXIf chunks (orientation)
// and the compressed metadata chunks (what Decode may inflate).
func (h *Header) readPNG(w *walker) error {
	if err := w.skip(int64(len(pngMagic))); err != nil {
		return err
	}
	var depth, ctype byte
	trns, seenIHDR, seenIDAT := false, false, false
	var compressed int64
	var hd [8]byte
	for {
		if err := w.read(hd[:]); err != nil {
			break // the pixel decoder reports damage; cost what was seen
		}
		n := int64(binary.BigEndian.Uint32(hd[:4]))
		typ := string(hd[4:8])
		var err error
		switch typ {
		case "IHDR":
			// Only the first counts: the decoder decodes the pixels by
			// it, and meets a later one (after IDAT) as out of order.
			if seenIHDR {
				err = w.skip(n + 4)
				break
			}
			seenIHDR = true
			var b [13]byte
			if n < 13 {
				return errors.New("png: short IHDR")
			}
			if err = w.read(b[:]); err == nil {
				depth, ctype, h.Interlaced = b[8], b[9], b[12] == 1
				err = w.skip(n - 13 + 4)
			}
		case "tRNS":
			trns = trns || !seenIDAT
			err = w.skip(n + 4)
		case "IDAT":
			seenIDAT = true
			err = w.skip(n + 4)
		case "eXIf":
			var rot bool
			if rot, err = exifRotates(w, n); err == nil {
				h.Rotated = h.Rotated || rot
				err = w.skip(4)
			}
		case "iCCP", "zTXt", "iTXt":
			compressed += n
			err = w.skip(n + 4)
		case "IEND":
			h.finishPNG(depth, ctype, trns, compressed)
			return nil
		default:
			err = w.skip(n + 4)
		}
		if err != nil {
			break
		}
	}
	h.finishPNG(depth, ctype, trns, compressed)
	return nil
}

// finishPNG sets what Go's decoder allocates for the colour type ctype at
// depth bits: image.Gray (1 byte a pixel) for grey of 8 bits or fewer,
// Gray16 (2) at 16, Paletted (1), RGBA or NRGBA (4) at 8 bits, RGBA64 or
// NRGBA64 (8) at 16; a tRNS turns grey and truecolour into NRGBA(64).
// Everything but NRGBA and opaque RGBA is then converted to NRGBA (4 more).
func (h *Header) finishPNG(depth, ctype byte, trns bool, compressed int64) {
	px := h.Pixels()
	wide := depth == 16
	var native int64
	direct := false // the decoder's image serves as NRGBA
	switch ctype {
	case 0: // grey
		switch {
		case trns && wide:
			native = 8
		case trns:
			native, direct = 4, true
		case wide:
			native = 2
		default:
			native = 1
		}
	case 3: // palette
		native = 1
	default: // truecolour, grey + alpha, truecolour + alpha
		native = 4
		if wide {
			native = 8
		}
		direct = !wide
	}
	h.Alpha = ctype == 3 || ctype == 4 || ctype == 6 || trns
	h.Wide = wide
	h.decoded = native * px
	if h.Interlaced {
		h.decoded += native * px // the passes, each merged into the image
	}
	if !direct {
		h.decoded += 4 * px
	}
	if h.Rotated {
		h.decoded = max(h.decoded, 8*px)
	}
	// A zlib stream inflates at most about 1032 times; Decode keeps at
	// most maxMetaTotal of metadata.
	h.meta = min(compressed*1032, maxMetaTotal)
}

// readJPEG walks the segments up to the first scan as Go's decoder does
// (see nextMarker): APP1 EXIF (orientation) and the frame header
// (components and their sampling).
func (h *Header) readJPEG(w *walker) error {
	if err := w.skip(2); err != nil { // SOI
		return err
	}
	var frame []byte
	var marker byte
walk:
	for {
		m, ok := nextMarkerWalk(w)
		switch {
		case !ok || m == markerEOI || m == markerSOS:
			break walk
		case m >= markerRST0 && m <= markerRST0+7:
			continue
		}
		var size [2]byte
		if err := w.read(size[:]); err != nil {
			break
		}
		n := int64(binary.BigEndian.Uint16(size[:])) - 2
		if n < 0 {
			break
		}
		var err error
		switch {
		case m == markerAPP1 && n >= int64(len(exifHeader)):
			b := make([]byte, len(exifHeader))
			if err = w.read(b); err == nil {
				if bytes.Equal(b, exifHeader) {
					var rot bool
					rot, err = exifRotates(w, n-int64(len(b)))
					h.Rotated = h.Rotated || rot
				} else {
					err = w.skip(n - int64(len(b)))
				}
			}
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc && frame == nil:
			frame, marker = make([]byte, n), m
			err = w.read(frame)
		default:
			err = w.skip(n)
		}
		if err != nil {
			break
		}
	}
	h.Progressive = marker == markerSOF2
	h.Wide = h.Progressive
	h.finishJPEG(frame)
	return nil
}

// markerSOF2 starts the frame header of a progressive JPEG.
const markerSOF2 = 0xc2

// nextMarkerWalk is nextMarker on a walker.
func nextMarkerWalk(w *walker) (byte, bool) {
	for {
		b, err := w.readByte()
		if err != nil {
			return 0, false
		}
		if b != 0xff {
			continue
		}
		marker, err := w.readByte()
		for err == nil && marker == 0xff {
			marker, err = w.readByte()
		}
		switch {
		case err != nil:
			return 0, false
		case marker != 0x00:
			return marker, true
		}
	}
}

// finishJPEG sets what Go's decoder allocates for the frame header frame
// (precision, height, width, components and their sampling): image.Gray
// or YCbCr planes over whole MCUs, a progressive file's coefficients (256
// bytes a block of every component), an RGB file's RGBA (4 bytes a pixel)
// and the conversion to NRGBA (4 more). A frame it cannot read is costed
// as three full planes.
func (h *Header) finishJPEG(frame []byte) {
	px := h.Pixels()
	type comp struct{ h, v int }
	var comps []comp
	if len(frame) >= 6 {
		nc := int(frame[5])
		for i := 0; i < nc && 6+3*i+2 < len(frame); i++ {
			hv := frame[6+3*i+1]
			comps = append(comps, comp{max(int(hv>>4), 1), max(int(hv&0x0f), 1)})
		}
	}
	if len(comps) == 1 {
		comps[0].h, comps[0].v = 1, 1 // as Go's decoder does
	}
	if len(comps) == 0 {
		comps = []comp{{1, 1}, {1, 1}, {1, 1}}
	}
	hmax, vmax := 1, 1
	for _, c := range comps {
		hmax, vmax = max(hmax, c.h), max(vmax, c.v)
	}
	mxx := (int64(h.Width) + 8*int64(hmax) - 1) / (8 * int64(hmax))
	myy := (int64(h.Height) + 8*int64(vmax) - 1) / (8 * int64(vmax))
	var planes, coeffs int64
	for i, c := range comps {
		blocks := mxx * myy * int64(c.h) * int64(c.v)
		if i > 0 && len(comps) >= 3 && i < 3 {
			// image.YCbCr sizes the chroma planes from the luma's MCUs.
			blocks = mxx * myy * int64(comps[0].h) * int64(comps[0].v) * int64(c.h*c.v) / int64(comps[0].h*comps[0].v)
		}
		planes += 64 * blocks
		if h.Progressive {
			coeffs += 256 * blocks
		}
	}
	h.decoded = planes + coeffs + 4*px // NRGBA, or an RGB file's opaque RGBA that serves as it
	if len(comps) == 4 {
		h.decoded += 8 * px // CMYK beside the planes, then NRGBA (Decode refuses it after decoding)
	}
	if h.Rotated {
		h.decoded = max(h.decoded, 8*px)
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
