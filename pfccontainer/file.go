package pfccontainer

import (
	"context"

	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/pfc"
)

// CorrectFile corrects the image file srcPath into dstPath in one call:
// options and paths checked, upload (content type sniffed), correction,
// atomic download (see DownloadFile). It returns the correction. Nothing
// is sent when o is invalid or srcPath is not a JPEG or PNG file, and
// dstPath is untouched on any failure. Of flow (see pfc.FlowOptions) only
// MaxDownloadSize applies: the correction is one synchronous request.
func (c *Client) CorrectFile(ctx context.Context, srcPath, dstPath string, o *CorrectionOptions, flow *pfc.FlowOptions) (_ *Correction, err error) {
	if err := checkFileArgs(srcPath, dstPath, o, flow); err != nil {
		return nil, err
	}
	dl := c // the client that downloads, with the flow's bound
	if flow != nil && flow.MaxDownloadSize > 0 {
		cc := *c
		cc.maxDownload = flow.MaxDownloadSize
		dl = &cc
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
		if _, err := dl.DownloadFile(ctx, corr, dstPath); err != nil {
			return nil, err
		}
		return corr, nil
	})
}

// checkFileArgs reports the problems of a file-to-file call at once.
func checkFileArgs(srcPath, dstPath string, o *CorrectionOptions, flow *pfc.FlowOptions) error {
	var fe fieldErrors
	if err := checkFlow(flow, false); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if srcPath == "" {
		fe.add("srcPath", "is required")
	}
	if dstPath == "" {
		fe.add("dstPath", "is required")
	}
	if err := o.Validate(); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	return fe.err()
}

// checkFlow refuses the flow controls the container has no use for: it
// corrects in one synchronous request (no wait) and keeps no jobs. Direct
// file mode downloads nothing, so MaxDownloadSize does not apply there.
func checkFlow(flow *pfc.FlowOptions, direct bool) error {
	if flow == nil {
		return nil
	}
	var fe fieldErrors
	if flow.Wait != nil {
		fe.add("Wait", "does not apply to pfccontainer: the correction is one synchronous request")
	}
	if flow.KeepJob || flow.CleanupTimeout != 0 {
		fe.add("KeepJob", "does not apply to pfccontainer, which keeps no jobs")
	}
	switch {
	case flow.MaxDownloadSize < 0:
		fe.add("MaxDownloadSize", "must not be negative, got %d", flow.MaxDownloadSize)
	case flow.MaxDownloadSize > 0 && direct:
		fe.add("MaxDownloadSize", "does not apply to direct file mode, which downloads nothing")
	}
	return fe.err()
}
