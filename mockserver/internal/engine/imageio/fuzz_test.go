package imageio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// fuzzLimits keep the fuzzer's allocations small.
var fuzzLimits = Limits{PixelsBelow: 1 << 16}

func FuzzDecode(f *testing.F) {
	small := naturalImage(24, 16, 1)
	jpg := stdJPEG(f, small, 80)
	rich := richJPEG(f, small, tiffBuilder{order: binary.LittleEndian, ifd0: map[uint16]uint16{tagOrientation: 6}, thumbnail: jpg}.build(), fakeICC(300), nil)
	var pngBuf bytes.Buffer
	if err := Encode(&pngBuf, small, EncodeOptions{Format: FormatPNG, Meta: &Metadata{EXIF: exifWithOrientation(binary.BigEndian, 5), ICC: fakeICC(200), XMP: testXMP}}); err != nil {
		f.Fatal(err)
	}
	var strips bytes.Buffer
	if err := Encode(&strips, naturalImage(600, 40, 2), EncodeOptions{Format: FormatJPEG, Quality: 50}); err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{jpg, rich, pngBuf.Bytes(), strips.Bytes(), jpg[:len(jpg)/2], rich[:300], cmykJPEG(), nil, []byte("GIF89a")} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Decode(bytes.NewReader(data), fuzzLimits)
		if err != nil {
			if !errors.Is(err, ErrRejected) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error is neither a rejection nor corruption: %v", err)
			}
			return
		}
		if img.Pix == nil || img.Pix.Rect.Empty() {
			t.Fatal("no pixels without an error")
		}
		// Whatever metadata was read must be writable again.
		for _, format := range []Format{FormatJPEG, FormatPNG} {
			if err := Encode(io.Discard, img.Pix, EncodeOptions{Format: format, Meta: &img.Meta, UpdateThumbnail: true}); err != nil {
				t.Fatalf("re-encode %s: %v", format, err)
			}
		}
	})
}
