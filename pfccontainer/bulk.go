package pfccontainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/bulk"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// CorrectDir corrects every JPEG and PNG under inDir (recursively; hidden
// files and outDir are left out) into the same relative path under outDir
// with o, several at once, each through CorrectFile. The output's
// extension follows o.OutputType. The run is resumable through its
// manifest, which records each upload (imageKey, replica): a rerun
// corrects those without uploading again (not in direct file mode). A
// failed file does not stop it: see "Bulk runs" in package pfc.
func (c *Client) CorrectDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	return bulkDir(ctx, inDir, outDir, o, b, c.bulkWork(o, b), c.http, false)
}

// CorrectAll corrects every item of items with o, several at once; see
// CorrectDir. items is read as the run goes; with b.Manifest set the run
// is resumable (items are matched by ID).
func (c *Client) CorrectAll(ctx context.Context, items iter.Seq[pfc.BulkItem], o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	return bulkAll(ctx, items, o, b, c.bulkWork(o, b), c.http, false)
}

// CorrectDir is Client.CorrectDir in direct file mode: each file is
// copied into InputDir, corrected, and its result copied from OutputDir
// to its place under outDir. Files reach InputDir under a name unique to
// the run and the item (see Direct.PutFile), so images of the same name
// in different folders, or in runs sharing the container, never collide;
// each is removed once done with, as by Direct.CorrectFile.
func (d *Direct) CorrectDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	if err := d.checked(); err != nil {
		return nil, err
	}
	return bulkDir(ctx, inDir, outDir, o, b, d.bulkWork(o), d.Client.http, true)
}

// CorrectAll is Client.CorrectAll in direct file mode (see
// Direct.CorrectDir).
func (d *Direct) CorrectAll(ctx context.Context, items iter.Seq[pfc.BulkItem], o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	if err := d.checked(); err != nil {
		return nil, err
	}
	return bulkAll(ctx, items, o, b, d.bulkWork(o), d.Client.http, true)
}

// checked reports missing Direct settings once, before a bulk run.
func (d *Direct) checked() error {
	var fe fieldErrors
	d.check(&fe)
	return fe.err()
}

// bulkWork is the HTTP flow for one file, which records its image in the
// manifest once uploaded, and the collection of such a record.
func (c *Client) bulkWork(o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) bulkFlow {
	bo := bulk.Deref(b)
	return bulkFlow{
		work: func(ctx context.Context, it bulk.Item, started bulk.Started) (*Correction, error) {
			hook := func(imageKey, replica string) error {
				return started.Ref(bulkImageRef{ImageKey: imageKey, Replica: replica})
			}
			if bo.Source == nil && bo.Sink == nil {
				return c.correctFile(ctx, it.Scope, it.Src, it.Dst, o, bo.Flow, hook)
			}
			return c.correctStreamed(ctx, it, o, bo, hook)
		},
		collect: func(ctx context.Context, it bulk.Item, ref json.RawMessage) (*Correction, error) {
			return c.collectCorrection(ctx, it, ref, o, bo)
		},
	}
}

