package faces

import (
	"image/color"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedEye(t *testing.T) {
	t.Parallel()
	img := loadAstronaut(t)
	faces := detectAstronaut(t)
	require.Len(t, faces, 1)
	assert.Equal(t, RedEyeNone, RedEye(img, faces))
	assert.Equal(t, RedEyeNone, RedEye(img, nil))
	assert.Equal(t, RedEyeNone, RedEye(nil, faces))

	synth, f := syntheticFace()
	assert.Equal(t, RedEyeNone, RedEye(synth, []Face{f}), "brown irises are not red")

	red := cloneNRGBA(img)
	paintDisk(red, faces[0].RightEye.X, faces[0].RightEye.Y, 3, color.NRGBA{200, 40, 45, 255})
	assert.Equal(t, RedEyeDetected, RedEye(red, faces))

	paintDisk(synth, f.LeftEye.X, f.LeftEye.Y, 5, color.NRGBA{170, 30, 30, 255})
	assert.Equal(t, RedEyeDetected, RedEye(synth, []Face{f}))
}
