package imageio

// Metadata is the raw metadata kept from a source file, format-neutral where
// the formats allow. Nil fields are absent.
type Metadata struct {
	// EXIF is the TIFF payload (starting "II*\0" or "MM\0*") of the JPEG APP1
	// Exif segment, without the "Exif\0\0" header, or of the PNG eXIf chunk.
	EXIF []byte
	// XMP is the XMP packet: JPEG APP1 "http://ns.adobe.com/xap/1.0/", or
	// the PNG iTXt chunk with keyword "XML:com.adobe.xmp".
	XMP []byte
	// XMPExtension holds the JPEG extended-XMP APP1 payloads (after the
	// "http://ns.adobe.com/xmp/extension/\0" header: GUID, sizes, data) in
	// file order, written back verbatim to JPEG only.
	XMPExtension [][]byte
	// ICC is the whole ICC profile: reassembled from JPEG APP2
	// "ICC_PROFILE" chunks, or the decompressed PNG iCCP profile.
	ICC []byte
	// IPTC is the JPEG APP13 payload, "Photoshop 3.0\0" header included
	// (the Photoshop resource block that carries IPTC-IIM). JPEG only.
	IPTC []byte
	// PNGText holds the PNG tEXt, zTXt and iTXt chunks other than XMP,
	// verbatim. PNG only.
	PNGText []PNGChunk
}

// PNGChunk is one raw PNG chunk.
type PNGChunk struct {
	Type string // four letters, e.g. "tEXt"
	Data []byte
}

// Empty reports whether m holds no metadata at all.
func (m *Metadata) Empty() bool {
	return m == nil || (m.EXIF == nil && m.XMP == nil && m.XMPExtension == nil && m.ICC == nil && m.IPTC == nil && m.PNGText == nil)
}

// Bounds on kept metadata: larger items are dropped (not an error), so a
// crafted file cannot make the decoder hold unbounded memory.
const (
	maxMetaItem    = 16 << 20 // one ICC profile, XMP packet, EXIF block...
	maxMetaTotal   = 32 << 20 // everything together
	maxTextChunks  = 256
	maxXMPExtParts = 512
)

// metaBudget tracks maxMetaTotal while metadata is collected.
type metaBudget int

func (b *metaBudget) take(n int) bool {
	if n > maxMetaItem || int(*b)+n > maxMetaTotal {
		return false
	}
	*b += metaBudget(n)
	return true
}
