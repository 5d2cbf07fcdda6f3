package imageio

import (
	"image"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/internal/parallel"
)

// Orient returns img transformed so that a picture stored with EXIF
// orientation o is upright: 2 mirrors horizontally, 3 rotates 180°, 4
// mirrors vertically, 5 transposes, 6 rotates 90° clockwise, 7
// transverses, 8 rotates 90° counter-clockwise. 1 and values outside 1..8
// return img itself. 5-8 swap width and height. The result has origin
// (0,0); for 2-8 it is a new image.
func Orient(img *image.NRGBA, o int) *image.NRGBA {
	if o < 2 || o > 8 {
		return img
	}
	sw, sh := img.Rect.Dx(), img.Rect.Dy()
	dw, dh := sw, sh
	if o >= 5 {
		dw, dh = sh, sw
	}
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	base := img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y)
	// Destination pixel (x,y) reads source pixel (x0 + x*dxX + y*dxY,
	// y0 + x*dyX + y*dyY): an affine map per orientation.
	var x0, y0, dxX, dxY, dyX, dyY int
	switch o {
	case 2: // mirror horizontally
		x0, dxX, dyY = sw-1, -1, 1
	case 3: // rotate 180
		x0, y0, dxX, dyY = sw-1, sh-1, -1, -1
	case 4: // mirror vertically
		y0, dxX, dyY = sh-1, 1, -1
	case 5: // transpose
		dxY, dyX = 1, 1
	case 6: // rotate 90 clockwise
		y0, dxY, dyX = sh-1, 1, -1
	case 7: // transverse
		x0, y0, dxY, dyX = sw-1, sh-1, -1, -1
	case 8: // rotate 90 counter-clockwise
		x0, dxY, dyX = sw-1, -1, 1
	}
	// Tiles keep the column walks of 5-8 inside the cache.
	const tile = 64
	tilesY := (dh + tile - 1) / tile
	parallel.Rows(tilesY, func(t0, t1 int) {
		for ty := t0 * tile; ty < min(t1*tile, dh); ty += tile {
			for tx := 0; tx < dw; tx += tile {
				for y := ty; y < min(ty+tile, dh); y++ {
					drow := dst.Pix[y*dst.Stride:]
					for x := tx; x < min(tx+tile, dw); x++ {
						sx := x0 + x*dxX + y*dxY
						sy := y0 + x*dyX + y*dyY
						s := img.Pix[base+sy*img.Stride+sx*4:]
						d := drow[x*4 : x*4+4 : x*4+4]
						d[0], d[1], d[2], d[3] = s[0], s[1], s[2], s[3]
					}
				}
			}
		}
	})
	return dst
}
