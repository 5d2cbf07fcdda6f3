package hostedsvc

import (
	"image/color"
	"strings"

	"golang.org/x/image/colornames"
)

// parseColor parses a bgColor value as the API documentation defines it,
// independently of the client's reading: "#rrggbb" (six hex digits, either
// case) or a CSS named colour, matched without regard to case.
// "transparent", the documented default, is the zero colour. The CSS names
// are the SVG 1.1 list of golang.org/x/image/colornames plus CSS Color 4's
// "rebeccapurple".
func parseColor(s string) (color.NRGBA, bool) {
	if hex, ok := strings.CutPrefix(s, "#"); ok {
		if len(hex) != 6 {
			return color.NRGBA{}, false
		}
		var rgb [3]uint8
		for i := range 6 {
			d, ok := hexValue(hex[i])
			if !ok {
				return color.NRGBA{}, false
			}
			rgb[i/2] = rgb[i/2]<<4 | d
		}
		return color.NRGBA{R: rgb[0], G: rgb[1], B: rgb[2], A: 0xff}, true
	}
	switch name := strings.ToLower(s); name {
	case "transparent":
		return color.NRGBA{}, true
	case "rebeccapurple":
		return color.NRGBA{R: 0x66, G: 0x33, B: 0x99, A: 0xff}, true
	default:
		// colornames values are opaque, so RGBA and NRGBA coincide.
		c, ok := colornames.Map[name]
		return color.NRGBA(c), ok
	}
}

// hexValue is the value of the hex digit c.
func hexValue(c byte) (uint8, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
