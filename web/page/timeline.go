package page

import (
	"slices"

	"ctxsim/sim"
)

// timeline is alignRuns of two runs. Those of two preset runs are kept: a
// comparison's page links to the timelines of every mode option on both
// sides, and its neighbours link to the same ones.
func (b *Builder) timeline(ra, rb *sim.Replay) []pair {
	if !b.runs.IsKept(ra) || !b.runs.IsKept(rb) {
		return alignRuns(ra.Frames, rb.Frames)
	}
	k := [2]*sim.Replay{ra, rb}
	if tl, ok := b.timelines.Load(k); ok {
		return tl.([]pair)
	}
	tl := alignRuns(ra.Frames, rb.Frames)
	b.timelines.Store(k, tl)
	return tl
}

// pair is one position of a compared timeline: the frame (0-based index)
// each side shows there.
type pair struct{ a, b int }

// alignRuns aligns two runs of one lesson by trace position, not by frame
// index. Frames are grouped by the trace step they belong to; within a
// step the two groups are right-aligned, so the frame that finishes a step
// on one side meets the frame that finishes it on the other, and the side
// with fewer frames there (no compaction, say) holds its previous frame.
func alignRuns(a, b []sim.Frame) []pair {
	ga, gb := groups(a), groups(b)
	var out []pair
	lastA, lastB := 0, 0
	for _, step := range mergeOrder(stepOrder(a), stepOrder(b)) {
		fa, fb := ga[step], gb[step]
		n := max(len(fa), len(fb))
		for p := range n {
			ia, ib := lastA, lastB
			if off := n - len(fa); p >= off {
				ia = fa[p-off]
			}
			if off := n - len(fb); p >= off {
				ib = fb[p-off]
			}
			out = append(out, pair{ia, ib})
		}
		if len(fa) > 0 {
			lastA = fa[len(fa)-1]
		}
		if len(fb) > 0 {
			lastB = fb[len(fb)-1]
		}
	}
	return out
}

// groups maps each trace step to the indices of its frames.
func groups(frames []sim.Frame) map[string][]int {
	g := map[string][]int{}
	for i, f := range frames {
		g[f.TraceStep] = append(g[f.TraceStep], i)
	}
	return g
}

// stepOrder lists the trace steps of a run in order of appearance.
func stepOrder(frames []sim.Frame) []string {
	var out []string
	for _, f := range frames {
		if !slices.Contains(out, f.TraceStep) {
			out = append(out, f.TraceStep)
		}
	}
	return out
}

// mergeOrder merges two ordered lists of trace steps into one that keeps
// the order of both (steps one run skipped stay where the other had them).
func mergeOrder(a, b []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, a[i])
			i, j = i+1, j+1
		case i < len(a) && !slices.Contains(b[j:], a[i]):
			out = append(out, a[i])
			i++
		case j < len(b):
			if !slices.Contains(out, b[j]) {
				out = append(out, b[j])
			}
			j++
		default:
			out = append(out, a[i])
			i++
		}
	}
	return out
}
