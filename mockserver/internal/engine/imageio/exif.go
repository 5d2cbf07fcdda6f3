package imageio

import (
	"bytes"
	"encoding/binary"
)

// TIFF tags the package reads or rewrites.
const (
	tagImageWidth      = 0x0100
	tagImageLength     = 0x0101
	tagOrientation     = 0x0112
	tagJPEGOffset      = 0x0201 // JPEGInterchangeFormat (IFD1 thumbnail)
	tagJPEGLength      = 0x0202 // JPEGInterchangeFormatLength
	tagExifIFD         = 0x8769
	tagPixelXDimension = 0xa002
	tagPixelYDimension = 0xa003
	tiffTypeShort      = 3
	tiffTypeLong       = 4
	tiffEntrySize      = 12
	maxIFDEntries      = 1024 // more is not a real EXIF block
)

// tiff is a parsed view of an EXIF TIFF payload (the APP1 body after
// "Exif\0\0", or a PNG eXIf chunk).
type tiff struct {
	b     []byte
	order binary.ByteOrder
}

// parseTIFF checks the TIFF header; ok is false when b is not one.
func parseTIFF(b []byte) (tiff, bool) {
	if len(b) < 8 {
		return tiff{}, false
	}
	var t tiff
	switch {
	case bytes.HasPrefix(b, []byte("II*\x00")):
		t.order = binary.LittleEndian
	case bytes.HasPrefix(b, []byte("MM\x00*")):
		t.order = binary.BigEndian
	default:
		return tiff{}, false
	}
	t.b = b
	return t, true
}

func (t tiff) u16(off int) (uint16, bool) {
	if off < 0 || off+2 > len(t.b) {
		return 0, false
	}
	return t.order.Uint16(t.b[off:]), true
}

func (t tiff) u32(off int) (uint32, bool) {
	if off < 0 || off+4 > len(t.b) {
		return 0, false
	}
	return t.order.Uint32(t.b[off:]), true
}

func (t tiff) putU16(off int, v uint16) { t.order.PutUint16(t.b[off:], v) }
func (t tiff) putU32(off int, v uint32) { t.order.PutUint32(t.b[off:], v) }

// ifd0 returns the offset of IFD0.
func (t tiff) ifd0() (int, bool) {
	v, ok := t.u32(4)
	if !ok || int64(v) < 8 || int64(v) >= int64(len(t.b)) {
		return 0, false
	}
	return int(v), true
}

// ifd describes one image file directory: where its entries are and where
// its next-IFD pointer is.
type ifd struct {
	off, count int
}

func (t tiff) readIFD(off int) (ifd, bool) {
	n, ok := t.u16(off)
	if !ok || n == 0 || int(n) > maxIFDEntries || off+2+int(n)*tiffEntrySize+4 > len(t.b) {
		return ifd{}, false
	}
	return ifd{off: off, count: int(n)}, true
}

// nextPtr is the offset of the IFD's next-IFD pointer.
func (d ifd) nextPtr() int { return d.off + 2 + d.count*tiffEntrySize }

// entry is one IFD entry: tag, type, count and the offset of its 4-byte
// value field.
type entry struct {
	tag, typ uint16
	count    uint32
	valueOff int
}

func (t tiff) entries(d ifd) []entry {
	es := make([]entry, d.count)
	for i := range es {
		p := d.off + 2 + i*tiffEntrySize
		es[i] = entry{
			tag:      t.order.Uint16(t.b[p:]),
			typ:      t.order.Uint16(t.b[p+2:]),
			count:    t.order.Uint32(t.b[p+4:]),
			valueOff: p + 8,
		}
	}
	return es
}

func (t tiff) find(d ifd, tag uint16) (entry, bool) {
	for _, e := range t.entries(d) {
		if e.tag == tag {
			return e, true
		}
	}
	return entry{}, false
}

// scalar reads a single SHORT or LONG value stored inline.
func (t tiff) scalar(e entry) (uint32, bool) {
	if e.count != 1 {
		return 0, false
	}
	switch e.typ {
	case tiffTypeShort:
		v, _ := t.u16(e.valueOff)
		return uint32(v), true
	case tiffTypeLong:
		v, _ := t.u32(e.valueOff)
		return v, true
	}
	return 0, false
}

