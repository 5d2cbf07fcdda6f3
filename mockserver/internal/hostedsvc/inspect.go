package hostedsvc

import (
	"encoding/binary"
	"io"
)

// videoDimensions reads the display size of the first video track of an
// MP4/MOV file from its track header (moov/trak/tkhd), walking box
// headers only, so it is cheap on multi-GB files. ok is false when no
// track with a size is found.
func videoDimensions(r io.ReaderAt, size int64) (w, h int, ok bool) {
	moov, moovSize, found := findBox(r, 0, size, "moov")
	if !found {
		return 0, 0, false
	}
	off, end := moov, moov+moovSize
	// Bound the walk: a real moov has few tracks.
	for i := 0; i < 64 && off < end; i++ {
		trak, trakSize, found := findBox(r, off, end, "trak")
		if !found {
			return 0, 0, false
		}
		if tw, th, ok := tkhdSize(r, trak, trak+trakSize); ok && tw > 0 && th > 0 {
			return tw, th, true
		}
		off = trak + trakSize
	}
	return 0, 0, false
}

// findBox returns the payload offset and payload size of the first box of
// type typ among the boxes in [off, end).
func findBox(r io.ReaderAt, off, end int64, typ string) (int64, int64, bool) {
	var hdr [16]byte
	for steps := 0; off+8 <= end && steps < 4096; steps++ {
		if _, err := r.ReadAt(hdr[:8], off); err != nil {
			return 0, 0, false
		}
		boxSize := int64(binary.BigEndian.Uint32(hdr[:4]))
		headerLen := int64(8)
		switch boxSize {
		case 0: // to the end
			boxSize = end - off
		case 1: // 64-bit size follows
			if _, err := r.ReadAt(hdr[8:16], off+8); err != nil {
				return 0, 0, false
			}
			boxSize = int64(binary.BigEndian.Uint64(hdr[8:16]))
			headerLen = 16
		}
		if boxSize < headerLen || off+boxSize > end {
			return 0, 0, false
		}
		if string(hdr[4:8]) == typ {
			return off + headerLen, boxSize - headerLen, true
		}
		off += boxSize
	}
	return 0, 0, false
}

// tkhdSize reads width and height (16.16 fixed point) of the tkhd box in
// a trak payload.
func tkhdSize(r io.ReaderAt, off, end int64) (int, int, bool) {
	p, n, found := findBox(r, off, end, "tkhd")
	if !found {
		return 0, 0, false
	}
	// Version 0 payload is 84 bytes, version 1 is 96; width and height
	// are its last 8 bytes.
	if n != 84 && n != 96 {
		return 0, 0, false
	}
	var wh [8]byte
	if _, err := r.ReadAt(wh[:], p+n-8); err != nil {
		return 0, 0, false
	}
	return int(binary.BigEndian.Uint32(wh[:4]) >> 16), int(binary.BigEndian.Uint32(wh[4:]) >> 16), true
}
