package containersvc

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
)

// maxEXIFScan bounds how much of a file is searched for EXIF.
const maxEXIFScan = 256 << 10

// exifSoftware returns the EXIF Software tag (0x0131 of IFD0) of a JPEG
// (APP1 "Exif") or PNG (eXIf chunk) read from r, or "" when there is none.
// Malformed data gives "".
func exifSoftware(r io.ReaderAt) string {
	head := make([]byte, maxEXIFScan)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	tiff := findTIFF(head)
	if tiff == nil {
		return ""
	}
	return tiffSoftware(tiff)
}

func findTIFF(b []byte) []byte {
	switch {
	case len(b) > 4 && b[0] == 0xFF && b[1] == 0xD8:
		for i := 2; i+4 <= len(b); {
			if b[i] != 0xFF {
				return nil
			}
			marker := b[i+1]
			if marker == 0xDA || marker == 0xD9 {
				return nil
			}
			size := int(binary.BigEndian.Uint16(b[i+2:]))
			end := i + 2 + size
			if size < 2 || end > len(b) {
				return nil
			}
			seg := b[i+4 : end]
			if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
				return seg[6:]
			}
			i = end
		}
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		for i := 8; i+8 <= len(b); {
			size := int(binary.BigEndian.Uint32(b[i:]))
			typ := string(b[i+4 : i+8])
			if size < 0 || size > len(b)-i-8 {
				return nil
			}
			if typ == "eXIf" {
				return b[i+8 : i+8+size]
			}
			if typ == "IDAT" {
				return nil
			}
			i += 12 + size
		}
	}
	return nil
}

func tiffSoftware(t []byte) string {
	if len(t) < 8 {
		return ""
	}
	var order binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		order = binary.LittleEndian
	case "MM":
		order = binary.BigEndian
	default:
		return ""
	}
	off := int(order.Uint32(t[4:]))
	if off < 8 || off+2 > len(t) {
		return ""
	}
	count := int(order.Uint16(t[off:]))
	for k := range count {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			return ""
		}
		if order.Uint16(t[e:]) != 0x0131 || order.Uint16(t[e+2:]) != 2 {
			continue
		}
		n := int(order.Uint32(t[e+4:]))
		if n < 0 { // a count over 2^31 on a 32-bit int
			return ""
		}
		var val []byte
		if n <= 4 {
			val = t[e+8 : e+8+n]
		} else {
			p := int(order.Uint32(t[e+8:]))
			if p < 0 || n > len(t) || p > len(t)-n {
				return ""
			}
			val = t[p : p+n]
		}
		return strings.TrimSpace(string(bytes.TrimRight(val, "\x00")))
	}
	return ""
}

// skippedBySoftware returns the entry of names that software contains
// (case insensitive), or "".
func skippedBySoftware(software string, names []string) string {
	if software == "" {
		return ""
	}
	ls := strings.ToLower(software)
	for _, n := range names {
		if strings.Contains(ls, strings.ToLower(n)) {
			return n
		}
	}
	return ""
}
