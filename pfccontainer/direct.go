package pfccontainer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Direct is direct file mode: the container's /input and /output are
// mounted from directories this program can reach (InputDir and
// OutputDir). A file placed in InputDir is corrected by GET /pfc/{file
// name}; the result appears in OutputDir, under the same name with
// preserveInputFileName (sent as true by default). Copies are atomic (a
// hidden temporary file, renamed once complete). PutFile, CorrectFile and
// the bulk runs give each file a name of its own (see PutFile), so
// callers sharing a container never meet, and CorrectFile and the bulk
// runs remove what they placed, nothing else; the container's TTL sweep
// deletes the rest.
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
// An existing file of that name is replaced, so callers sharing the
// container must not use one name at once; PutFile picks a name of its
// own for every call.
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

// PutFile copies the regular file at srcPath into InputDir (see Put)
// under a name unique to the call and returns that name:
// "pfc-<token>-<n>-<base name>", token random for the call (or bulk run),
// n counting its files, the base name cut where needed (its extension
// kept) to stay within an image key's 255 bytes, or left out where it
// cannot be part of an image key. So concurrent callers, in this process or
// another, never replace each other's file, even for one base name.
func (d *Direct) PutFile(ctx context.Context, srcPath string) (_ string, err error) {
	f, _, err := fileio.OpenParam("srcPath", srcPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return d.Put(ctx, newRunNames().next(filepath.Base(srcPath)), f)
}

// runNames makes the names that one call or bulk run places in InputDir
// (see PutFile); with preserveInputFileName the container's outputs take
// them too. Safe for concurrent use.
type runNames struct {
	prefix string // "pfc-<token>-"
	n      atomic.Uint64
}

// newRunNames returns the names of a new run: 64 random bits.
func newRunNames() *runNames {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24 and later)
	return &runNames{prefix: "pfc-" + hex.EncodeToString(b[:]) + "-"}
}

// maxKeptExt is the longest extension next keeps when it cuts a name.
const maxKeptExt = 16

// next returns the name of the run's next file, whose own name is base.
func (r *runNames) next(base string) string {
	own := r.prefix + strconv.FormatUint(r.n.Add(1), 10)
	name := own + "-" + base
	if len(name) > maxImageKeyLength {
		ext := filepath.Ext(base)
		if len(ext) > maxKeptExt {
			ext = ""
		}
		stem := base[:len(base)-len(ext)]
		cut := maxImageKeyLength - len(own) - len("-") - len(ext)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		name = own + "-" + stem[:cut] + ext
	}
	if ValidateImageKey(name) == nil {
		return name
	}
	// The base name cannot be part of a key (a colon, a backslash, "..",
	// a control character, invalid UTF-8): its extension alone, if that
	// can.
	if ext := filepath.Ext(base); len(ext) <= maxKeptExt && ValidateImageKey(own+ext) == nil {
		return own + ext
	}
	return own
}

// GetCorrection is the single step GET /pfc/{name} in direct file mode:
// it corrects the file name in InputDir and returns the correction, its
// Path the result in OutputDir.
// PreserveInputFileName is sent as true unless o says otherwise. The
// result must be a regular file named plainly in OutputDir: a symbolic
// link (which could point anywhere on this host), a directory or a device
// is refused with a *pfc.ResponseError, so nothing the container answers
// makes the client read outside OutputDir.
func (d *Direct) GetCorrection(ctx context.Context, name string, o *CorrectionOptions) (_ *Correction, err error) {
	var fe fieldErrors
	d.check(&fe)
	if err := fe.err(); err != nil {
		return nil, err
	}
	oo := CorrectionOptions{}
	if o != nil {
		oo = *o
	}
	if oo.PreserveInputFileName == nil {
		oo.WithPreserveInputFileName(true)
	}
	corr, err := d.Client.GetCorrection(ctx, name, &oo)
	if err != nil {
		return nil, err
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
			re.Reason = d.Client.quote(re.Reason, apierr.MaxQuotedLine)
		}
		return nil, err
	}
	corr.Path = out
	return corr, nil
}

