package imageio

import "encoding/binary"

// The container names SniffVideo returns.
const (
	ContainerMP4 = "mp4"
	ContainerMOV = "mov"
)

// SniffVideo identifies an MP4 or QuickTime MOV file from its first bytes
// (the first box; 12 bytes are enough for most files, 64 let it read
// compatible brands).
//
// A first "ftyp" box decides by brand: "qt  " is MOV; isom, iso2-iso9,
// mp41, mp42, avc1, M4V, M4VH, M4VP, dash, mmp4, f4v are MP4. Any other
// major brand is accepted when a compatible brand is one of those, unless
// the major brand is a still-image or audio-only one (HEIF/AVIF: heic,
// heix, mif1, msf1, avif...; M4A, M4B, M4P), which are never video. Files
// without ftyp are old QuickTime when the first box is moov, mdat, wide,
// free, skip or pnot.
func SniffVideo(head []byte) (container string, ok bool) {
	if len(head) < 8 {
		return "", false
	}
	size := binary.BigEndian.Uint32(head)
	box := string(head[4:8])
	switch box {
	case "moov", "mdat", "wide", "free", "skip", "pnot":
		if size == 0 || size >= 8 || size == 1 {
			return ContainerMOV, true
		}
		return "", false
	case "ftyp":
	default:
		return "", false
	}
	if len(head) < 12 || (size != 0 && size < 16) {
		return "", false
	}
	major := string(head[8:12])
	if nonVideoBrands[major] {
		return "", false
	}
	if c, ok := videoBrands[major]; ok {
		return c, true
	}
	end := len(head)
	if size != 0 && int(size) < end {
		end = int(size)
	}
	for i := 16; i+4 <= end; i += 4 {
		if c, ok := videoBrands[string(head[i:i+4])]; ok {
			return c, true
		}
	}
	return "", false
}

var videoBrands = map[string]string{
	"qt  ": ContainerMOV,
	"isom": ContainerMP4, "iso2": ContainerMP4, "iso3": ContainerMP4, "iso4": ContainerMP4,
	"iso5": ContainerMP4, "iso6": ContainerMP4, "iso7": ContainerMP4, "iso8": ContainerMP4, "iso9": ContainerMP4,
	"mp41": ContainerMP4, "mp42": ContainerMP4, "avc1": ContainerMP4,
	"M4V ": ContainerMP4, "M4VH": ContainerMP4, "M4VP": ContainerMP4,
	"dash": ContainerMP4, "mmp4": ContainerMP4, "f4v ": ContainerMP4,
}

var nonVideoBrands = map[string]bool{
	"heic": true, "heix": true, "heim": true, "heis": true, "hevc": true, "hevx": true,
	"mif1": true, "msf1": true, "avif": true, "avis": true, "avio": true,
	"jpeg": true, "jpgs": true, "crx ": true,
	"M4A ": true, "M4B ": true, "M4P ": true,
}
