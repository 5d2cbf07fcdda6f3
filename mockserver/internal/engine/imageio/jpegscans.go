package imageio

import "encoding/binary"

// MaxJPEGScans bounds the scans of a JPEG that Decode accepts. Go's
// progressive decoder visits every block of the image in every scan, so a
// file of a few hundred KiB holding thousands of near-empty scans costs
// minutes of CPU; real encoders write about ten (libjpeg's progressive
// script: 10 for colour, 6 for grey; mozjpeg a few more).
const MaxJPEGScans = 100

// jpegScans counts the scans (SOS segments) of the JPEG in data, stopping
// once it passes limit. It walks the marker segments as Go's decoder does
// (bytes before a marker and "FF 00" outside a scan are skipped as
// extraneous, fill bytes too) and skips the entropy-coded data after each
// SOS (bytes up to the next marker that is not a stuffed 0xFF00, a restart
// marker or fill). Damage ends the count: the decoder reports it.
func jpegScans(data []byte, limit int) int {
	n := 0
	p := 2 // after SOI
	for n <= limit {
		marker, next, ok := nextMarker(data, p)
		if !ok || marker == markerEOI {
			return n
		}
		p = next
		if marker >= markerRST0 && marker <= markerRST0+7 {
			continue // no length
		}
		if p+2 > len(data) {
			return n
		}
		size := int(binary.BigEndian.Uint16(data[p:]))
		if size < 2 {
			return n
		}
		p += size
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

// nextMarker finds the next marker at or after p the way Go's JPEG
// decoder does: bytes before an 0xFF are skipped, "FF 00" is skipped as
// extraneous, and fill bytes (0xFF repeated) are passed over. It returns
// the marker and the offset just after it.
func nextMarker(data []byte, p int) (marker byte, next int, ok bool) {
	for {
		for p < len(data) && data[p] != 0xff {
			p++
		}
		if p+1 >= len(data) {
			return 0, 0, false
		}
		marker, p = data[p+1], p+2
		if marker == 0x00 {
			continue
		}
		for marker == 0xff {
			if p >= len(data) {
				return 0, 0, false
			}
			marker, p = data[p], p+1
		}
		return marker, p, true
	}
}
