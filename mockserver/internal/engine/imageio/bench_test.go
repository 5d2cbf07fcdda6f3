package imageio

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"io"
	"sync"
	"testing"
)

var (
	bench12MPOnce sync.Once
	bench12MP     *image.NRGBA
)

func image12MP() *image.NRGBA {
	bench12MPOnce.Do(func() { bench12MP = naturalImage(4000, 3000, 1) })
	return bench12MP
}

// BenchmarkDecodeJPEG12MP decodes a 4000x3000 q90 JPEG made by image/jpeg
// (no restart markers, as most cameras and editors write them).
func BenchmarkDecodeJPEG12MP(b *testing.B) {
	data := stdJPEG(b, image12MP(), 90)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(bytes.NewReader(data), HostedLimits); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkEncodeJPEG12MP encodes 4000x3000 at quality 90.
func BenchmarkEncodeJPEG12MP(b *testing.B) {
	img := image12MP()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if err := Encode(io.Discard, img, EncodeOptions{Format: FormatJPEG, Quality: 90}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkEncodePNG12MP encodes 4000x3000 opaque as PNG.
func BenchmarkEncodePNG12MP(b *testing.B) {
	img := image12MP()
	var size int
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := Encode(&buf, img, EncodeOptions{Format: FormatPNG}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(size), "bytes")
}

// BenchmarkDecodeJPEG12MPOwnOutput decodes this package's own 12 MP output
// (restart markers, EXIF), as when a corrected file is processed again.
func BenchmarkDecodeJPEG12MPOwnOutput(b *testing.B) {
	var buf bytes.Buffer
	if err := Encode(&buf, image12MP(), EncodeOptions{Format: FormatJPEG, Quality: 90}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(bytes.NewReader(data), HostedLimits); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkDecodeRotateJPEG12MP decodes a 12 MP JPEG with orientation 6.
func BenchmarkDecodeRotateJPEG12MP(b *testing.B) {
	data := withSegments(stdJPEG(b, image12MP(), 90), segment(markerAPP1, exifHeader, exifWithOrientation(binary.LittleEndian, 6)))
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(bytes.NewReader(data), HostedLimits); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkStdlibEncodeJPEG12MP is image/jpeg alone on one core, for
// comparison with BenchmarkEncodeJPEG12MP.
func BenchmarkStdlibEncodeJPEG12MP(b *testing.B) {
	img := image12MP()
	rgba := &image.RGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if err := jpeg.Encode(io.Discard, rgba, &jpeg.Options{Quality: 90}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkEncodeJPEG12MPWithMetadata adds EXIF with a thumbnail update,
// XMP and a 70 KB ICC profile.
func BenchmarkEncodeJPEG12MPWithMetadata(b *testing.B) {
	img := image12MP()
	thumb := stdJPEG(b, naturalImage(160, 120, 2), 80)
	meta := &Metadata{
		EXIF: tiffBuilder{order: binary.LittleEndian, ifd0: map[uint16]uint16{tagOrientation: 1}, thumbnail: thumb}.build(),
		XMP:  testXMP,
		ICC:  fakeICC(70_000),
	}
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if err := Encode(io.Discard, img, EncodeOptions{Format: FormatJPEG, Quality: 90, Meta: meta, UpdateThumbnail: true}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}
