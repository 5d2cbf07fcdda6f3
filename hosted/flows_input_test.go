package hosted

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestCorrectValidatesBeforeUpload(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	_, err := c.Correct(context.Background(), strings.NewReader("x"), 1, &CorrectionOptions{Scale: -5}, io.Discard, nil)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []string{"scale"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestCorrectRejectsBadSourceWithoutPanicking(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	var ve *pfc.ValidationError
	_, err := c.Correct(context.Background(), nil, -1, nil, io.Discard, nil)
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"src", "size"}, ve.Fields())
	// A nil *bytes.Reader in the interface is no source either: reading
	// it would panic.
	_, err = c.Correct(context.Background(), (*bytes.Reader)(nil), 5, nil, io.Discard, nil)
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"src"}, ve.Fields())
	// Upload refuses a missing source before it asks for a ticket.
	_, err = c.Upload(context.Background(), FileTypeImage, (*bytes.Reader)(nil), 5, "")
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"src"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestCorrectFileRejectsNonRegularSource(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	dir := t.TempDir()
	_, err := c.CorrectFile(context.Background(), dir, filepath.Join(dir, "out.jpg"), nil, nil)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.ErrorContains(t, err, "srcPath")
	_, err = c.UploadFile(context.Background(), filepath.Join(dir, "missing.jpg"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Zero(t, mt.GetTotalCallCount(), "nothing sent")
}

// CorrectFile checks the options, without a file key, before it opens the
// source or sends anything.
func TestCorrectFileChecksOptionsFirst(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	dir := t.TempDir()
	cases := []struct {
		name string
		opts *CorrectionOptions
		flow *pfc.FlowOptions
		want []string
	}{
		{"bad option, missing source", &CorrectionOptions{Scale: -5}, nil, []string{"scale"}},
		{"strict refuses an ignored parameter", NewCorrection().WithTransparentBackground().WithShadow(ShadowSoft).WithStrict(), nil, []string{"bgShadow"}},
		{"negative download limit", nil, &pfc.FlowOptions{MaxDownloadSize: -1}, []string{"MaxDownloadSize"}},
		{"a control hosted has no use for", nil, &pfc.FlowOptions{KeepJob: true}, []string{"KeepJob"}},
		{"bad per-call polling", nil, &pfc.FlowOptions{Wait: &pfc.WaitOptions{MinDelay: 2, MaxDelay: 1}}, []string{"MaxDelay"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CorrectFile(context.Background(), filepath.Join(dir, "missing.jpg"), filepath.Join(dir, "out.jpg"), tc.opts, tc.flow)
			var ve *pfc.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.want, ve.Fields())
			assert.NotErrorIs(t, err, os.ErrNotExist, "options are checked before the file")
		})
	}
	assert.Zero(t, mt.GetTotalCallCount(), "nothing sent")

	// A file key already set is not required, and is not an error either.
	_, err := c.CorrectFile(context.Background(), filepath.Join(dir, "missing.jpg"), filepath.Join(dir, "out.jpg"), NewCorrection().WithFileKey("old"), nil)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
