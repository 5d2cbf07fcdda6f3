package gpu

import _ "embed" // the kernels' PTX

// kernelsPTX is the PTX of kernels.cu, loaded by the driver at run time
// (cuModuleLoadData JIT-compiles sm_70 PTX for the GPU present). Rebuild it
// with `go generate` after editing kernels.cu; both files are committed and
// the build never needs clang.
//
//go:generate clang-19 -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc -nocudalib -O3 -ffp-contract=off -S -o kernels.ptx kernels.cu
//go:embed kernels.ptx
var kernelsPTX string

// kernel names and their parameter counts, as declared in kernels.cu.
const (
	kDownsample           = "downsample"
	kMedian3              = "median3"
	kColour               = "colour"
	kBGDist               = "bgdist"
	kRefine               = "refine"
	kCompositeTransparent = "composite_transparent"
	kCompositeColor       = "composite_color"
	kCoverRows            = "cover_rows"
	kCoverCols            = "cover_cols"
	kGenerateEnlarge      = "generate_enlarge"
	kShadowReduce         = "shadow_reduce"
	kSubjectScan          = "subject_scan"
	kCompositeBack        = "composite_back"
	kFillU8               = "fill_u8"
	kFillI32              = "fill_i32"
	kCCInit               = "cc_init"
	kCCUnion              = "cc_union"
	kCCFlatten            = "cc_flatten"
	kCCScan               = "cc_scan"
	kCCNumber             = "cc_number"
	kCCLabel              = "cc_label"
	kCCStats              = "cc_stats"
	kMaskAbove            = "mask_above"
	kCountTrue            = "count_true"
	kKeepLargest          = "keep_largest"
	kKeepApply            = "keep_apply"
	kHolesApply           = "holes_apply"
	kSlitRows             = "slit_rows"
	kSlitCols             = "slit_cols"
	kSlitWide             = "slit_wide"
	kSmoothLab            = "smooth_lab"
	kFloodPrep            = "flood_prep"
	kFloodHit             = "flood_hit"
	kFloodApply           = "flood_apply"
	kDilateRows           = "dilate_rows"
	kDilateCols           = "dilate_cols"
	kPlateUse             = "plate_use"
	kPlateSums            = "plate_sums"
	kRefineEdges          = "refine_edges"
	kRefineCells          = "refine_cells"
	kRefineStats          = "refine_stats"
	kRefineMeans          = "refine_means"
	kFitBasis             = "fit_basis"
	kFitResiduals         = "fit_residuals"
	kFitSelect            = "fit_select"
	kFitWeights           = "fit_weights"
	kFitPartial           = "fit_partial"
	kFitSums              = "fit_sums"
	kFitSolve             = "fit_solve"
	kFitGather            = "fit_gather"
	kFitInit              = "fit_init"
	kFieldGrid            = "field_grid"
	kFieldResiduals       = "field_residuals"
	kThreshRank           = "thresh_rank"
	kThreshFinal          = "thresh_final"
)

