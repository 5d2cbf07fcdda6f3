package imageio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
)

// JPEG markers used here.
const (
	markerSOI   = 0xd8
	markerEOI   = 0xd9
	markerSOS   = 0xda
	markerDRI   = 0xdd
	markerAPP0  = 0xe0
	markerAPP1  = 0xe1
	markerAPP2  = 0xe2
	markerAPP13 = 0xed
	markerRST0  = 0xd0
)

// Segment identifiers.
var (
	exifHeader   = []byte("Exif\x00\x00")
	xmpHeader    = []byte("http://ns.adobe.com/xap/1.0/\x00")
	xmpExtHeader = []byte("http://ns.adobe.com/xmp/extension/\x00")
	iccHeader    = []byte("ICC_PROFILE\x00")
	iptcHeader   = []byte("Photoshop 3.0\x00")
	jfifAPP0     = []byte{0xff, markerAPP0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}
)

// maxSegmentPayload is the most a JPEG segment can carry after its length.
const maxSegmentPayload = 0xffff - 2

// maxICCChunk is the profile bytes one APP2 segment holds.
const maxICCChunk = maxSegmentPayload - len("ICC_PROFILE\x00") - 2

// readJPEGMeta walks the JPEG segments up to the first SOS and collects
// the metadata. It never fails: damaged metadata is skipped and damaged
// structure is left to the pixel decoder to report.
func readJPEGMeta(data []byte) Metadata {
	var (
		m      Metadata
		budget metaBudget
		icc    = map[int][]byte{}
		iccN   = -1
		iccBad bool
	)
	p := 2
	for p+4 <= len(data) {
		if data[p] != 0xff {
			break
		}
		marker := data[p+1]
		if marker == 0xff { // fill byte
			p++
			continue
		}
		if marker == markerSOI || (marker >= markerRST0 && marker <= markerRST0+7) || marker == 0x01 {
			p += 2
			continue
		}
		if marker == markerEOI || marker == markerSOS {
			break
		}
		n := int(binary.BigEndian.Uint16(data[p+2:]))
		if n < 2 || p+2+n > len(data) {
			break
		}
		body := data[p+4 : p+2+n]
		p += 2 + n
		switch marker {
		case markerAPP1:
			switch {
			case bytes.HasPrefix(body, exifHeader) && m.EXIF == nil:
				if v := body[len(exifHeader):]; budget.take(len(v)) {
					m.EXIF = bytes.Clone(v)
				}
			case bytes.HasPrefix(body, xmpHeader) && m.XMP == nil:
				if v := body[len(xmpHeader):]; budget.take(len(v)) {
					m.XMP = bytes.Clone(v)
				}
			case bytes.HasPrefix(body, xmpExtHeader) && len(m.XMPExtension) < maxXMPExtParts:
				if v := body[len(xmpExtHeader):]; budget.take(len(v)) {
					m.XMPExtension = append(m.XMPExtension, bytes.Clone(v))
				}
			}
		case markerAPP2:
			if !bytes.HasPrefix(body, iccHeader) || len(body) < len(iccHeader)+2 {
				continue
			}
			seq, count := int(body[len(iccHeader)]), int(body[len(iccHeader)+1])
			if seq < 1 || seq > count || (iccN >= 0 && count != iccN) || icc[seq] != nil {
				iccBad = true
				continue
			}
			iccN = count
			if v := body[len(iccHeader)+2:]; budget.take(len(v)) {
				icc[seq] = bytes.Clone(v)
			} else {
				iccBad = true
			}
		case markerAPP13:
			if bytes.HasPrefix(body, iptcHeader) && m.IPTC == nil && budget.take(len(body)) {
				m.IPTC = bytes.Clone(body)
			}
		}
	}
	// A profile with missing, duplicated or inconsistent chunks is dropped:
	// a partial profile would be worse than none.
	if !iccBad && iccN > 0 && len(icc) == iccN {
		seqs := make([]int, 0, len(icc))
		for s := range icc {
			seqs = append(seqs, s)
		}
		sort.Ints(seqs)
		var prof []byte
		for _, s := range seqs {
			prof = append(prof, icc[s]...)
		}
		m.ICC = prof
	}
	return m
}

// appendSegment appends one marker segment.
func appendSegment(dst []byte, marker byte, parts ...[]byte) ([]byte, error) {
	n := 2
	for _, p := range parts {
		n += len(p)
	}
	if n > 0xffff {
		return dst, fmt.Errorf("imageio: JPEG segment %#x too large (%d bytes)", marker, n)
	}
	dst = append(dst, 0xff, marker, byte(n>>8), byte(n))
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst, nil
}

// jpegMetaSegments returns the metadata segments to write after SOI: APP1
// Exif (or a JFIF APP0 when there is no EXIF), APP1 XMP and extended XMP,
// APP2 ICC chunks, APP13. exif is the already rewritten payload. Items that
// cannot fit their segments are left out; the ICC profile is split over as
// many APP2 segments as needed (at most 255).
func jpegMetaSegments(exif []byte, m *Metadata) []byte {
	var out []byte
	var err error
	if exif != nil && len(exif)+len(exifHeader) <= maxSegmentPayload {
		out, _ = appendSegment(out, markerAPP1, exifHeader, exif)
	} else {
		out = append(out, jfifAPP0...)
	}
	if m == nil {
		return out
	}
	if m.XMP != nil {
		out, _ = appendSegment(out, markerAPP1, xmpHeader, m.XMP)
	}
	for _, ext := range m.XMPExtension {
		out, _ = appendSegment(out, markerAPP1, xmpExtHeader, ext)
	}
	if n := (len(m.ICC) + maxICCChunk - 1) / maxICCChunk; n > 0 && n <= 255 {
		for i := 0; i < n; i++ {
			chunk := m.ICC[i*maxICCChunk : min((i+1)*maxICCChunk, len(m.ICC))]
			out, err = appendSegment(out, markerAPP2, iccHeader, []byte{byte(i + 1), byte(n)}, chunk)
			if err != nil {
				break
			}
		}
	}
	if m.IPTC != nil {
		out, _ = appendSegment(out, markerAPP13, m.IPTC)
	}
	return out
}
