package imageio

import "encoding/binary"

// MaxJPEGScans bounds the scans of a JPEG that Decode accepts. Go's
// progressive decoder visits every block of the image in every scan, so a
// file of a few hundred KiB holding thousands of near-empty scans costs
// minutes of CPU; real encoders write about ten (libjpeg's progressive
// script: 10 for colour, 6 for grey; mozjpeg a few more).
const MaxJPEGScans = 100

// jpegScans counts the scans (SOS segments) of the JPEG in data, stopping
// once it passes limit. It walks the marker segments and skips the
// entropy-coded data after each SOS (bytes up to the next marker that is
// not a stuffed 0xFF00, a restart marker or fill). Damage ends the count:
// the decoder reports it.
func jpegScans(data []byte, limit int) int {
	n := 0
	p := 2 // after SOI
	for p+2 <= len(data) && n <= limit {
		if data[p] != 0xff {
			return n
		}
		marker := data[p+1]
		switch {
		case marker == 0xff: // fill byte
			p++
			continue
		case marker == markerEOI:
			return n
		case marker == markerSOI || marker == 0x01 || (marker >= markerRST0 && marker <= markerRST0+7):
			p += 2
			continue
		}
		if p+4 > len(data) {
			return n
		}
		size := int(binary.BigEndian.Uint16(data[p+2:]))
		if size < 2 {
			return n
		}
		p += 2 + size
		if marker != markerSOS {
			continue
		}
		n++
		// Entropy-coded data runs to the next marker proper.
		for p+1 < len(data) {
			if data[p] == 0xff && data[p+1] != 0x00 && data[p+1] != 0xff &&
				(data[p+1] < markerRST0 || data[p+1] > markerRST0+7) {
				break
			}
			p++
		}
	}
	return n
}
