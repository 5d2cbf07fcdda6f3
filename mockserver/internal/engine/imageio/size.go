package imageio

import (
	"bufio"
	"image"
	"image/jpeg"
	"image/png"
	"os"
)

// HeaderSize returns the size of the JPEG or PNG at path, read from its
// header only (what admitting a job against a pixel budget needs before
// the image is decoded); 0, 0 when it is not one or the header does not
// parse.
func HeaderSize(path string) (width, height int) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.ReadAt(head, 0)
	format, ok := Sniff(head[:n])
	if !ok {
		return 0, 0
	}
	var cfg image.Config
	r := bufio.NewReader(f)
	if format == FormatJPEG {
		cfg, err = jpeg.DecodeConfig(r)
	} else {
		cfg, err = png.DecodeConfig(r)
	}
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}
