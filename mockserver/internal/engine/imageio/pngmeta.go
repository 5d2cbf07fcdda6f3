package imageio

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// xmpKeyword is the iTXt keyword that carries XMP in PNG.
const xmpKeyword = "XML:com.adobe.xmp"

// readPNGMeta walks the PNG chunks and collects the metadata: iCCP (the
// profile, decompressed), eXIf, the XMP iTXt and the other text chunks.
// Chunks with a bad CRC or a malformed body are skipped; structural damage
// is left to the pixel decoder to report.
func readPNGMeta(data []byte) Metadata {
	var m Metadata
	var budget metaBudget
	// Only the first iCCP and XMP chunk is inflated, whether or not it
	// succeeds, and inflation as a whole stops at maxMetaTotal bytes out:
	// a file repeating a chunk that inflates to just over the item limit
	// would otherwise be inflated again and again.
	var iccTried, xmpTried bool
	inflateLeft := maxMetaTotal
	p := len(pngMagic)
	for p+12 <= len(data) {
		n := int64(binary.BigEndian.Uint32(data[p:]))
		if n > int64(len(data)-p-12) {
			break
		}
		start := p
		typ := string(data[p+4 : p+8])
		body := data[p+8 : p+8+int(n)]
		crc := binary.BigEndian.Uint32(data[p+8+int(n):])
		p += 12 + int(n)
		if typ == "IEND" {
			break
		}
		switch typ {
		case "iCCP", "eXIf", "iTXt", "tEXt", "zTXt":
		default:
			continue
		}
		if crc32.ChecksumIEEE(data[start+4:start+8+int(n)]) != crc {
			continue
		}
		switch typ {
		case "iCCP":
			if iccTried {
				continue
			}
			i := bytes.IndexByte(body, 0)
			if i < 1 || i > 79 || i+2 > len(body) || body[i+1] != 0 {
				continue
			}
			iccTried = true
			if prof, ok := inflateBounded(body[i+2:], &inflateLeft); ok && budget.take(len(prof)) {
				m.ICC = prof
			}
		case "eXIf":
			v := bytes.TrimPrefix(body, exifHeader) // some writers keep the JPEG header
			if m.EXIF == nil && budget.take(len(v)) {
				m.EXIF = bytes.Clone(v)
			}
		default:
			if typ == "iTXt" && bytes.HasPrefix(body, []byte(xmpKeyword+"\x00")) {
				if !xmpTried {
					xmpTried = true
					if x, ok := iTXtText(body, &inflateLeft); ok && budget.take(len(x)) {
						m.XMP = x
					}
				}
				continue
			}
			if len(m.PNGText) < maxTextChunks && budget.take(len(body)) {
				m.PNGText = append(m.PNGText, PNGChunk{Type: typ, Data: bytes.Clone(body)})
			}
		}
	}
	return m
}

// iTXtText returns the text of an iTXt chunk body, inflated if compressed
// (within *inflateLeft, see inflateBounded).
func iTXtText(body []byte, inflateLeft *int) ([]byte, bool) {
	i := bytes.IndexByte(body, 0)
	if i < 0 || i+3 > len(body) {
		return nil, false
	}
	flag, method := body[i+1], body[i+2]
	rest := body[i+3:]
	for k := 0; k < 2; k++ { // language tag, translated keyword
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			return nil, false
		}
		rest = rest[j+1:]
	}
	switch {
	case flag == 0:
		return bytes.Clone(rest), true
	case flag == 1 && method == 0:
		return inflateBounded(rest, inflateLeft)
	}
	return nil, false
}

// inflateBounded decompresses a zlib stream of at most maxMetaItem bytes
// and at most *left, which it lowers by what it inflated (also when it
// fails).
func inflateBounded(z []byte, left *int) ([]byte, bool) {
	limit := min(maxMetaItem, *left)
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, false
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	*left -= min(len(out), *left)
	if err != nil || len(out) > limit {
		return nil, false
	}
	return out, true
}

// appendChunk appends one PNG chunk with its CRC.
func appendChunk(dst []byte, typ string, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	start := len(dst)
	dst = append(dst, typ...)
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start:]))
}

// pngMetaChunks returns the metadata chunks to write before IDAT: iCCP
// (profile name "ICC", zlib-compressed), eXIf, the XMP iTXt
// (uncompressed, as XMP readers expect), then the kept text chunks.
// IPTC and extended XMP have no PNG form and are not written.
func pngMetaChunks(exif []byte, m *Metadata) []byte {
	var out []byte
	if m != nil && m.ICC != nil {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(m.ICC) // writes to a bytes.Buffer cannot fail
		zw.Close()
		out = appendChunk(out, "iCCP", []byte("ICC\x00\x00"), z.Bytes())
	}
	if exif != nil {
		out = appendChunk(out, "eXIf", exif)
	}
	if m == nil {
		return out
	}
	if m.XMP != nil {
		out = appendChunk(out, "iTXt", []byte(xmpKeyword+"\x00\x00\x00\x00\x00"), m.XMP)
	}
	for _, c := range m.PNGText {
		// Only text chunks: anything else could break the file's structure.
		if c.Type == "tEXt" || c.Type == "zTXt" || c.Type == "iTXt" {
			out = appendChunk(out, c.Type, c.Data)
		}
	}
	return out
}
