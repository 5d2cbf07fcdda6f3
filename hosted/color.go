package hosted

import (
	"errors"
	"fmt"
	"image/color"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// ErrInvalidColor is wrapped by every ParseColor error.
var ErrInvalidColor = errors.New("pfc: invalid color")

// ColorTransparent is the bgColor value the service documents as its
// default, "transparent": a transparent background.
const ColorTransparent = pfcparams.ColorTransparent

// ParseColor parses a bgColor value: exactly "#rrggbb" (hex digits in
// either case) or a CSS named colour such as "navy" (the SVG 1.1 names of
// golang.org/x/image/colornames plus "rebeccapurple"), matched without
// regard to case. "transparent", the documented default, yields the zero
// (fully transparent) colour. Surrounding spaces, "#rgb" and "#rrggbbaa"
// are rejected because the service documents only the two forms above.
func ParseColor(s string) (color.NRGBA, error) {
	c, why := pfcparams.ParseColor(s)
	if why != "" {
		return color.NRGBA{}, fmt.Errorf("%w %q: %s", ErrInvalidColor, s, why)
	}
	return c, nil
}
