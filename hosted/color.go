package hosted

import (
	"errors"
	"fmt"
	"image/color"
	"strings"

	"golang.org/x/image/colornames"
)

// ErrInvalidColor is wrapped by every ParseColor error.
var ErrInvalidColor = errors.New("pfc: invalid color")

// ColorTransparent is the bgColor value the service documents as its
// default: a transparent background.
const ColorTransparent = "transparent"

// ParseColor parses a bgColor value: exactly "#rrggbb" (hex digits in
// either case) or a CSS named colour such as "navy" (the SVG 1.1 names of
// golang.org/x/image/colornames plus "rebeccapurple"), matched without
// regard to case. "transparent", the documented default, yields the zero
// (fully transparent) colour. Surrounding spaces, "#rgb" and "#rrggbbaa"
// are rejected because the service documents only the two forms above.
func ParseColor(s string) (color.NRGBA, error) {
	if strings.HasPrefix(s, "#") {
		if len(s) != 7 {
			return color.NRGBA{}, fmt.Errorf("%w %q: want #rrggbb with exactly 6 hex digits", ErrInvalidColor, s)
		}
		var rgb [3]uint8
		for i := range rgb {
			hi, okHi := hexDigit(s[1+2*i])
			lo, okLo := hexDigit(s[2+2*i])
			if !okHi || !okLo {
				return color.NRGBA{}, fmt.Errorf("%w %q: want #rrggbb with exactly 6 hex digits", ErrInvalidColor, s)
			}
			rgb[i] = hi<<4 | lo
		}
		return color.NRGBA{R: rgb[0], G: rgb[1], B: rgb[2], A: 0xff}, nil
	}
	name := strings.ToLower(s)
	if name == ColorTransparent {
		return color.NRGBA{}, nil
	}
	if name == "rebeccapurple" {
		// CSS Color 4 added this name; colornames holds the older SVG list.
		return color.NRGBA{R: 0x66, G: 0x33, B: 0x99, A: 0xff}, nil
	}
	if c, ok := colornames.Map[name]; ok {
		// colornames values are opaque, so RGBA and NRGBA coincide.
		return color.NRGBA(c), nil
	}
	return color.NRGBA{}, fmt.Errorf("%w %q: want #rrggbb or a CSS color name", ErrInvalidColor, s)
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
