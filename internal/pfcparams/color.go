package pfcparams

import (
	"image/color"
	"strings"

	"golang.org/x/image/colornames"
)

// ParseColor parses a bgColor value: exactly "#rrggbb" (hex digits in
// either case) or a CSS named colour (the SVG 1.1 names of
// golang.org/x/image/colornames plus "rebeccapurple"), in any case;
// "transparent" yields the zero colour. It returns why s is refused, or
// "".
func ParseColor(s string) (color.NRGBA, string) {
	if strings.HasPrefix(s, "#") {
		const why = "want #rrggbb with exactly 6 hex digits"
		if len(s) != 7 {
			return color.NRGBA{}, why
		}
		var rgb [3]uint8
		for i := range rgb {
			hi, okHi := hexDigit(s[1+2*i])
			lo, okLo := hexDigit(s[2+2*i])
			if !okHi || !okLo {
				return color.NRGBA{}, why
			}
			rgb[i] = hi<<4 | lo
		}
		return color.NRGBA{R: rgb[0], G: rgb[1], B: rgb[2], A: 0xff}, ""
	}
	name := strings.ToLower(s)
	if name == ColorTransparent {
		return color.NRGBA{}, ""
	}
	if name == "rebeccapurple" {
		// CSS Color 4 added this name; colornames holds the older SVG list.
		return color.NRGBA{R: 0x66, G: 0x33, B: 0x99, A: 0xff}, ""
	}
	if c, ok := colornames.Map[name]; ok {
		// colornames values are opaque, so RGBA and NRGBA coincide.
		return color.NRGBA(c), ""
	}
	return color.NRGBA{}, "want #rrggbb or a CSS color name"
}

func hexDigit(c byte) (uint8, bool) {
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
