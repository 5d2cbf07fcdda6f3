package pfccontainer

import (
	"context"
	"io"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Correct runs the whole flow for one image: it uploads size bytes of src
// (a JPEG or PNG, its content type sniffed), corrects it with o (nil: the
// container's defaults; see GetCorrection) and streams the corrected file
// to dst (see Download). It returns the correction. Nothing is sent when
// an argument is invalid. Of flow (see pfc.FlowOptions) only
// MaxDownloadSize applies. On a client of several replicas, upload and
// correction are done again on another replica when theirs is lost (see
// CorrectFile); the download, whose bytes may already be in dst, is not.
func (c *Client) Correct(ctx context.Context, src io.ReaderAt, size int64, o *CorrectionOptions, dst io.Writer, flow *pfc.FlowOptions) (_ *Correction, err error) {
	ctx, op := c.http.StartOp(ctx, "pfccontainer.Correct")
	defer func() { c.http.EndOp(ctx, op, err) }()
	var fe apierr.FieldErrors
	if ctx == nil {
		fe.Add("ctx", "is nil")
	}
	if err := checkFlow(flow, false); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	fileio.CheckStream(&fe, src, size, dst)
	if err := o.Validate(); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	corr, err := c.redoOnLoss(func(c *Client) (_ *Correction, err error) {
		defer func() { c.checkLost(ctx, err) }()
		key, err := c.Upload(ctx, src, size, "")
		if err != nil {
			return nil, err
		}
		return c.GetCorrection(ctx, key, o)
	})
	if err != nil {
		return nil, err
	}
	if _, err := c.withFlow(flow).Download(ctx, corr, dst); err != nil {
		return nil, err
	}
	return corr, nil
}

// withFlow returns the client that downloads for a flow: c, or a copy of
// it bounded by flow.MaxDownloadSize.
func (c *Client) withFlow(flow *pfc.FlowOptions) *Client {
	if flow == nil || flow.MaxDownloadSize <= 0 {
		return c
	}
	cc := *c
	cc.maxDownload = flow.MaxDownloadSize
	return &cc
}

// CorrectFile corrects the image file srcPath into dstPath in one call:
// options and paths checked, upload (content type sniffed), correction,
// atomic download (see DownloadFile). It returns the correction. Nothing
// is sent when o is invalid or srcPath is not a JPEG or PNG file, and
// dstPath is untouched on any failure. Of flow (see pfc.FlowOptions) only
// MaxDownloadSize applies: the correction is one synchronous request.
func (c *Client) CorrectFile(ctx context.Context, srcPath, dstPath string, o *CorrectionOptions, flow *pfc.FlowOptions) (_ *Correction, err error) {
	return c.correctFile(ctx, nil, srcPath, dstPath, o, flow, nil)
}

// onStarted is a bulk run's hook into a flow: called once the container
// accepted the image (its imageKey, and the Key of the replica that holds
// it, empty for a client of one base URL), before the correction; an
// error ends the flow with it. nil: none.
type onStarted func(imageKey, replica string) error

// correctFile is CorrectFile with the file functions' Scope (a bulk run's
// item; nil for none) and a bulk run's hook.
func (c *Client) correctFile(ctx context.Context, scope *fileio.Scope, srcPath, dstPath string, o *CorrectionOptions, flow *pfc.FlowOptions, started onStarted) (_ *Correction, err error) {
	ctx, op := c.http.StartOp(ctx, "pfccontainer.CorrectFile")
	defer func() { c.http.EndOp(ctx, op, err) }()
	if err := checkFileArgs(ctx, srcPath, dstPath, o, flow); err != nil {
		return nil, err
	}
	f, size, err := fileio.OpenParamScoped(scope, "srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return c.correctInput(ctx, f, size, o, flow, started, func(download func(io.Writer) (int64, error)) error {
		_, err := fileio.DownloadFile(scope, dstPath, download)
		return err
	})
}

// correctInput is the flow of correctFile and correctStreamed once the
// input is open: upload in (size bytes; redone on another replica when
// the image is lost), the started hook, the correction, and put, which
// writes the output through download (the client bound by flow).
func (c *Client) correctInput(ctx context.Context, in io.ReaderAt, size int64, o *CorrectionOptions, flow *pfc.FlowOptions, started onStarted, put func(download func(io.Writer) (int64, error)) error) (*Correction, error) {
	dl := c.withFlow(flow) // the client that downloads, with the flow's bound
	return c.redoOnLoss(func(c *Client) (_ *Correction, err error) {
		defer func() { c.checkLost(ctx, err) }()
		key, err := c.Upload(ctx, in, size, "")
		if err != nil {
			return nil, err
		}
		if err := c.recordStarted(started, key); err != nil {
			return nil, err
		}
		corr, err := c.GetCorrection(ctx, key, o)
		if err != nil {
			return nil, err
		}
		if err := put(func(w io.Writer) (int64, error) { return dl.Download(ctx, corr, w) }); err != nil {
			return nil, err
		}
		return corr, nil
	})
}

// recordStarted tells a bulk run's hook (nil: none) that the container
// holds key, on the replica of c's flow (empty for one base URL).
func (c *Client) recordStarted(started onStarted, key string) error {
	if started == nil {
		return nil
	}
	rk := ""
	if rep := c.flow.Pinned(); rep != nil {
		rk = replicas.Key(rep.URL)
	}
	return started(key, rk)
}

// checkFileArgs reports the problems of a file-to-file call at once.
func checkFileArgs(ctx context.Context, srcPath, dstPath string, o *CorrectionOptions, flow *pfc.FlowOptions) error {
	var fe fieldErrors
	if ctx == nil {
		fe.add("ctx", "is nil")
	}
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
