package harness

import (
	"runtime"

	bs "github.com/blockshuffle/blockshuffle"
)

// A Job is one call as a user makes it, with automatic Workers: what the
// report's scaling section times at several GOMAXPROCS.
type Job struct {
	Name  string // as the report's other sections name the case
	What  string // where models have it; "" for the report's own cases
	Bytes int    // of each tensor
	Run   func()
	// Copy is copy() of the same bytes split over procs goroutines, the
	// caller's among them, and MemCopy the same in chunks that never
	// stream (MemCopy): the roofline of a machine's cores.
	Copy, MemCopy func(procs int) func()
}

// OpJob is an operator case as a Job.
func OpJob(c Case, what string) Job {
	b := NewBuffers(c)
	return job(c.String(), what, b.dst, b.src, b.Workers(0))
}

// TransposeJob is a transpose case as a Job, run as
// blockshuffle.TransposeBytes runs it.
func TransposeJob(c TransposeCase) Job {
	b := NewTransposeBuffers(c)
	return job(c.String(), c.What, b.dst, b.src, b.API())
}

func job(name, what string, dst, src []byte, run func()) Job {
	return Job{Name: name, What: what, Bytes: len(src), Run: run,
		Copy:    func(procs int) func() { return ParallelCopy(dst, src, procs, Copy) },
		MemCopy: func(procs int) func() { return ParallelCopy(dst, src, procs, MemCopy) }}
}

// A ServerCase is a call issue 41 timed on a 16-core Xeon against PyTorch
// and ONNX Runtime (their 16-thread figures, GB/s), or a small call that
// more cores must not slow down: an operator or a transpose.
type ServerCase struct {
	What             string
	Op               *Case
	Transpose        *TransposeCase
	PyTorch16, ORT16 float64 // 0: not measured
}

// Name names the case as the report's other sections do.
func (s ServerCase) Name() string {
	if s.Op != nil {
		return s.Op.String()
	}
	return s.Transpose.String()
}

// Job is the case as a Job.
func (s ServerCase) Job() Job {
	if s.Op != nil {
		return OpJob(*s.Op, s.What)
	}
	t := *s.Transpose
	t.What = s.What
	return TransposeJob(t)
}

// ServerCases are issue 41's table, in its order, then two calls under
// 256 KiB.
var ServerCases = []ServerCase{
	{What: "attention heads split, 16 MiB float16", PyTorch16: 83.0, ORT16: 87.6,
		Transpose: &TransposeCase{Transpose{Shape: []int{1, 2048, 32, 128}, Perm: []int{0, 2, 1, 3}}, 2}},
	{What: "YOLO focus, SpaceToDepth DCR b2 1x3x640x640 float32", PyTorch16: 49.2, ORT16: 10.1,
		Op: &Case{Shape{1, 12, 320, 320, 2}, bs.OpSpaceToDepth, bs.DCR, bs.NCHW, 4}},
	{What: "pixel_shuffle, DepthToSpace CRD b2 1x256x64x64 float32", PyTorch16: 33.3, ORT16: 1.4,
		Op: &Case{Shape{1, 256, 64, 64, 2}, bs.OpDepthToSpace, bs.CRD, bs.NCHW, 4}},
	{What: "NCHW to NHWC, 33 MB float32", PyTorch16: 47.3, ORT16: 8.6,
		Transpose: &TransposeCase{Transpose{Shape: []int{1, 64, 270, 480}, Perm: []int{0, 2, 3, 1}}, 4}},
	{What: "matrix 1024x1024 float32", PyTorch16: 3.4, ORT16: 34.2,
		Transpose: &TransposeCase{Transpose{Shape: []int{1024, 1024}, Perm: []int{1, 0}}, 4}},
	{What: "matrix 1024x1024 uint8", PyTorch16: 1.2, ORT16: 29.4,
		Transpose: &TransposeCase{Transpose{Shape: []int{1024, 1024}, Perm: []int{1, 0}}, 1}},
	{What: "super-resolution, DepthToSpace CRD b4 1x48x540x960 uint8", PyTorch16: 8.6, ORT16: 0.6,
		Op: &Case{Shape{1, 48, 540, 960, 4}, bs.OpDepthToSpace, bs.CRD, bs.NCHW, 1}},
	{What: "matrix 4096x4096 float32", PyTorch16: 1.4, ORT16: 27.1,
		Transpose: &TransposeCase{Transpose{Shape: []int{4096, 4096}, Perm: []int{1, 0}}, 4}},
	{What: "YOLO reorg, DepthToSpace DCR b2 1x256x13x13 float32 (173 KB)",
		Op: &Case{Shape{1, 256, 13, 13, 2}, bs.OpDepthToSpace, bs.DCR, bs.NCHW, 4}},
	{What: "attention heads split, 64 tokens float32 (197 KB)",
		Transpose: &TransposeCase{Transpose{Shape: []int{1, 64, 12, 64}, Perm: []int{0, 2, 1, 3}}, 4}},
}

// Procs are the GOMAXPROCS the scaling section runs at: the powers of
// two up to the machine's CPUs, and their number if it is not one.
func Procs() []int {
	cpus := runtime.NumCPU()
	var out []int
	for p := 1; p <= cpus; p *= 2 {
		out = append(out, p)
	}
	if out[len(out)-1] != cpus {
		out = append(out, cpus)
	}
	return out
}