// correctStreamed is CorrectFile from bo.Source (a file without it) to
// bo.Sink (a file without it): the upload streams from the source (a
// retry, or a redo on another replica, reads it again), and each
// download publishes its output whole or not at all.
func (c *Client) correctStreamed(ctx context.Context, it bulk.Item, o *CorrectionOptions, bo pfc.BulkOptions[*Correction], started onStarted) (_ *Correction, err error) {
	ctx, op := c.http.StartOp(ctx, "pfccontainer.CorrectFile")
	defer func() { c.http.EndOp(ctx, op, err) }()
	in, size, err := bulk.OpenInput(ctx, it.Scope, bo.Source, it.Src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return c.correctInput(ctx, in, size, o, bo.Flow, started, func(download func(io.Writer) (int64, error)) error {
		return bulk.WriteOutput(ctx, it.Scope, bo.Sink, it.Dst, func(w io.Writer) error {
			_, err := download(w)
			return err
		})
	})
}

// bulkFlow is a bulk run's work and, over HTTP, the collection of an
// image an earlier run uploaded (nil in direct file mode).
type bulkFlow struct {
	work    func(context.Context, bulk.Item, bulk.Started) (*Correction, error)
	collect func(context.Context, bulk.Item, json.RawMessage) (*Correction, error)
}

// bulkImageRef is the "job" of a file's "started" manifest record: the
// uploaded image's key and the Key of the replica holding it (empty for
// a client of one base URL).
type bulkImageRef struct {
	ImageKey string `json:"imageKey"`
	Replica  string `json:"replica,omitempty"`
}

// collectCorrection finishes a bulk file from the image an earlier run
// uploaded (ref, a bulkImageRef): its correction, then the atomic
// download to it.Dst (or the run's Sink). An image the container no longer has (an unknown
// image key, a 404, swept past its TTL), a recorded key it refuses, or a
// replica no longer in the client's fleet, gives an error matching
// pfc.ErrJobForgotten: the file is processed again.
func (c *Client) collectCorrection(ctx context.Context, it bulk.Item, ref json.RawMessage, o *CorrectionOptions, bo pfc.BulkOptions[*Correction]) (*Correction, error) {
	var r bulkImageRef
	if json.Unmarshal(ref, &r) != nil || r.ImageKey == "" {
		return nil, fmt.Errorf("pfc: recorded image of %q unreadable: %w", c.quote(it.ID, apierr.MaxQuotedName), pfc.ErrJobForgotten)
	}
	forgotten := func(why string, err error) error {
		if err == nil {
			return fmt.Errorf("pfc: image %s: %s: %w", c.quote(r.ImageKey, apierr.MaxQuotedID), why, pfc.ErrJobForgotten)
		}
		return fmt.Errorf("pfc: image %s: %w: %w", c.quote(r.ImageKey, apierr.MaxQuotedID), pfc.ErrJobForgotten, err)
	}
	rep, why := c.reps.Recorded(r.ImageKey, r.Replica)
	if why != "" {
		return nil, forgotten(why, nil)
	}
	corr, err := c.GetCorrection(ctx, r.ImageKey, o)
	if err == nil {
		dl := c.withFlow(bo.Flow)
		err = bulk.WriteOutput(ctx, it.Scope, bo.Sink, it.Dst, func(w io.Writer) error {
			_, err := dl.Download(ctx, corr, w)
			return err
		})
	}
	if errors.Is(err, ErrUnknownImageKey) || errors.Is(err, ErrInvalidImageKey) || errors.Is(err, pfc.ErrNotFound) ||
		(errors.Is(err, pfc.ErrInvalidParameter) && ValidateImageKey(r.ImageKey) != nil) {
		return nil, forgotten("", err)
	}
	if err != nil {
		return nil, err
	}
	if rep != nil {
		corr.Replica = rep.URL
	}
	return corr, nil
}

// bulkWork is the direct-file flow for one file. It records nothing in
// flight (its correction is one synchronous step after the copy), but
// counts the correction as a job started (BulkReport.Started).
func (d *Direct) bulkWork(o *CorrectionOptions) bulkFlow {
	names := newRunNames()
	return bulkFlow{work: func(ctx context.Context, it bulk.Item, started bulk.Started) (*Correction, error) {
		f, size, err := fileio.OpenParamScoped(it.Scope, "srcPath", it.Src)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		// As over HTTP, only a JPEG or PNG is handed to the container.
		if _, err := fileio.SniffImage(f, size); err != nil {
			return nil, err
		}
		return d.correctVia(ctx, it.Scope, names.next(filepath.Base(it.Src)), f, it.Dst, o, func() error { return started(nil) })
	}}
}

// bulkDir lists inDir and runs work over it; tc is the client's
// transport, whose redactor the manifest uses, whose observer sees the
// run and whose rate budget the progress shows.
func bulkDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *pfc.BulkOptions[*Correction], work bulkFlow, tc *transport.Client, direct bool) (*pfc.BulkReport[*Correction], error) {
	run, err := bulk.DirRun(inDir, outDir, b, outputName(o))
	if err != nil {
		return nil, err
	}
	return runBulk(ctx, run, o, work, tc, direct)
}

// bulkAll runs work over items; tc is as for bulkDir.
func bulkAll(ctx context.Context, items iter.Seq[pfc.BulkItem], o *CorrectionOptions, b *pfc.BulkOptions[*Correction], work bulkFlow, tc *transport.Client, direct bool) (*pfc.BulkReport[*Correction], error) {
	return runBulk(ctx, bulk.AllRun(items, b), o, work, tc, direct)
}

// runBulk checks the options once and runs the shared runner.
func runBulk(ctx context.Context, run bulk.PublicRun[*Correction], o *CorrectionOptions, work bulkFlow, tc *transport.Client, direct bool) (*pfc.BulkReport[*Correction], error) {
	bo := run.Options
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkFlow(bo.Flow, direct); err != nil {
		return nil, err
	}
	if direct && (bo.Source != nil || bo.Sink != nil) {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "BulkOptions.Source",
			Message: "Source and Sink are not for direct file mode (the container reads and writes its mounted folders): use Client.CorrectDir"}}}
	}
	return run.Run(ctx, bulk.Client[*Correction, pfc.BulkResult[*Correction]]{
		Work: work.work, Collect: work.collect, Summarize: summarizeCorrection, Kind: bulkKind, Redact: tc.Redact, Public: bulkResult,
		Rate: tc.Rate, Observer: tc.Observer(), Name: "pfccontainer.bulk",
	})
}

// outputName renames outputs after o.OutputType.
func outputName(o *CorrectionOptions) func(string) string {
	ext := ""
	if o != nil {
		switch strings.ToLower(string(o.OutputType)) {
		case "jpeg", "jpg":
			ext = ".jpg"
		case "png":
			ext = ".png"
		}
	}
	return func(rel string) string {
		old := filepath.Ext(rel)
		if ext == "" || strings.EqualFold(old, ext) || (ext == ".jpg" && strings.EqualFold(old, ".jpeg")) {
			return rel
		}
		return strings.TrimSuffix(rel, old) + ext
	}
}

// summarizeCorrection is the "result" of a done file's manifest record.
func summarizeCorrection(c *Correction) json.RawMessage {
	if c == nil {
		return nil
	}
	b, _ := json.Marshal(struct {
		File    string `json:"file"`
		Scene   Scene  `json:"scene"`
		Replica string `json:"replica,omitempty"`
	}{c.FileName(), c.Scene, c.Replica})
	return b
}

// bulkKind classifies the errors of a file's correction for the manifest
// that are not the shared classification's (see bulk.Client.Kind): the
// container's message id.
func bulkKind(err error) string {
	var ce *Error
	if errors.As(err, &ce) && ce.MessageID != "" {
		return string(ce.MessageID)
	}
	return ""
}

// bulkResult converts the runner's result to the public one.
func bulkResult(r bulk.Result[*Correction]) pfc.BulkResult[*Correction] {
	return bulk.PublicResult(r)
}