// setScalar rewrites a single inline SHORT or LONG value; false when the
// entry has another shape or v does not fit its type.
func (t tiff) setScalar(e entry, v uint32) bool {
	if e.count != 1 {
		return false
	}
	switch e.typ {
	case tiffTypeShort:
		if v > 0xffff {
			return false
		}
		t.putU16(e.valueOff, uint16(v))
		t.putU16(e.valueOff+2, 0)
		return true
	case tiffTypeLong:
		t.putU32(e.valueOff, v)
		return true
	}
	return false
}

// EXIFOrientation returns the Orientation tag (1..8) of IFD0 of an EXIF
// TIFF payload (either byte order), or 1 when the payload, the tag or its
// value is missing or invalid.
func EXIFOrientation(exif []byte) int {
	t, ok := parseTIFF(exif)
	if !ok {
		return 1
	}
	off, ok := t.ifd0()
	if !ok {
		return 1
	}
	d, ok := t.readIFD(off)
	if !ok {
		return 1
	}
	e, ok := t.find(d, tagOrientation)
	if !ok || e.typ != tiffTypeShort {
		return 1
	}
	v, ok := t.scalar(e)
	if !ok || v < 1 || v > 8 {
		return 1
	}
	return int(v)
}

// exifUpdate says how rewriteEXIF changes a payload.
type exifUpdate struct {
	width, height int    // output pixel size, for PixelX/YDimension
	thumbnail     []byte // new IFD1 JPEG thumbnail; nil keeps the old one
}

// rewriteEXIF returns a copy of an EXIF payload for pixels that are upright
// and width x height: Orientation (IFD0 and IFD1) becomes 1,
// PixelXDimension/PixelYDimension are updated where they are inline SHORT or
// LONG values that can hold the new size, and with u.thumbnail set the
// IFD1 JPEG thumbnail is replaced (see replaceThumbnail). It returns nil
// when the payload's header or IFD0 is malformed: such EXIF is dropped
// rather than copied.
func rewriteEXIF(exif []byte, u exifUpdate) []byte {
	src, ok := parseTIFF(exif)
	if !ok {
		return nil
	}
	off, ok := src.ifd0()
	if !ok {
		return nil
	}
	if _, ok := src.readIFD(off); !ok {
		return nil
	}
	t := tiff{b: bytes.Clone(exif), order: src.order}
	d0, _ := t.readIFD(off)
	if e, ok := t.find(d0, tagOrientation); ok && e.typ == tiffTypeShort {
		t.setScalar(e, 1)
	}
	if e, ok := t.find(d0, tagExifIFD); ok {
		if p, ok := t.scalar(e); ok {
			if sub, ok := t.readIFD(int(p)); ok && int(p) >= 8 {
				if e, ok := t.find(sub, tagPixelXDimension); ok {
					t.setScalar(e, uint32(u.width))
				}
				if e, ok := t.find(sub, tagPixelYDimension); ok {
					t.setScalar(e, uint32(u.height))
				}
			}
		}
	}
	if d1, ok := t.ifd1(d0); ok {
		if e, ok := t.find(d1, tagOrientation); ok && e.typ == tiffTypeShort {
			t.setScalar(e, 1)
		}
	}
	if u.thumbnail != nil {
		t.b = t.replaceThumbnail(d0, u.thumbnail)
	}
	return t.b
}

// ifd1 returns IFD1 (the thumbnail directory) when IFD0 links to a valid one.
func (t tiff) ifd1(d0 ifd) (ifd, bool) {
	p, ok := t.u32(d0.nextPtr())
	if !ok || p < 8 || int64(p) >= int64(len(t.b)) {
		return ifd{}, false
	}
	return t.readIFD(int(p))
}

