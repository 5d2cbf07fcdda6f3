package pfccontainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Direct is direct file mode: the container's /input and /output are
// mounted from directories this program can reach (InputDir and OutputDir,
// as seen here), so images are exchanged as files instead of over HTTP. A
// file placed in InputDir is corrected by calling GET /pfc/{file name};
// the corrected file appears in OutputDir, under the same name when
// preserveInputFileName is in effect (Direct sends it as true unless the
// options say otherwise; the container's PFC_PRESERVE_INPUT_FILENAME=true
// does the same for every call).
//
// Files are copied in atomically: the bytes go to a hidden temporary file
// in InputDir (a leading dot, which the container's key check refuses and
// its sweep leaves alone) that is renamed to the final name only when
// complete and synced, so the container never reads half a file. Files
// are not removed afterwards: the container's TTL sweep deletes them.
type Direct struct {
	// Client calls GET /pfc/{file name}.
	Client *Client
	// InputDir is the host directory mounted as the container's /input.
	InputDir string
	// OutputDir is the host directory mounted as the container's /output.
	OutputDir string
}

// Direct returns direct file mode over the mounted directories inputDir
// and outputDir (host paths of /input and /output).
func (c *Client) Direct(inputDir, outputDir string) *Direct {
	return &Direct{Client: c, InputDir: inputDir, OutputDir: outputDir}
}

// check reports missing settings.
func (d *Direct) check(fe *fieldErrors) {
	if d.Client == nil {
		fe.add("Client", "is required")
	}
	if d.InputDir == "" {
		fe.add("InputDir", "is required")
	}
	if d.OutputDir == "" {
		fe.add("OutputDir", "is required")
	}
}

// Put copies src into InputDir as name, atomically (see Direct), and
// returns name, the imageKey to correct. name must pass ValidateImageKey.
// An existing file of that name is replaced.
func (d *Direct) Put(ctx context.Context, name string, src io.Reader) (_ string, err error) {
	var fe fieldErrors
	d.check(&fe)
	if ctx == nil {
		fe.add("ctx", "is nil")
	}
	if err := ValidateImageKey(name); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if src == nil {
		fe.add("src", "is required")
	}
	if err := fe.err(); err != nil {
		return "", err
	}
	err = fileio.WriteFileAtomic(filepath.Join(d.InputDir, name), func(w io.Writer) error {
		_, err := io.Copy(w, &ctxReader{ctx: ctx, r: src})
		return err
	})
	if err != nil {
		return "", err
	}
	return name, nil
}

// PutFile copies the regular file at srcPath into InputDir under its base
// name (see Put) and returns that name.
func (d *Direct) PutFile(ctx context.Context, srcPath string) (_ string, err error) {
	f, _, err := fileio.OpenParam("srcPath", srcPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return d.Put(ctx, filepath.Base(srcPath), f)
}

// Correct corrects the file name in InputDir (GET /pfc/{name}) and returns
// the correction with the path of the result in OutputDir. Unless o sets
// PreserveInputFileName, it is sent as true, so the result keeps the
// input's name. The result's name comes from the container's answer and
// must be a plain file name, and the result must be a regular file in
// OutputDir, not a symbolic link (nor a directory, a pipe or a device): a
// link there could point anywhere on this host, so it is refused with a
// *pfc.ResponseError (pfc.ErrInvalidResponse), as CorrectFile's copy refuses one
// swapped in later: nothing the container answers can make the client
// read outside OutputDir. Callers opening the returned path themselves
// may want the same care (the container can still change OutputDir).
func (d *Direct) Correct(ctx context.Context, name string, o *CorrectionOptions) (_ *Correction, _ string, err error) {
	var fe fieldErrors
	d.check(&fe)
	if err := fe.err(); err != nil {
		return nil, "", err
	}
	oo := CorrectionOptions{}
	if o != nil {
		oo = *o
	}
	if oo.PreserveInputFileName == nil {
		oo.PreservingInputFileName(true)
	}
	corr, err := d.Client.Correct(ctx, name, &oo)
	if err != nil {
		return nil, "", err
	}
	out, err := outputFile(d.OutputDir, corr)
	if err == nil {
		// A result that is not there yet is reported by whoever reads it
		// (CorrectFile says where it looked); only one that is something
		// other than a regular file is refused here.
		if _, lerr := fileio.LstatRegular("output", out); errors.Is(lerr, fileio.ErrNotRegular) {
			err = notRegularOutput(corr.FileName(), lerr)
		}
	}
	if err != nil {
		var re *pfc.ResponseError
		if errors.As(err, &re) {
			re.Reason = d.Client.http.Redact(re.Reason)
		}
		return nil, "", err
	}
	return corr, out, nil
}

// CorrectFile copies srcPath into InputDir, corrects it and returns the
// correction and the path of the result. With a non-empty dstPath the
// result is also copied there, atomically.
func (d *Direct) CorrectFile(ctx context.Context, srcPath, dstPath string, o *CorrectionOptions) (_ *Correction, _ string, err error) {
	var fe fieldErrors
	d.check(&fe)
	if srcPath == "" {
		fe.add("srcPath", "is required")
	}
	if err := ValidateImageKey(filepath.Base(srcPath)); srcPath != "" && err != nil {
		fe.add("srcPath", "its base name cannot be an image key: %s", err.(*pfc.ValidationError).Errors[0].Message)
	}
	if err := o.Validate(); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if err := fe.err(); err != nil {
		return nil, "", err
	}
	name, err := d.PutFile(ctx, srcPath)
	if err != nil {
		return nil, "", err
	}
	corr, out, err := d.Correct(ctx, name, o)
	if err != nil {
		return nil, "", err
	}
	if dstPath == "" {
		return corr, out, nil
	}
	if err := d.copyOutput(ctx, out, dstPath); err != nil {
		return nil, "", err
	}
	return corr, dstPath, nil
}

// copyOutput copies the corrected file src, in OutputDir under a name the
// container chose, to dst with WriteFileAtomic. src is opened without
// following a symbolic link (fileio.OpenNoFollow): anything but a regular
// file there is the container's doing and is refused with a
// *pfc.ResponseError, dst untouched.
func (d *Direct) copyOutput(ctx context.Context, src, dst string) error {
	f, _, err := fileio.OpenNoFollow("output", src)
	if err != nil {
		switch {
		case errors.Is(err, fileio.ErrNotRegular):
			re := notRegularOutput(filepath.Base(src), err)
			re.Reason = d.Client.http.Redact(re.Reason)
			return re
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("pfc: the corrected file is not in the output directory (is OutputDir the directory mounted as /output?): %w", err)
		}
		return err
	}
	defer f.Close()
	return fileio.WriteFileAtomic(dst, func(w io.Writer) error {
		_, err := io.Copy(w, &ctxReader{ctx: ctx, r: f})
		return err
	})
}

// notRegularOutput is the error for a corrected file named name that is
// not a regular file in OutputDir; err is fileio's, which says what it is.
// The caller redacts Reason.
func notRegularOutput(name string, err error) *pfc.ResponseError {
	what := fileio.ErrNotRegular.Error()
	var fe *fileio.FileError
	if errors.As(err, &fe) {
		what = fe.Err.Error()
	}
	return &pfc.ResponseError{Endpoint: string(EndpointCorrect), Field: "corrected_url",
		Reason: fmt.Sprintf("names %.200q, which in OutputDir %s: refused, so that nothing outside OutputDir is read", name, what)}
}

// ctxReader ends a copy when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
