package hosted_test

import (
	"image/color"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/colornames"

	"github.com/pfcsdk/pfc-go/hosted"
)

func TestParseColor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    color.NRGBA
		wantErr bool
	}{
		{in: "#000000", want: color.NRGBA{A: 255}},
		{in: "#ffffff", want: color.NRGBA{R: 255, G: 255, B: 255, A: 255}},
		{in: "#FF8800", want: color.NRGBA{R: 255, G: 136, A: 255}},
		{in: "#1a2B3c", want: color.NRGBA{R: 0x1a, G: 0x2b, B: 0x3c, A: 255}},
		{in: "red", want: color.NRGBA{R: 255, A: 255}},
		{in: "Navy", want: color.NRGBA{B: 128, A: 255}},
		{in: "REBECCAPURPLE", want: color.NRGBA{R: 102, G: 51, B: 153, A: 255}},
		{in: "transparent", want: color.NRGBA{}},
		{in: "Transparent", want: color.NRGBA{}},
		{in: "", wantErr: true},
		{in: "#", wantErr: true},
		{in: "#fff", wantErr: true},
		{in: "#fffffff", wantErr: true},
		{in: "#ffffffff", wantErr: true},
		{in: "#gggggg", wantErr: true},
		{in: "#12 456", wantErr: true},
		{in: "ffffff", wantErr: true},
		{in: " red", wantErr: true},
		{in: "red ", wantErr: true},
		{in: "rgb(1,2,3)", wantErr: true},
		{in: "blurple", wantErr: true},
		{in: "#éééé", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := hosted.ParseColor(tt.in)
			if tt.wantErr {
				require.ErrorIs(t, err, hosted.ErrInvalidColor)
				assert.True(t, strings.HasPrefix(err.Error(), "pfc: invalid color"), err.Error())
				assert.Equal(t, color.NRGBA{}, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseColorEveryCSSName(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, colornames.Names)
	for _, name := range colornames.Names {
		want := colornames.Map[name]
		for _, in := range []string{name, strings.ToUpper(name)} {
			got, err := hosted.ParseColor(in)
			require.NoError(t, err, in)
			assert.Equal(t, color.NRGBA{R: want.R, G: want.G, B: want.B, A: 255}, got, in)
		}
	}
}
