package imageio

import (
	"bytes"
	"strings"
)

// Format is an image file format.
type Format string

// The supported formats.
const (
	FormatJPEG Format = "jpeg"
	FormatPNG  Format = "png"
)

// ParseFormat maps a format name as the APIs spell it ("jpg", "jpeg",
// "JPEG", "png", "PNG", also MIME types "image/jpeg", "image/png") to a
// Format.
func ParseFormat(s string) (Format, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "jpg", "jpeg", "image/jpeg", "image/jpg":
		return FormatJPEG, true
	case "png", "image/png":
		return FormatPNG, true
	}
	return "", false
}

// MIMEType returns the format's media type.
func (f Format) MIMEType() string {
	switch f {
	case FormatJPEG:
		return "image/jpeg"
	case FormatPNG:
		return "image/png"
	}
	return "application/octet-stream"
}

// Extension returns the usual file extension, with the dot.
func (f Format) Extension() string {
	switch f {
	case FormatJPEG:
		return ".jpg"
	case FormatPNG:
		return ".png"
	}
	return ""
}

var (
	jpegMagic = []byte{0xff, 0xd8, 0xff}
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
)

// sniffLen is how many leading bytes Sniff and describeUnknown look at.
const sniffLen = 16

// Sniff identifies a JPEG or PNG from its first bytes.
func Sniff(head []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(head, jpegMagic):
		return FormatJPEG, true
	case bytes.HasPrefix(head, pngMagic):
		return FormatPNG, true
	}
	return "", false
}

// describeUnknown names common formats that are not accepted, for the
// rejection detail.
func describeUnknown(head []byte) string {
	switch {
	case len(head) == 0:
		return "empty input"
	case bytes.HasPrefix(head, []byte("GIF8")):
		return "GIF is not supported (JPEG or PNG only)"
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return "WebP is not supported (JPEG or PNG only)"
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return "TIFF is not supported (JPEG or PNG only)"
	case bytes.HasPrefix(head, []byte("BM")):
		return "BMP is not supported (JPEG or PNG only)"
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		if c, ok := SniffVideo(head); ok {
			return "a " + c + " video is not an image"
		}
		return "HEIF/AVIF is not supported (JPEG or PNG only)"
	}
	return "not a JPEG or PNG image"
}
