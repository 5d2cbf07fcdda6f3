package imageio

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeICC returns n bytes that look nothing like their neighbours, so any
// reordering or loss of a chunk shows.
func fakeICC(n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(int64(n))).Read(b)
	binary.BigEndian.PutUint32(b, uint32(n)) // the profile size field
	copy(b[36:], "acsp")
	return b
}

func iccSegments(prof []byte, order []int) [][]byte {
	n := (len(prof) + maxICCChunk - 1) / maxICCChunk
	if order == nil {
		for i := 0; i < n; i++ {
			order = append(order, i)
		}
	}
	var segs [][]byte
	for _, i := range order {
		chunk := prof[i*maxICCChunk : min((i+1)*maxICCChunk, len(prof))]
		segs = append(segs, segment(markerAPP2, iccHeader, []byte{byte(i + 1), byte(n)}, chunk))
	}
	return segs
}

var (
	testXMP    = []byte(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmp:Rating="4" xmlns:xmp="http://ns.adobe.com/xap/1.0/"/></rdf:RDF></x:xmpmeta>`)
	testXMPExt = append([]byte("0123456789ABCDEF0123456789ABCDEF\x00\x00\x00\x05\x00\x00\x00\x00"), "hello"...)
	testIPTC   = append(append([]byte{}, iptcHeader...), "8BIM\x04\x04\x00\x00\x00\x00\x00\x09\x1c\x02\x78\x00\x04test\x00"...)
)

func richJPEG(t testing.TB, m image.Image, exif, icc []byte, iccOrder []int) []byte {
	segs := [][]byte{
		segment(markerAPP1, exifHeader, exif),
		segment(markerAPP1, xmpHeader, testXMP),
		segment(markerAPP1, xmpExtHeader, testXMPExt),
	}
	segs = append(segs, iccSegments(icc, iccOrder)...)
	segs = append(segs, segment(markerAPP13, testIPTC))
	return withSegments(stdJPEG(t, m, 90), segs...)
}

func TestMetadataSurvivesJPEGRoundTrip(t *testing.T) {
	t.Parallel()
	icc := fakeICC(70_000) // two APP2 chunks
	exif := tiffBuilder{order: binary.BigEndian, ifd0: map[uint16]uint16{0x0131: 7}}.build()
	src := richJPEG(t, naturalImage(80, 60, 1), exif, icc, []int{1, 0}) // chunks out of order

	img, err := Decode(bytes.NewReader(src), HostedLimits)
	require.NoError(t, err)
	assert.Equal(t, FormatJPEG, img.Format)
	assert.Equal(t, int64(len(src)), img.Size)
	assert.Equal(t, icc, img.Meta.ICC)
	assert.Equal(t, exif, img.Meta.EXIF)
	assert.Equal(t, testXMP, img.Meta.XMP)
	assert.Equal(t, [][]byte{testXMPExt}, img.Meta.XMPExtension)
	assert.Equal(t, testIPTC, img.Meta.IPTC)
	assert.False(t, img.Meta.Empty())

	var out bytes.Buffer
	require.NoError(t, Encode(&out, img.Pix, EncodeOptions{Format: FormatJPEG, Meta: &img.Meta}))
	again, err := Decode(bytes.NewReader(out.Bytes()), HostedLimits)
	require.NoError(t, err)
	assert.Equal(t, img.Meta, again.Meta, "metadata must survive byte-identical")

	// The APP2 chunks are written in order, 65519 profile bytes each.
	segs := jpegSegments(t, out.Bytes())
	var app2 [][]byte
	for _, s := range segs {
		if s[1] == markerAPP2 {
			app2 = append(app2, s)
		}
	}
	require.Len(t, app2, 2)
	assert.Equal(t, []byte{1, 2}, app2[0][4+len(iccHeader):4+len(iccHeader)+2])
	assert.Equal(t, []byte{2, 2}, app2[1][4+len(iccHeader):4+len(iccHeader)+2])
	assert.Len(t, app2[0], 4+len(iccHeader)+2+65519)
	// Exif comes right after SOI; no JFIF APP0 alongside it.
	assert.Equal(t, byte(markerAPP1), segs[0][1])
	assert.True(t, bytes.HasPrefix(segs[0][4:], exifHeader))
}

func TestMetadataSurvivesPNGRoundTrip(t *testing.T) {
	t.Parallel()
	icc := fakeICC(70_000)
	exif := exifWithOrientation(binary.LittleEndian, 1)
	text := []PNGChunk{{Type: "tEXt", Data: []byte("Comment\x00hello")}, {Type: "iTXt", Data: []byte("Title\x00\x00\x00en\x00\x00Bonjour")}}
	meta := &Metadata{EXIF: exif, ICC: icc, XMP: testXMP, PNGText: text}

	var out bytes.Buffer
	require.NoError(t, Encode(&out, naturalImage(70, 50, 3), EncodeOptions{Format: FormatPNG, Meta: meta}))
	img, err := Decode(bytes.NewReader(out.Bytes()), HostedLimits)
	require.NoError(t, err)
	assert.Equal(t, FormatPNG, img.Format)
	assert.Equal(t, *meta, img.Meta)

	// And a second trip through PNG, then JPEG.
	var out2 bytes.Buffer
	require.NoError(t, Encode(&out2, img.Pix, EncodeOptions{Format: FormatPNG, Meta: &img.Meta}))
	again, err := Decode(bytes.NewReader(out2.Bytes()), HostedLimits)
	require.NoError(t, err)
	assert.Equal(t, *meta, again.Meta)

	var out3 bytes.Buffer
	require.NoError(t, Encode(&out3, img.Pix, EncodeOptions{Format: FormatJPEG, Meta: &img.Meta}))
	j, err := Decode(bytes.NewReader(out3.Bytes()), HostedLimits)
	require.NoError(t, err)
	assert.Equal(t, Metadata{EXIF: exif, ICC: icc, XMP: testXMP}, j.Meta, "PNG text chunks are not written to JPEG")
}

func TestPNGReadsCompressedXMPAndIgnoresBadCRC(t *testing.T) {
	t.Parallel()
	var z bytes.Buffer
	zw := newZlib(&z)
	zw.Write(testXMP)
	zw.Close()
	chunks := appendChunk(nil, "iTXt", []byte(xmpKeyword+"\x00\x01\x00\x00\x00"), z.Bytes())
	bad := appendChunk(nil, "tEXt", []byte("Comment\x00x"))
	bad[len(bad)-1] ^= 1
	// image/png rejects bad CRCs in chunks it reads; a damaged ancillary
	// chunk it skips must not become metadata.
	meta := readPNGMeta(pngWithChunks(t, naturalImage(40, 40, 1), append(chunks, bad...)))
	assert.Equal(t, testXMP, meta.XMP)
	assert.Nil(t, meta.PNGText)
}

func TestStripAllMetadata(t *testing.T) {
	t.Parallel()
	src := richJPEG(t, naturalImage(80, 60, 1), exifWithOrientation(binary.LittleEndian, 6), fakeICC(1000), nil)
	img, err := Decode(bytes.NewReader(src), HostedLimits)
	require.NoError(t, err)
	for _, f := range []Format{FormatJPEG, FormatPNG} {
		var out bytes.Buffer
		require.NoError(t, Encode(&out, img.Pix, EncodeOptions{Format: f}))
		again, err := Decode(bytes.NewReader(out.Bytes()), HostedLimits)
		require.NoError(t, err)
		assert.True(t, again.Meta.Empty(), "%s: %+v", f, again.Meta)
	}
	var out bytes.Buffer
	require.NoError(t, Encode(&out, img.Pix, EncodeOptions{Format: FormatJPEG}))
	assert.Equal(t, jfifAPP0, out.Bytes()[2:2+len(jfifAPP0)], "JPEG without EXIF starts with JFIF")
}

func TestICCWithMissingChunkIsDropped(t *testing.T) {
	t.Parallel()
	icc := fakeICC(140_000) // three chunks
	segs := iccSegments(icc, []int{0, 2})
	data := withSegments(stdJPEG(t, naturalImage(40, 40, 1), 90), segs...)
	img, err := Decode(bytes.NewReader(data), HostedLimits)
	require.NoError(t, err)
	assert.Nil(t, img.Meta.ICC)

	dup := iccSegments(icc, []int{0, 1, 1, 2})
	img, err = Decode(bytes.NewReader(withSegments(stdJPEG(t, naturalImage(40, 40, 1), 90), dup...)), HostedLimits)
	require.NoError(t, err)
	assert.Nil(t, img.Meta.ICC)
}

func TestEXIFPixelDimensionsUpdated(t *testing.T) {
	t.Parallel()
	for _, short := range []bool{false, true} {
		exif := tiffBuilder{order: binary.LittleEndian, ifd0: map[uint16]uint16{tagOrientation: 6}, pixelDims: [2]uint32{40, 80}, dimsShort: short}.build()
		var out bytes.Buffer
		require.NoError(t, Encode(&out, naturalImage(123, 45, 1), EncodeOptions{Format: FormatJPEG, Meta: &Metadata{EXIF: exif}}))
		img, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
		require.NoError(t, err)
		tf, ok := parseTIFF(img.Meta.EXIF)
		require.True(t, ok)
		off, _ := tf.ifd0()
		d0, _ := tf.readIFD(off)
		e, _ := tf.find(d0, tagExifIFD)
		p, _ := tf.scalar(e)
		sub, ok := tf.readIFD(int(p))
		require.True(t, ok)
		ex, _ := tf.find(sub, tagPixelXDimension)
		ey, _ := tf.find(sub, tagPixelYDimension)
		x, _ := tf.scalar(ex)
		y, _ := tf.scalar(ey)
		assert.Equal(t, []uint32{123, 45}, []uint32{x, y}, "short=%v", short)
		assert.Equal(t, 1, EXIFOrientation(img.Meta.EXIF))
		assert.Len(t, img.Meta.EXIF, len(exif), "rewritten in place")
	}
}

func TestMalformedEXIFIsDropped(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, Encode(&out, naturalImage(40, 40, 1), EncodeOptions{Format: FormatJPEG, Meta: &Metadata{EXIF: []byte("II*\x00\xff\xff\x00\x00junk"), XMP: testXMP}}))
	img, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
	require.NoError(t, err)
	assert.Nil(t, img.Meta.EXIF)
	assert.Equal(t, testXMP, img.Meta.XMP)
}

func solidJPEG(t testing.TB, w, h int, c color.NRGBA) []byte {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return stdJPEG(t, m, 80)
}

// newPicture is what the corrected output looks like: blue, unlike the
// red original thumbnail. 320×200: its 160×100 thumbnail is a downscale,
// as of a full-size photo; a larger picture only costs encoding time.
func newPicture() *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, 320, 200))
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = 20, 40, 230, 255
	}
	return m
}

func checkThumbnail(t *testing.T, exif []byte, wantW, wantH int) {
	t.Helper()
	thumb := EXIFThumbnail(exif)
	require.NotNil(t, thumb)
	m, err := jpeg.Decode(bytes.NewReader(thumb))
	require.NoError(t, err, "the thumbnail must be a decodable JPEG")
	assert.Equal(t, image.Rect(0, 0, wantW, wantH), m.Bounds())
	r, g, b, _ := m.At(wantW/2, wantH/2).RGBA()
	assert.InDelta(t, 20, int(r>>8), 8)
	assert.InDelta(t, 40, int(g>>8), 8)
	assert.InDelta(t, 230, int(b>>8), 8)
}

func TestUpdateThumbnail(t *testing.T) {
	t.Parallel()
	oldThumb := solidJPEG(t, 160, 120, color.NRGBA{220, 10, 10, 255})
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		exif := tiffBuilder{order: order, ifd0: map[uint16]uint16{tagOrientation: 1}, thumbnail: oldThumb}.build()
		meta := &Metadata{EXIF: exif}
		for _, f := range []Format{FormatJPEG, FormatPNG} {
			var out bytes.Buffer
			require.NoError(t, Encode(&out, newPicture(), EncodeOptions{Format: f, Meta: meta, UpdateThumbnail: true}))
			img, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
			require.NoError(t, err)
			checkThumbnail(t, img.Meta.EXIF, 160, 100)

			// Without the option the old thumbnail is kept as it was.
			out.Reset()
			require.NoError(t, Encode(&out, newPicture(), EncodeOptions{Format: f, Meta: meta}))
			img, err = Decode(bytes.NewReader(out.Bytes()), Limits{})
			require.NoError(t, err)
			assert.Equal(t, oldThumb, EXIFThumbnail(img.Meta.EXIF))
		}
	}
}

func TestUpdateThumbnailNotAtEnd(t *testing.T) {
	t.Parallel()
	// A small old thumbnail followed by other data: the new one cannot
	// replace it in place and is appended; everything else stays put.
	oldThumb := solidJPEG(t, 8, 8, color.NRGBA{220, 10, 10, 255})
	exif := tiffBuilder{order: binary.LittleEndian, ifd0: map[uint16]uint16{tagOrientation: 3}, thumbnail: oldThumb}.build()
	exif = append(exif, []byte("trailing maker-note bytes")...)
	var out bytes.Buffer
	require.NoError(t, Encode(&out, newPicture(), EncodeOptions{Format: FormatJPEG, Meta: &Metadata{EXIF: exif}, UpdateThumbnail: true}))
	img, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
	require.NoError(t, err)
	checkThumbnail(t, img.Meta.EXIF, 160, 100)
	assert.True(t, bytes.HasPrefix(img.Meta.EXIF[len(exif)-25:], []byte("trailing maker-note bytes")))
	assert.Equal(t, 1, EXIFOrientation(img.Meta.EXIF))
}

func TestUpdateThumbnailWithoutIFD1AddsNone(t *testing.T) {
	t.Parallel()
	exif := exifWithOrientation(binary.LittleEndian, 1)
	var out bytes.Buffer
	require.NoError(t, Encode(&out, newPicture(), EncodeOptions{Format: FormatJPEG, Meta: &Metadata{EXIF: exif}, UpdateThumbnail: true}))
	img, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
	require.NoError(t, err)
	assert.Equal(t, exif, img.Meta.EXIF)
	assert.Nil(t, EXIFThumbnail(img.Meta.EXIF))
}

func TestUpdateThumbnailThatCannotFitIsUnlinked(t *testing.T) {
	t.Parallel()
	// The EXIF block is nearly the whole 64 KiB APP1 and the old thumbnail is
	// tiny and not at the end: no new thumbnail fits, so IFD1 is unlinked
	// rather than left pointing at a stale picture.
	oldThumb := solidJPEG(t, 8, 8, color.NRGBA{220, 10, 10, 255})
	exif := tiffBuilder{order: binary.BigEndian, ifd0: map[uint16]uint16{tagOrientation: 8}, thumbnail: oldThumb}.build()
	exif = append(exif, make([]byte, maxSegmentPayload-len(exifHeader)-len(exif)-100)...)
	noisy := naturalImage(640, 400, 9)
	var out bytes.Buffer
	require.NoError(t, Encode(&out, noisy, EncodeOptions{Format: FormatJPEG, Meta: &Metadata{EXIF: exif}, UpdateThumbnail: true}))
	img, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
	require.NoError(t, err)
	require.NotNil(t, img.Meta.EXIF)
	assert.Nil(t, EXIFThumbnail(img.Meta.EXIF))
	assert.Equal(t, 1, EXIFOrientation(img.Meta.EXIF))
	assert.Len(t, img.Meta.EXIF, len(exif))
}

// jpegSegments lists the marker segments before SOS, each with its marker.
func jpegSegments(t *testing.T, b []byte) [][]byte {
	var segs [][]byte
	p := 2
	for p+4 <= len(b) && b[p+1] != markerSOS {
		n := int(binary.BigEndian.Uint16(b[p+2:]))
		segs = append(segs, b[p:p+2+n])
		p += 2 + n
	}
	require.Less(t, p+4, len(b))
	return segs
}

func TestUpdateThumbnailInPlace(t *testing.T) {
	t.Parallel()
	// A large old thumbnail followed by other data: the new (smaller) one
	// overwrites it in place and the payload keeps its size.
	oldThumb := stdJPEG(t, naturalImage(160, 120, 4), 100)
	exif := tiffBuilder{order: binary.BigEndian, ifd0: map[uint16]uint16{tagOrientation: 1}, thumbnail: oldThumb}.build()
	exif = append(exif, []byte("trailing maker-note bytes")...)
	var out bytes.Buffer
	require.NoError(t, Encode(&out, newPicture(), EncodeOptions{Format: FormatJPEG, Meta: &Metadata{EXIF: exif}, UpdateThumbnail: true}))
	img, err := Decode(bytes.NewReader(out.Bytes()), Limits{})
	require.NoError(t, err)
	checkThumbnail(t, img.Meta.EXIF, 160, 100)
	assert.Len(t, img.Meta.EXIF, len(exif))
	assert.True(t, bytes.HasSuffix(img.Meta.EXIF, []byte("trailing maker-note bytes")))
}