// CorrectFile copies srcPath into InputDir under a name of its own (see
// PutFile), corrects it and returns the correction, its Path the result:
// with an empty dstPath, the result in OutputDir (named after the copy
// unless o sets PreserveInputFileName false); else dstPath, the result
// copied there atomically. The copy in InputDir is removed once
// corrected, and a result copied to dstPath is removed from OutputDir
// when it bears the copy's name. No control of flow (pfc.FlowOptions)
// applies here: one that is set is refused.
func (d *Direct) CorrectFile(ctx context.Context, srcPath, dstPath string, o *CorrectionOptions, flow *pfc.FlowOptions) (_ *Correction, err error) {
	var fe fieldErrors
	d.check(&fe)
	if err := checkFlow(flow, true); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if srcPath == "" {
		fe.add("srcPath", "is required")
	}
	if err := o.Validate(); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	ctx, op := d.Client.http.StartOp(ctx, "pfccontainer.Direct.CorrectFile")
	defer func() { d.Client.http.EndOp(ctx, op, err) }()
	f, _, err := fileio.OpenParam("srcPath", srcPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return d.correctVia(ctx, nil, newRunNames().next(filepath.Base(srcPath)), f, dstPath, o, nil)
}

// correctVia puts src into InputDir as name, a name of this item's own
// (runNames), corrects it and, with a non-empty dst, copies the result
// there. What it placed is removed when done with (see CorrectFile):
// only name, in InputDir and, when the result was copied, in OutputDir,
// so that no other caller's file is touched. scope is the file functions'
// Scope (a bulk run's item; nil for none); started, if set, is called once
// the file is in InputDir, before its correction (a bulk run counts the
// job), and its error ends the call.
func (d *Direct) correctVia(ctx context.Context, scope *fileio.Scope, name string, src io.Reader, dst string, o *CorrectionOptions, started func() error) (*Correction, error) {
	if _, err := d.Put(ctx, name, src); err != nil {
		return nil, err
	}
	defer d.remove(d.InputDir, name)
	if started != nil {
		if err := started(); err != nil {
			return nil, err
		}
	}
	corr, err := d.GetCorrection(ctx, name, o)
	if err != nil {
		return nil, err
	}
	if dst == "" {
		return corr, nil
	}
	if filepath.Base(corr.Path) == name {
		defer d.remove(d.OutputDir, name)
	}
	if err := d.copyOutput(ctx, scope, corr.Path, dst); err != nil {
		return nil, err
	}
	corr.Path = dst
	return corr, nil
}

// remove deletes dir/name, a file this client placed or had the container
// write under a name of its own (a symbolic link there is removed, not
// followed). Failures are ignored: the container's TTL sweep deletes
// what is left.
func (d *Direct) remove(dir, name string) {
	_ = os.Remove(filepath.Join(dir, name))
}

// copyOutput copies the corrected file src, in OutputDir under a name the
// container chose, to dst with WriteFileAtomic. src is opened without
// following a symbolic link (fileio.OpenNoFollow): anything but a regular
// file there is the container's doing and is refused with a
// *pfc.ResponseError, dst untouched.
func (d *Direct) copyOutput(ctx context.Context, scope *fileio.Scope, src, dst string) error {
	f, _, err := fileio.OpenNoFollow("output", src)
	if err != nil {
		switch {
		case errors.Is(err, fileio.ErrNotRegular):
			re := notRegularOutput(filepath.Base(src), err)
			re.Reason = d.Client.quote(re.Reason, apierr.MaxQuotedLine)
			return re
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("pfc: the corrected file is not in the output directory (is OutputDir the directory mounted as /output?): %w", err)
		}
		return err
	}
	defer f.Close()
	return fileio.WriteFileAtomicScoped(scope, dst, func(w io.Writer) error {
		_, err := io.Copy(w, &ctxReader{ctx: ctx, r: f})
		return err
	})
}

// notRegularOutput is the error for a corrected file named name that is
// not a regular file in OutputDir; err is fileio's, which says what it is.
// The caller redacts Reason, then cuts it (Client.quote).
func notRegularOutput(name string, err error) *pfc.ResponseError {
	what := fileio.ErrNotRegular.Error()
	var fe *fileio.FileError
	if errors.As(err, &fe) {
		what = fe.Err.Error()
	}
	return &pfc.ResponseError{Endpoint: string(epCorrect), Field: "corrected_url",
		Reason: fmt.Sprintf("names %q, which in OutputDir %s: refused, so that nothing outside OutputDir is read", name, what)}
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
