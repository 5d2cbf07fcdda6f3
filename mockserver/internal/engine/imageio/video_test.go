package imageio

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
)

func ftyp(major string, compat ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(16+4*len(compat)))
	b = append(b, "ftyp"+major+"\x00\x00\x02\x00"...)
	for _, c := range compat {
		b = append(b, c...)
	}
	return append(b, "\x00\x00\x00\x08free"...)
}

func TestSniffVideo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		head      []byte
		container string
	}{
		{"isom", ftyp("isom", "isom", "iso2", "avc1", "mp41"), ContainerMP4},
		{"mp42", ftyp("mp42", "mp42", "isom"), ContainerMP4},
		{"mp41", ftyp("mp41"), ContainerMP4},
		{"M4V", ftyp("M4V ", "M4V ", "M4A ", "mp42", "isom"), ContainerMP4},
		{"avc1", ftyp("avc1"), ContainerMP4},
		{"quicktime", ftyp("qt  ", "qt  "), ContainerMOV},
		{"unknown major, mp4 compatible", ftyp("XAVC", "XAVC", "mp42", "iso2"), ContainerMP4},
		{"3gp compatible with isom", ftyp("3gp4", "isom", "3gp4"), ContainerMP4},
		{"old quicktime moov", []byte("\x00\x00\x01\x00moov\x00\x00"), ContainerMOV},
		{"old quicktime mdat", []byte("\x00\x00\x00\x00mdat"), ContainerMOV},
		{"old quicktime wide", []byte("\x00\x00\x00\x08widexxxx"), ContainerMOV},
		{"heic", ftyp("heic", "mif1", "heic"), ""},
		{"avif", ftyp("avif", "avif", "mif1", "miaf", "isom"), ""},
		{"m4a audio", ftyp("M4A ", "M4A ", "mp42", "isom"), ""},
		{"unknown brand only", ftyp("abcd", "efgh"), ""},
		{"jpeg", []byte{0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F', 'I', 'F', 0, 1}, ""},
		{"short", []byte("\x00\x00\x00"), ""},
		{"ftyp too short", []byte("\x00\x00\x00\x18ftyp"), ""},
		{"bad moov size", []byte("\x00\x00\x00\x04moov"), ""},
		{"text", []byte("hello world, not a video"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := SniffVideo(tt.head)
			assert.Equal(t, tt.container != "", ok)
			assert.Equal(t, tt.container, c)
		})
	}
}