// thumbnail returns the IFD1 JPEG thumbnail bytes, or nil.
func (t tiff) thumbnail() []byte {
	off, ok := t.ifd0()
	if !ok {
		return nil
	}
	d0, ok := t.readIFD(off)
	if !ok {
		return nil
	}
	d1, ok := t.ifd1(d0)
	if !ok {
		return nil
	}
	oe, ok1 := t.find(d1, tagJPEGOffset)
	le, ok2 := t.find(d1, tagJPEGLength)
	if !ok1 || !ok2 {
		return nil
	}
	o, ok1 := t.scalar(oe)
	n, ok2 := t.scalar(le)
	if !ok1 || !ok2 || int64(o)+int64(n) > int64(len(t.b)) || n == 0 {
		return nil
	}
	return t.b[o : o+n]
}

// EXIFThumbnail returns the JPEG thumbnail stored in IFD1 of an EXIF TIFF
// payload, or nil when there is none. The slice aliases exif.
func EXIFThumbnail(exif []byte) []byte {
	t, ok := parseTIFF(exif)
	if !ok {
		return nil
	}
	return t.thumbnail()
}

// replaceThumbnail stores thumb as the IFD1 JPEG thumbnail and returns the
// new payload. Only EXIF that already has an IFD1 with
// JPEGInterchangeFormat and JPEGInterchangeFormatLength as inline LONG (or
// SHORT) values is changed; anything else is returned unchanged, since no
// thumbnail is added where there was none. The old bytes are reused only
// when they really hold a JPEG (start with SOI), lie after both IFD tables,
// and either end the payload (the usual layout: truncated and replaced) or
// are long enough (overwritten, the rest zeroed); otherwise the thumbnail is
// appended at an even offset. Nothing before the thumbnail moves, so every
// other offset in the payload stays valid.
func (t tiff) replaceThumbnail(d0 ifd, thumb []byte) []byte {
	d1, ok := t.ifd1(d0)
	if !ok {
		return t.b
	}
	oe, ok1 := t.find(d1, tagJPEGOffset)
	le, ok2 := t.find(d1, tagJPEGLength)
	if !ok1 || !ok2 {
		return t.b
	}
	oldOff, ok1 := t.scalar(oe)
	oldLen, ok2 := t.scalar(le)
	if !ok1 || !ok2 {
		return t.b
	}
	b := t.b
	reusable := oldLen >= 2 && int64(oldOff)+int64(oldLen) <= int64(len(b)) &&
		int(oldOff) >= max(d0.nextPtr(), d1.nextPtr())+4 &&
		b[oldOff] == 0xff && b[oldOff+1] == 0xd8
	atEnd := reusable && int(oldOff)+int(oldLen) == len(b)
	newOff := int(oldOff)
	if !reusable || (!atEnd && len(thumb) > int(oldLen)) {
		newOff = len(b) + len(b)%2
	}
	if !fits(oe, uint32(newOff)) || !fits(le, uint32(len(thumb))) {
		return t.b
	}
	switch {
	case newOff == int(oldOff) && atEnd:
		b = append(b[:newOff:newOff], thumb...)
	case newOff == int(oldOff):
		b = bytes.Clone(b)
		copy(b[newOff:], thumb)
		clear(b[newOff+len(thumb) : newOff+int(oldLen)])
	default:
		b = append(bytes.Clone(b), make([]byte, newOff-len(b))...)
		b = append(b, thumb...)
	}
	nt := tiff{b: b, order: t.order}
	nt.setScalar(oe, uint32(newOff))
	nt.setScalar(le, uint32(len(thumb)))
	return nt.b
}

// fits reports whether setScalar can store v in e.
func fits(e entry, v uint32) bool {
	return e.count == 1 && (e.typ == tiffTypeLong || (e.typ == tiffTypeShort && v <= 0xffff))
}

// dropThumbnail unlinks IFD1 (IFD0's next pointer becomes 0), the valid way
// to remove a thumbnail that cannot be stored.
func dropThumbnail(exif []byte) []byte {
	t, ok := parseTIFF(exif)
	if !ok {
		return exif
	}
	off, ok := t.ifd0()
	if !ok {
		return exif
	}
	d0, ok := t.readIFD(off)
	if !ok {
		return exif
	}
	t.putU32(d0.nextPtr(), 0)
	return t.b
}
