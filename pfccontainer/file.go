package pfccontainer

import (
	"context"

	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// CorrectFile corrects the image file srcPath into dstPath in one call:
// options and paths checked, upload (content type sniffed), correction,
// atomic download (see DownloadFile). It returns the correction. Nothing
// is sent when o is invalid or srcPath is not a JPEG or PNG file, and
// dstPath is untouched on any failure.
func (c *Client) CorrectFile(ctx context.Context, srcPath, dstPath string, o *CorrectionOptions) (_ *Correction, err error) {
	defer exportTo(&err)
	if err := checkFileArgs(srcPath, dstPath, o); err != nil {
		return nil, err
	}
	f, size, err := fileio.OpenParamContext(ctx, "srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return c.correctFile(ctx, func(ctx context.Context) (_ *Correction, err error) {
		defer func() { c.checkLost(ctx, err) }()
		key, err := c.Upload(ctx, f, size, "")
		if err != nil {
			return nil, err
		}
		corr, err := c.Correct(ctx, key, o)
		if err != nil {
			return nil, err
		}
		if _, err := c.DownloadFile(ctx, corr, dstPath); err != nil {
			return nil, err
		}
		return corr, nil
	})
}

// checkFileArgs reports the problems of a file-to-file call at once.
func checkFileArgs(srcPath, dstPath string, o *CorrectionOptions) error {
	var fe fieldErrors
	if srcPath == "" {
		fe.add("srcPath", "is required")
	}
	if dstPath == "" {
		fe.add("dstPath", "is required")
	}
	if err := o.Validate(); err != nil {
		fe = append(fe, err.(*ValidationError).Errors...)
	}
	return fe.err()
}