// kernelSig is each kernel's parameter list as declared in kernels.cu, one
// letter per parameter: p a device pointer (.u64), i a 32-bit integer
// (.u32; int and bool arguments), f a float (.f32). Launches are checked
// against it, and TestPTX checks it against the PTX. Keep kernels at 15
// parameters or fewer and without float ones: the kernel emulator calls
// them through purego.SyscallN, which passes at most 15 arguments, all in
// integer registers (composite_back takes its shadow as a parameter block
// in device memory instead).
var kernelSig = map[string]string{
	kDownsample:           "piiiiiip",  // img, W, H, stride, f, w, h, srgb
	kMedian3:              "ppii",      // src, dst, w, h
	kColour:               "pppipp",    // srgb, lin, lab, n, linLUT, cbrtLUT
	kBGDist:               "ppiiiippp", // lab, grid, w, h, gw, step, dist, plain, shadowed
	kRefine:               "piiiiiippppipp",
	kCompositeTransparent: "pppip",      // fg, colours, matte, n, out
	kCompositeColor:       "pppiiiip",   // fg, colours, matte, n, r, g, b, out
	kCoverRows:            "piiiippip",  // src, sw, stride, nr, w, start, wts, ntaps, tmp
	kCoverCols:            "piiiiippip", // tmp, w, h, sh, rowLo, nr, start, wts, ntaps, out
	kGenerateEnlarge:      "piiiiiiip",  // small, gw, gh, f, w, h, seedLo, seedHi, out
	kShadowReduce:         "ppiiiiiiip", // fg, matte, w, h, dx, dy, f, sw, sh, small
	kSubjectScan:          "ppiip",      // fg, matte, w, h, box
	// fg, colours, matte, back, r, g, b, w, h, shadow, plane, gammaLUT,
	// srgb8, out
	kCompositeBack: "ppppiiiiippppp",
	// general mode's mask clean-up (classify.go); float thresholds are
	// passed as their bits in an int
	kFillU8:      "pii",       // p, n, v
	kFillI32:     "pii",       // p, n, v
	kCCInit:      "piiipip",   // m, want, w, h, lab, step2Bits, parent
	kCCUnion:     "piiiipip",  // m, want, w, h, eight, lab, step2Bits, parent
	kCCFlatten:   "pip",       // parent, n, cnt (0: no counts)
	kCCScan:      "pip",       // cnt, tiles, total
	kCCNumber:    "pipiipp",   // parent, n, off, w, h, labels, comps
	kCCLabel:     "pip",       // parent, n, labels
	kCCStats:     "ppiip",     // labels, score, w, h, comps
	kMaskAbove:   "piip",      // dist, n, tBits, mask
	kCountTrue:   "pip",       // mask, n, total
	kKeepLargest: "ppip",      // comps, ncomp, strongBits, largest
	kKeepApply:   "pppiipip",  // mask, labels, comps, n, minFloor, largest, strongBits, kept
	kHolesApply:  "pppip",     // mask, labels, comps, n, count
	kSlitRows:    "ppiiipp",   // labels, comps, w, h, maxGap, fill, wide
	kSlitCols:    "ppiiip",    // labels, comps, w, h, maxGap, fill
	kSlitWide:    "piipp",     // wide, w, h, fill, mask
	kSmoothLab:   "piip",      // lab, w, h, out
	kFloodPrep:   "pppiip",    // mask, kept, plain, n, limitBits, enter
	kFloodHit:    "ppppiiipp", // labels, comps, enter, lab, w, h, step2Bits, root, hit
	kFloodApply:  "pppip",     // enter, root, hit, n, mask
	// the clean plate's samples (plate.go)
	kDilateRows: "piiip",  // m, w, h, r, out
	kDilateCols: "piiip",  // m, w, h, r, out
	kPlateUse:   "pppiip", // near, shadowed, dist, n, halfBits, use
	kPlateSums:  "ppiiip", // use, lin, w, h, cell, sums
	// the refinement's plan (refineplan.go)
	kRefineEdges: "piip",     // mask, w, h, edge
	kRefineCells: "pppipp",   // mask, band, around, n, conf, index
	kRefineStats: "pppiiipp", // raw, conf, index, w, h, radius, stats, flag
	kRefineMeans: "pipp",     // index, n, means, stats
	// the background model's fit (fit.go); state is a struct fitstate
	kFitBasis:     "piiip",   // idx, n, w, h, basis
	kFitResiduals: "pppippp", // lab, idx, basis, n, state, cbrtLUT, res
	kFitSelect:    "piip",    // res, n, pass, state
	kFitWeights:   "ppppipp", // res, basis, lin, idx, n, state, wb
	kFitPartial:   "ppppip",  // basis, wb, lin, idx, n, part
	kFitSums:      "pip",     // part, n, state
	kFitSolve:     "p",       // state
	kFitGather:    "ppiip",   // lin, idx, n, c, vals
	kFitInit:      "ip",      // c, state
	// the background fields (field.go)
	kFieldGrid:      "ppiiiiiiiipp",  // coef, col, pgw, pgh, cell, w, h, gw, gh, step, cbrtLUT, grid
	kFieldResiduals: "ppppiiiiiippp", // lab, use, coef, col, pgw, pgh, cell, w, h, step, cbrtLUT, res, state
	kThreshRank:     "p",             // state
	kThreshFinal:    "p",             // state
}
