package imageio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	"runtime"
	"sync"
	"sync/atomic"
)

// jpegStripPixels is the target size of one independently encoded strip.
// Strip height depends only on the image width, so the output bytes are
// the same for any number of cores.
const jpegStripPixels = 1 << 19

// jpegStripRows returns the strip height for a width: a multiple of the
// 16-row MCU, small enough that one strip is at most 65535 MCUs (the
// largest restart interval).
func jpegStripRows(width int) int {
	mcusPerRow := (width + 15) / 16
	mcuRows := max(1, jpegStripPixels/(width*16))
	mcuRows = max(1, min(mcuRows, 0xffff/mcusPerRow))
	return mcuRows * 16
}

// encodeJPEGPixels encodes an opaque image as a baseline 4:2:0 JPEG with
// image/jpeg and returns the bytes after SOI (tables, frame, scan, EOI).
//
// Tall images are cut into strips of jpegStripRows rows, encoded in
// parallel, and joined into one scan with restart markers: image/jpeg
// starts every strip with zero DC predictors and pads its last byte with
// 1-bits, which is exactly the state at a restart marker, so strip i's
// entropy-coded data is restart interval i. The quantised coefficients are
// those of a single-stream encode, so the pixels decode identically.
func encodeJPEGPixels(img *image.RGBA, quality int) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	rows := jpegStripRows(w)
	opts := &jpeg.Options{Quality: quality}
	if h <= rows {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, opts); err != nil {
			return nil, err
		}
		return buf.Bytes()[2:], nil
	}
	n := (h + rows - 1) / rows
	strips := make([][]byte, n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				r := image.Rect(img.Rect.Min.X, img.Rect.Min.Y+i*rows, img.Rect.Max.X, min(img.Rect.Min.Y+(i+1)*rows, img.Rect.Max.Y))
				var buf bytes.Buffer
				buf.Grow(r.Dx() * r.Dy() / 2)
				errs[i] = jpeg.Encode(&buf, img.SubImage(r), opts)
				strips[i] = buf.Bytes()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	first, err := splitJPEG(strips[0])
	if err != nil {
		return nil, err
	}
	total := len(first.tables) + 6 + len(first.sos) + 2
	scans := make([][]byte, n)
	for i, s := range strips {
		p, err := splitJPEG(s)
		if err != nil {
			return nil, err
		}
		// Every strip must share the tables and scan header; the frame
		// header differs in its height only.
		if !bytes.Equal(p.sos, first.sos) || len(p.tables) != len(first.tables) ||
			!bytes.Equal(p.tables[:p.sofHeight], first.tables[:first.sofHeight]) ||
			!bytes.Equal(p.tables[p.sofHeight+2:], first.tables[first.sofHeight+2:]) {
			return nil, errors.New("imageio: JPEG strips have different headers")
		}
		scans[i] = p.scan
		total += len(p.scan) + 2
	}
	out := make([]byte, 0, total)
	out = append(out, first.tables...)
	binary.BigEndian.PutUint16(out[first.sofHeight:], uint16(h))
	interval := ((w + 15) / 16) * (rows / 16)
	out = append(out, 0xff, markerDRI, 0, 4, byte(interval>>8), byte(interval))
	out = append(out, first.sos...)
	for i, s := range scans {
		out = append(out, s...)
		if i < n-1 {
			out = append(out, 0xff, markerRST0+byte(i%8))
		}
	}
	return append(out, 0xff, markerEOI), nil
}

// jpegParts is an image/jpeg output cut up: the segments between SOI and
// SOS (with the offset of the frame height inside them), the SOS segment,
// and the entropy-coded data before EOI.
type jpegParts struct {
	tables    []byte
	sofHeight int
	sos       []byte
	scan      []byte
}

var errJPEGLayout = errors.New("imageio: unexpected JPEG encoder output")

func splitJPEG(b []byte) (jpegParts, error) {
	var p jpegParts
	if len(b) < 4 || b[0] != 0xff || b[1] != markerSOI || b[len(b)-2] != 0xff || b[len(b)-1] != markerEOI {
		return p, errJPEGLayout
	}
	i := 2
	p.sofHeight = -1
	for i+4 <= len(b) {
		if b[i] != 0xff {
			return p, errJPEGLayout
		}
		marker := b[i+1]
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return p, errJPEGLayout
		}
		switch marker {
		case 0xc0: // SOF0: length, precision, then height
			p.sofHeight = i + 5 - 2
		case markerSOS:
			if p.sofHeight < 0 {
				return p, errJPEGLayout
			}
			p.tables = b[2:i]
			p.sos = b[i : i+2+n]
			p.scan = b[i+2+n : len(b)-2]
			return p, nil
		}
		i += 2 + n
	}
	return p, errJPEGLayout
}
